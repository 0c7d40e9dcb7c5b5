"""A failed task's transcript on the site: transcript.html and transcripts/<key>.jsonl.gz."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.board import Board, BoardBuildError, BoardInputError, BuildOptions, build
from bench.board.transcripts import bundle_data, data_key

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("example-support-bot/20261204T152001Z-f33f45", "baseline-echo/20261204T151958Z-40a830")


def shipped_results(root: Path) -> Path:
    """Copies of two shipped bundles (real signed runs of the examples) under ``root/results``."""
    results = root / "results"
    for rel in SHIPPED:
        shutil.copytree(REPO / "results" / rel, results / rel)
    return results


def shipped_options(root: Path, out: Path, **changes: Any) -> BuildOptions:
    base = BuildOptions(
        runs=None,
        results=root / "results",
        out=out,
        templates=REPO / "site_templates",
        methodology=REPO / "docs" / "METHODOLOGY.md",
        submissions=REPO / "submissions",
        allowed_signers=REPO / "submissions" / "allowed_signers",
        tasks=REPO / "tasks",
        repo_url="https://github.com/example/bench-results",
        resamples=200,
        frontier_resamples=100,
    )
    from dataclasses import replace

    return replace(base, **changes)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A board of the two bundles, built through a cache (``root/cache``): ``root/site``."""
    root = tmp_path_factory.mktemp("shipped")
    shipped_results(root)
    build(shipped_options(root, root / "site", cache=root / "cache"))
    return root


def rows(site: Path, page: str = "board.json") -> list[Any]:
    board = Board.model_validate_json((site / page).read_text(encoding="utf-8"))
    return [e for c in board.cohorts for e in c.entries]


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(data).splitlines() if line.strip()]


def test_every_bundle_row_links_to_its_verified_bundles_bytes(shipped: Path) -> None:
    site = shipped / "site"
    found = rows(site)
    assert len(found) == 2 and all(e.verified for e in found)
    assert (site / "transcript.html").is_file()
    for e in found:
        assert e.transcripts == data_key("bundle", e.source_path)
        data = (site / "transcripts" / f"{e.transcripts}.jsonl.gz").read_bytes()
        bundle = shipped / e.source_path
        assert data == (bundle / "attempts.jsonl.gz").read_bytes()
        listed = json.loads((bundle / "manifest.json").read_bytes())["files"]
        assert hashlib.sha256(data).hexdigest() in {f["sha256"] for f in listed}
        # every failed task a reader can open has its attempts in the file
        tasks = {r["task_id"] for r in records(data)}
        public = [f for f in e.failed if not f.private]
        assert public and all(f.task_id in tasks for f in public)
        # and the GitHub source link stays beside the viewer's
        assert all(f.transcript and f.transcript.startswith("https://github.com/") for f in public)
    assert sorted(p.name for p in (site / "transcripts").iterdir()) == sorted(
        f"{e.transcripts}.jsonl.gz" for e in found
    )


def test_a_board_rebuilt_from_the_cache_has_every_data_file(shipped: Path) -> None:
    again = shipped / "again"
    result = build(shipped_options(shipped, again, cache=shipped / "cache"))
    assert result.reused == 2
    before = {p.relative_to(shipped / "site"): p.read_bytes() for p in (shipped / "site").rglob("*")
              if p.is_file()}  # fmt: skip
    after = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert after == before
    assert len([p for p in after if p.parts[0] == "transcripts"]) == 2


def test_the_viewer_is_self_contained_under_its_own_policy(shipped: Path) -> None:
    page = (shipped / "site" / "transcript.html").read_text(encoding="utf-8")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = csp.group(1).replace("&#39;", "'")
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert script is not None and style is not None
    assert "connect-src 'self'" in policy and "default-src 'none'" in policy
    for text in (script.group(1), style.group(1)):
        digest = hashlib.sha256(text.encode()).digest()
        assert "'sha256-" + base64.b64encode(digest).decode() + "'" in policy
    code = re.sub(r"^\s*//.*$", "", script.group(1), flags=re.M)
    assert "innerHTML" not in code and "insertAdjacentHTML" not in code
    assert not re.search(r"https?://", code)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no external request


def test_run_rows_get_their_failed_tasks_attempts_and_nothing_private(built_site: Path) -> None:
    found = [e for e in rows(built_site) if e.failed]
    assert found and all(e.transcripts for e in found)
    for e in found:
        data = (built_site / "transcripts" / f"{e.transcripts}.jsonl.gz").read_bytes()
        got = records(data)
        wanted = {f.task_id for f in e.failed if not f.private}
        assert {r["task_id"] for r in got} == wanted
        assert all(r["split"] != "private" for r in got)
        run = built_site.parent / e.source_path
        on_disk = sorted(p.name for p in (run / "attempts").glob("*.json")
                         if p.name.split("--r")[0] in wanted)  # fmt: skip
        assert sorted(f"{r['task_id']}--r{r['repeat']}.json" for r in got) == on_disk
        assert data[4:8] == b"\0\0\0\0"  # no time stamp: the same run, the same bytes


def test_a_private_task_is_never_listed_in_a_run_rows_data_file(
    board_inputs: Path, tmp_path: Path, make_options: Callable[..., BuildOptions]
) -> None:
    """A run over both splits: its private failed tasks are ids and scores only, and the data
    file holds the public ones' attempts alone (the page links a task only when it is not
    private, and the viewer shows no private record)."""
    from bench.runner import RunRequest, start_run

    runs = tmp_path / "runs"
    start_run(
        RunRequest(
            tasks=REPO / "tasks",
            target_file=REPO / "examples" / "targets" / "support-bot-v1.yaml",
            split=None,
            repeats=1,
            runs_dir=runs,
        )
    )
    out = tmp_path / "site"
    build(make_options(board_inputs, out, runs=runs))
    (row,) = rows(out)
    private = {f.task_id for f in row.failed if f.private}
    public = {f.task_id for f in row.failed if not f.private}
    assert private and public and row.transcripts
    got = records((out / "transcripts" / f"{row.transcripts}.jsonl.gz").read_bytes())
    assert {r["task_id"] for r in got} == public
    assert all(r["split"] == "public" for r in got)


