"""Limits enforced while reading (a bundle is untrusted input; issue 14, point 5).

``records.load_run`` streams attempts.jsonl.gz and cassette.jsonl: a gzip bomb, a file of tiny
lines, one endless line, more lines than the run planned, all are ``LIMIT_SIZE`` naming the
file, found by a first pass that only counts, before a single line is parsed and before the
rest is inflated. These tests assert the code, the file, that no line of the file was parsed
and how many bytes the reader took at most (by wrapping its chunk readers), never wall-clock
time (benchmarks/bench_reading.py measures that). The bundles are the adversarial suite's
``_base/`` world, honestly re-signed after each change (tests/fixtures/bundles/regenerate.py).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import REGEN, base_world
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.board.errors import BoardInputError
from bench.board.load import BundlesLoader
from bench.verify import Code, VerifyOptions, verify_bundle
from bench.verify import records as records_module
from bench.verify.failure import VerifyFailure
from bench.verify.layout import (
    GZIP_RATIO_FLOOR,
    MAX_CASSETTE_LINES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_RECORD_BYTES,
)
from bench.verify.records import CHUNK, load_run

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
BASE = BUNDLES / "_base"
(BASE_BUNDLE,) = (p for p in (BASE / "results").glob("*/*") if p.is_dir())
ATTEMPTS, CASSETTE, CONFIG = "attempts.jsonl.gz", "cassette.jsonl", "config.json"
MiB = 1024 * 1024


@pytest.fixture
def world(tmp_path: Path) -> Any:
    return base_world(tmp_path)


def options(world: Any) -> VerifyOptions:
    return VerifyOptions(
        results_root=world.root / "results",
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
        replay_sample=3,
        seed=7,
    )


def base_lines(name: str) -> list[bytes]:
    data = (BASE_BUNDLE / name).read_bytes()
    return (gzip.decompress(data) if name == ATTEMPTS else data).splitlines()


@dataclass
class Meter:
    """What the reader did: bytes out of each chunk reader, lines parsed per file."""

    chunk_bytes: dict[str, int] = field(default_factory=dict)
    parsed: dict[str, int] = field(default_factory=dict)

    def bytes_of(self, name: str) -> int:
        return sum(n for path, n in self.chunk_bytes.items() if Path(path).name == name)

    def parsed_of(self, name: str) -> int:
        return sum(n for path, n in self.parsed.items() if Path(path).name == name)


@pytest.fixture
def meter(monkeypatch: pytest.MonkeyPatch) -> Meter:
    """Counts every chunk the reader inflates or reads, and every line it parses."""
    seen = Meter()

    def counted(original: Callable[..., Iterator[bytes]]) -> Callable[..., Iterator[bytes]]:
        def wrapper(handle: Any, path: str, *args: Any) -> Iterator[bytes]:
            for chunk in original(handle, path, *args):
                seen.chunk_bytes[path] = seen.chunk_bytes.get(path, 0) + len(chunk)
                yield chunk

        return wrapper

    monkeypatch.setattr(records_module, "gzip_chunks", counted(records_module.gzip_chunks))
    monkeypatch.setattr(records_module, "_plain_chunks", counted(records_module._plain_chunks))
    load = records_module.jsonsafe.load

    def parse(data: bytes, path: str, **kwargs: Any) -> Any:
        file = path.rsplit(":", 1)[0] if path.rsplit(":", 1)[-1].isdigit() else path
        seen.parsed[file] = seen.parsed.get(file, 0) + 1
        return load(data, path, **kwargs)

    monkeypatch.setattr(records_module.jsonsafe, "load", parse)
    return seen


def refused(world: Any, name: str, code: Code = Code.LIMIT_SIZE) -> str:
    """Verify the world's bundle: refused with ``code``, naming ``name``; the message."""
    verdict = verify_bundle(world.bundle, options(world))
    assert verdict.code is code, verdict
    assert verdict.path == str(world.bundle / name), verdict
    return verdict.message


@pytest.fixture(scope="module")
def tiny_line_bomb() -> bytes:
    """72 KB of gzip that inflates to 64 MiB of one-token lines."""
    return REGEN.deterministic_gzip(b"1\n" * (32 * MiB))


@pytest.fixture(scope="module")
def endless_line_bomb() -> bytes:
    """64 KB of gzip that inflates to one 64 MiB line."""
    return REGEN.deterministic_gzip(b"0" * (64 * MiB))


# -- the base bundle reads as before ------------------------------------------------------


def test_the_base_bundle_reads_every_line_once(world: Any, meter: Meter) -> None:
    assert verify_bundle(world.bundle, options(world)).valid
    run = load_run(world.bundle)
    assert len(run.attempts) == len(base_lines(ATTEMPTS))
    assert len(run.cassette) == len(base_lines(CASSETTE))
    assert len(base_lines(CASSETTE)) == sum(len(a.trace.exchanges) for a in run.attempts)
    inflated = len(gzip.decompress((BASE_BUNDLE / ATTEMPTS).read_bytes()))
    # two passes each (count, then parse), in verify and in the direct read
    assert meter.bytes_of(ATTEMPTS) == 4 * inflated
    assert meter.bytes_of(CASSETTE) == 4 * (BASE_BUNDLE / CASSETTE).stat().st_size
    assert meter.parsed_of(ATTEMPTS) == 2 * len(run.attempts)


def test_a_gzip_of_several_members_is_refused(world: Any) -> None:
    """The same lines, one gzip member each, re-signed: Python reads them all, but the
    transcript page inflates the file with a browser's DecompressionStream, which reads one
    member and fails on what follows (Chromium: "Failed to fetch"), so the row would show
    none of its transcripts. bench bundle writes one member; verify takes no other."""
    lines = base_lines(ATTEMPTS)
    members = b"".join(REGEN.deterministic_gzip(line + b"\n") for line in lines)
    REGEN._rewrite(world, ATTEMPTS, members)
    verdict = verify_bundle(world.bundle, options(world))
    assert verdict.code == Code.RECORD_INVALID, verdict.message
    assert verdict.path is not None and verdict.path.endswith(ATTEMPTS)
    assert "not gzip of one member" in verdict.message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data[:-9], "truncated"),
        (lambda data: data + b"not gzip", "not gzip"),
        (lambda data: b"", "empty"),
        (lambda data: data[:20] + bytes([data[20] ^ 0xFF]) + data[21:], "not gzip"),
    ],
    ids=["truncated", "trailing-garbage", "empty", "corrupt"],
)
def test_a_broken_gzip_is_record_invalid(
    world: Any, change: Callable[[bytes], bytes], message: str
) -> None:
    REGEN._rewrite(world, ATTEMPTS, change((BASE_BUNDLE / ATTEMPTS).read_bytes()))
    assert message in refused(world, ATTEMPTS, Code.RECORD_INVALID)


# -- bombs and floods, honestly signed ----------------------------------------------------


def test_a_gzip_bomb_of_tiny_lines_stops_at_the_plan(
    world: Any, meter: Meter, tiny_line_bomb: bytes
) -> None:
    REGEN._rewrite(world, ATTEMPTS, tiny_line_bomb)
    message = refused(world, ATTEMPTS)
    assert "more than 3 lines" in message and "tasks x repeats" in message
    assert meter.parsed_of(ATTEMPTS) == 0
    assert meter.bytes_of(ATTEMPTS) <= CHUNK  # the first inflated chunk already says so


def test_a_gzip_bomb_of_one_endless_line_stops_at_the_ratio(
    world: Any, meter: Meter, endless_line_bomb: bytes
) -> None:
    REGEN._rewrite(world, ATTEMPTS, endless_line_bomb)
    refused(world, ATTEMPTS)
    assert meter.parsed_of(ATTEMPTS) == 0
    limit = MAX_GZIP_RATIO * max(len(endless_line_bomb), GZIP_RATIO_FLOOR)
    assert meter.bytes_of(ATTEMPTS) <= min(limit, MAX_LINE_BYTES) + CHUNK