def test_without_a_repository_url_every_failed_task_still_has_its_transcript(
    board_inputs: Path, tmp_path: Path, make_options: Callable[..., BuildOptions]
) -> None:
    out = tmp_path / "site"
    build(make_options(board_inputs, out, repo_url=None))
    found = [e for e in rows(out) if e.failed]
    assert found and all(e.transcripts for e in found)
    assert all(f.transcript is None for e in found for f in e.failed)
    assert all((out / "transcripts" / f"{e.transcripts}.jsonl.gz").is_file() for e in found)


def test_a_bundle_changed_after_it_verified_is_refused(shipped: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(shipped / "results" / SHIPPED[0], bundle)
    assert bundle_data(bundle, verified=True) == (bundle / "attempts.jsonl.gz").read_bytes()
    (bundle / "attempts.jsonl.gz").write_bytes(gzip.compress(b'{"task_id": "x"}\n'))
    with pytest.raises(BoardInputError) as caught:
        bundle_data(bundle, verified=True)
    assert caught.value.code == "BOARD_INPUT" and "attempts.jsonl.gz" in str(caught.value.path)
    # one that did not verify is on the board with a warning; its file is copied as read
    assert records(bundle_data(bundle, verified=False)) == [{"task_id": "x"}]


def test_an_unverified_bundles_gzip_bomb_is_never_copied(shipped: Path, tmp_path: Path) -> None:
    # A bundle that did not verify is on the board with a warning and its file was copied as
    # the build read it, unchecked: a file swapped in after the row was read (or a row from
    # --cache) could be a "gzip bomb" the reader's browser inflates whole. It is held to the
    # limits verify reads attempts.jsonl.gz under (LIMIT_SIZE), and the build names it.
    bundle = tmp_path / "b"
    shutil.copytree(shipped / "results" / SHIPPED[0], bundle)
    bomb = gzip.compress(b"\n" * (80 * 1024 * 1024), compresslevel=9)  # ~80 KiB -> 80 MiB
    (bundle / "attempts.jsonl.gz").write_bytes(bomb)
    with pytest.raises(BoardInputError) as caught:
        bundle_data(bundle, verified=False)
    assert "LIMIT_SIZE" in caught.value.message and "attempts.jsonl.gz" in str(caught.value.path)
    long_line = gzip.compress(b'{"task_id": "' + b"x" * (17 * 1024 * 1024) + b'"}\n')
    (bundle / "attempts.jsonl.gz").write_bytes(long_line)
    with pytest.raises(BoardInputError) as caught:
        bundle_data(bundle, verified=False)
    assert "LIMIT_SIZE" in caught.value.message
    (bundle / "attempts.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(BoardInputError) as caught:
        bundle_data(bundle, verified=False)
    assert "RECORD_INVALID" in caught.value.message


def test_a_symlink_or_fifo_in_a_bundle_is_never_read(shipped: Path, tmp_path: Path) -> None:
    import os

    bundle = tmp_path / "b"
    shutil.copytree(shipped / "results" / SHIPPED[0], bundle)
    outside = tmp_path / "outside.jsonl.gz"
    outside.write_bytes(gzip.compress(b'{"task_id": "secret"}\n'))
    (bundle / "attempts.jsonl.gz").unlink()
    (bundle / "attempts.jsonl.gz").symlink_to(outside)
    for verified in (True, False):
        with pytest.raises(BoardInputError) as caught:
            bundle_data(bundle, verified=verified)
        assert "PATH_UNSAFE" in caught.value.message
    (bundle / "attempts.jsonl.gz").unlink()
    os.mkfifo(bundle / "attempts.jsonl.gz")  # opened without blocking, refused as not a file
    with pytest.raises(BoardInputError) as caught:
        bundle_data(bundle, verified=False)
    assert "PATH_UNSAFE" in caught.value.message


def test_a_failed_copy_leaves_the_old_site_whole(
    shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    shutil.copytree(shipped / "site", out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(bundle: Path, verified: bool) -> bytes:
        raise BoardInputError("cannot be read: gone", path=bundle / "attempts.jsonl.gz")

    monkeypatch.setattr("bench.board.transcripts.bundle_data", broken)
    with pytest.raises(BoardInputError):
        build(shipped_options(shipped, out, cache=shipped / "cache"))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging directory left


def test_a_single_run_report_makes_no_viewer_link(tmp_path: Path, board_inputs: Path) -> None:
    """``bench report --format html`` writes the page alone: no row gets a key it cannot use."""
    from bench.board.load import RunLoader
    from bench.records.store import RunStore

    run = RunStore(board_inputs / "runs").runs()[0]
    result = build(
        BuildOptions(
            runs=None, results=None, out=tmp_path / "site", extra_loaders=(RunLoader(run),)
        )
    )
    assert all(e.transcripts is None for c in result.board.cohorts for e in c.entries)
    assert not (tmp_path / "site" / "transcript.html").exists()


def test_strict_still_fails_before_anything_is_written(shipped: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    with pytest.raises(BoardBuildError):
        build(shipped_options(shipped, out, submissions=tmp_path / "none", strict=True,
                              cache=shipped / "cache"))  # fmt: skip
    assert not out.exists()