def test_the_ratio_cap_holds_for_few_short_lines(world: Any, meter: Meter) -> None:
    """Three lines (the plan) of 10 MiB each (under the line cap): 30 MiB from a few KB."""
    bomb = REGEN.deterministic_gzip((b" " * (10 * MiB) + b"\n") * 3)
    assert len(bomb) < GZIP_RATIO_FLOOR
    REGEN._rewrite(world, ATTEMPTS, bomb)
    limit = MAX_GZIP_RATIO * GZIP_RATIO_FLOOR
    assert f"decompresses to more than {limit} bytes" in refused(world, ATTEMPTS)
    assert meter.parsed_of(ATTEMPTS) == 0
    assert meter.bytes_of(ATTEMPTS) <= limit + CHUNK


def test_a_cassette_of_tiny_lines_stops_at_the_flat_cap(world: Any, meter: Meter) -> None:
    """Counted before the attempts are parsed: no line of either file is."""
    REGEN._rewrite(world, CASSETTE, b"{}\n" * (64 * MiB // 3))
    assert f"more than {MAX_CASSETTE_LINES} lines" in refused(world, CASSETTE)
    assert meter.parsed_of(CASSETTE) == meter.parsed_of(ATTEMPTS) == 0
    assert meter.bytes_of(CASSETTE) <= CHUNK


@pytest.mark.parametrize("name", [ATTEMPTS, CASSETTE])
def test_one_line_more_than_planned_is_refused_before_parsing(
    world: Any, meter: Meter, name: str
) -> None:
    lines = base_lines(name)
    data = b"".join(line + b"\n" for line in [*lines, lines[-1]])
    REGEN._rewrite(world, name, REGEN.deterministic_gzip(data) if name == ATTEMPTS else data)
    message = refused(world, name)
    assert f"more than {len(lines)} lines" in message
    assert ("tasks x repeats" if name == ATTEMPTS else "model call") in message
    assert meter.parsed_of(name) == 0


def test_a_blank_line_counts_as_a_line(world: Any) -> None:
    data = (BASE_BUNDLE / CASSETTE).read_bytes() + b"\n"
    REGEN._rewrite(world, CASSETTE, data)
    refused(world, CASSETTE)


@pytest.mark.parametrize("name", [ATTEMPTS, CASSETTE])
def test_a_line_over_the_line_cap(
    world: Any, meter: Meter, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """With the line cap lowered to one chunk, a 3-chunk first line (the file is read
    directly: the cap is the reader's, whatever signed it)."""
    monkeypatch.setattr(records_module, "MAX_LINE_BYTES", CHUNK)
    lines = base_lines(name)
    long_line = b'{"pad":"' + b"x" * (3 * CHUNK) + b'"}'
    data = b"".join(line + b"\n" for line in [long_line, *lines[1:]])
    (world.bundle / name).write_bytes(REGEN.deterministic_gzip(data) if name == ATTEMPTS else data)
    with pytest.raises(VerifyFailure) as caught:
        load_run(world.bundle)
    assert caught.value.verify_code is Code.LIMIT_SIZE
    assert caught.value.path == str(world.bundle / name)
    assert f"line 1 is longer than {CHUNK} bytes" in caught.value.message
    assert meter.parsed_of(name) == 0
    assert meter.bytes_of(name) <= 2 * CHUNK


@pytest.mark.parametrize("name", [CONFIG, "status.json", "target.json"])
def test_a_record_file_over_its_cap(world: Any, meter: Meter, name: str) -> None:
    data = (BASE_BUNDLE / name).read_bytes()
    REGEN._rewrite(world, name, data.rstrip() + b" " * (MAX_RECORD_BYTES - len(data)) + b"\n\n")
    assert f"larger than {MAX_RECORD_BYTES} bytes" in refused(world, name)
    assert meter.parsed_of(name) == 0


# -- what load_run opens ------------------------------------------------------------------


def _load_code(bundle: Path) -> tuple[Code, str | None]:
    with pytest.raises(VerifyFailure) as caught:
        load_run(bundle)
    return caught.value.verify_code, caught.value.path


def test_a_symlinked_file_is_not_followed(world: Any) -> None:
    (world.bundle / CASSETTE).unlink()
    (world.bundle / CASSETTE).symlink_to("/dev/zero")
    assert _load_code(world.bundle) == (Code.PATH_UNSAFE, str(world.bundle / CASSETTE))


def test_a_fifo_is_not_read(world: Any) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    (world.bundle / CASSETTE).unlink()
    os.mkfifo(world.bundle / CASSETTE)
    assert _load_code(world.bundle) == (Code.PATH_UNSAFE, str(world.bundle / CASSETTE))


def test_a_symlinked_bundle_directory_is_not_read(world: Any) -> None:
    link = world.bundle.parent / "20990101T000000Z-000000"
    link.symlink_to(world.bundle)
    assert _load_code(link) == (Code.PATH_UNSAFE, str(link))


def test_a_missing_file_is_named(world: Any) -> None:
    (world.bundle / "status.json").unlink()
    path = str(world.bundle / "status.json")
    assert _load_code(world.bundle) == (Code.BUNDLE_FILE_MISSING, path)


# -- the board reads through the same reader ----------------------------------------------


@pytest.mark.parametrize("verify", [True, False], ids=["verify", "no-verify"])
def test_the_board_refuses_a_bomb_with_the_code(
    world: Any, tiny_line_bomb: bytes, verify: bool
) -> None:
    REGEN._rewrite(world, ATTEMPTS, tiny_line_bomb)
    loader = BundlesLoader(
        world.root / "results",
        verify=verify,
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
    )
    with pytest.raises(BoardInputError) as caught:
        loader.load(None)
    assert caught.value.code == "BOARD_INPUT"
    assert caught.value.message.startswith("LIMIT_SIZE: ")
    assert caught.value.path == str(world.bundle / ATTEMPTS)


# -- the streaming pieces, against a plain split ------------------------------------------


def _chunked(data: bytes, cuts: list[int]) -> Iterator[bytes]:
    edges = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    for start, end in zip(edges, edges[1:], strict=False):
        if end > start:
            yield data[start:end]


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=12),
    trailing=st.booleans(),
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_split_and_count_agree_with_a_plain_split(
    lines: list[bytes], trailing: bool, cuts: list[int]
) -> None:
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    expected = data.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert list(records_module._split(_chunked(data, cuts))) == expected
    count = records_module.count_lines(_chunked(data, cuts), "f", len(expected), "x")
    assert count == len(expected)
    if expected:
        with pytest.raises(VerifyFailure, match="more than"):
            records_module.count_lines(_chunked(data, cuts), "f", len(expected) - 1, "x")


def test_the_line_cap_spans_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records_module, "MAX_LINE_BYTES", 10)
    count = records_module.count_lines
    assert count(iter([b"12345", b"67890\n"]), "f", 5, "x") == 1
    for chunks in ([b"12345", b"678901\n"], [b"1234567890", b"1"], [b"a\n12345678", b"901\n"]):
        with pytest.raises(VerifyFailure, match="longer than 10 bytes"):
            count(iter(chunks), "f", 5, "x")


def test_json_lines_are_read_with_the_text_rules(world: Any) -> None:
    """An escaped C1 control in one cassette line: TEXT_INVALID naming the file and line."""
    lines = base_lines(CASSETTE)
    entry = json.loads(lines[2])
    entry["response"]["content"] = "fine\u0085"
    lines[2] = json.dumps(entry).encode()
    REGEN._rewrite(world, CASSETTE, b"".join(line + b"\n" for line in lines))
    verdict = verify_bundle(world.bundle, options(world))
    assert verdict.code is Code.TEXT_INVALID
    assert verdict.path == f"{world.bundle / CASSETTE}:3"
    assert verdict.field == "response.content"
