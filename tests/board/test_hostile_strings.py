"""Hostile strings in every record of a bundle: ``bench verify`` refuses them with a code, or the
board builds from them without an error (issue 14, point 2).

The bundle is the adversarial suite's ``_base/`` world (tests/fixtures/bundles/README.md). For
each hostile string, a fixed stride of the string fields (and keys) of every record (config,
status, target, each attempt line after gunzip, each cassette line, the manifest) gets it, one
field per case; the changed file is written again (escaped or as literal UTF-8, alternately),
re-gzipped for the attempts, listed with its new hash and size in the manifest and re-signed
with the owner's throw-away key (``regenerate.py``'s helpers). ``config.json``'s target and
``target.json`` change together, as an honest bundle keeps them equal. The names the board
shows (display names, target file) get every hostile string.

* A string holding a character the board cannot show (lone surrogate, non-character, C0/C1
  control, DEL) is ``TEXT_INVALID``, naming the record file (``:line`` for JSON Lines) and,
  when written as an escape, the field.
* Any other string is either refused with some code, or accepted; then
  ``bench.board.build`` (verify on) builds the site, the bundle's row is there and verified,
  and no raw markup from the string reaches ``index.html``.
* One accepted bundle full of hostile display text goes through the real ``bench board
  build`` CLI in a subprocess with an ASCII-only stdout: exit 0, no traceback.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization

from bench.board import BuildOptions, build
from bench.verify import Code, VerifyOptions, verify_bundle

REPO = Path(__file__).resolve().parents[2]
BUNDLES = REPO / "tests" / "fixtures" / "bundles"
BASE = BUNDLES / "_base"
(BASE_BUNDLE,) = (p for p in (BASE / "results").glob("*/*") if p.is_dir())
JSON_DOCS = ("config.json", "status.json", "target.json", "manifest.json")
KEY_STRIDE = 150  # keys are sampled more thinly than values


def _regenerate() -> ModuleType:
    """tests/fixtures/bundles/regenerate.py, for its re-signing helpers."""
    name = "bundles_regenerate"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BUNDLES / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


REGEN = _regenerate()
OWNER = serialization.load_ssh_private_key((BUNDLES / "_keys" / REGEN.ENTRANT).read_bytes(), None)

HOSTILE: dict[str, str] = {
    "lone-high-surrogate": "ok\ud800ok",
    "lone-low-surrogate": "\udc00",
    "nonchar-fdd0": "a\ufdd0",
    "nonchar-fdef": "\ufdefz",
    "nonchar-fffe": "\ufffe",
    "nonchar-ffff": "x\uffff",
    "nonchar-1fffe": "\U0001fffe",
    "nonchar-10ffff": "end\U0010ffff",
    "nul": "a\x00b",
    "c0-escape": "\x1b[31mred\x1b[0m",
    "c0-backspace": "back\x08space",
    "c0-formfeed": "\x0c",
    "del": "x\x7f",
    "c1-nel": "line\x85next",
    "c1-csi": "\x9b31m",
    "rlo": "abc\u202edef.exe",
    "bidi-isolates": "\u2066\u2067\u2068x\u2069",
    "rlm-zwsp-bom": "\u200f\u200b\ufeff",
    "line-separator": "one\u2028two\u2029three",
    "script-close": "</script><script>alert(1)</script>",
    "img-onerror": "<img src=x onerror=alert(1)>",
    "javascript-url": "javascript:alert(1)",
    "attribute-break": "\"'><svg onload=alert(1)>",
    "long": "A" * 10_000,
    "combining": "Z\u0335\u0322\u0354a\u0337l\u0336g\u0335o",
    "emoji": "\U0001f600 \U0001f469\u200d\U0001f469\u200d\U0001f467 "
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "rtl": "\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd",
    "fullwidth-digits": "\uff11\uff12\uff13",
    "csv-formula": '=HYPERLINK("https://evil.example")',
    "escaped-backslash-u": "\\u0000 \\ud800",
}


def forbidden(text: str) -> bool:
    """The reference rule: a character the board cannot show."""
    for ch in text:
        point = ord(ch)
        if (point < 0x20 and ch not in "\t\n\r") or 0x7F <= point <= 0x9F:
            return True
        if 0xD800 <= point <= 0xDFFF or 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE:
            return True
    return False


# -- the fields ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    file: str
    line: int | None  # index of the JSON Lines line
    path: tuple[str | int, ...]
    key: bool = False  # the key at ``path`` is replaced, not its value

    @property
    def label(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line + 1}"
        return f"{where}:{'key ' if self.key else ''}{field_name(self.path)}"


def field_name(path: tuple[str | int, ...]) -> str:
    """The field as the verifier names it: ``a.b[2].c``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _strings(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], bool]]:
    if isinstance(value, str):
        yield path, False
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield (*path, key), True
            yield from _strings(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _strings(inner, (*path, index))


def _records(bundle: Path) -> dict[str, list[Any]]:
    """Every record of the bundle, parsed: one per JSON file, one per line of the others."""
    out: dict[str, list[Any]] = {
        name: [json.loads((bundle / name).read_bytes())] for name in JSON_DOCS
    }
    attempts = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    out["attempts.jsonl.gz"] = [json.loads(line) for line in attempts.splitlines() if line]
    cassette = (bundle / "cassette.jsonl").read_bytes()
    out["cassette.jsonl"] = [json.loads(line) for line in cassette.splitlines() if line]
    return out


BASE_RECORDS = _records(BASE_BUNDLE)
FIELDS = [
    Field(name, None if name in JSON_DOCS else index, path, key)
    for name, values in BASE_RECORDS.items()
    for index, value in enumerate(values)
    for path, key in _strings(value)
]
SHOWN = [  # what the board shows by name: every hostile string goes there
    Field("config.json", None, ("display_name",)),
    Field("config.json", None, ("target", "display_name")),
    Field("config.json", None, ("target_file",)),
]


# Names the verifier holds to the display rules (no format characters, NFC, <= 200 chars).
NAMES = {Field("config.json", None, ("display_name",))}


def fields_for(index: int) -> list[Field]:
    """The shown names, then, shifted by ``index``: every ``len(HOSTILE)``-th value and key
    of the JSON documents and value of the JSON Lines (so each gets one hostile string), and
    every ``KEY_STRIDE``-th key of the JSON Lines (their keys repeat line after line)."""
    dense = [f for f in FIELDS if not f.key or f.file in JSON_DOCS]
    thin = [f for f in FIELDS if f.key and f.file not in JSON_DOCS]
    sampled = [f for n, f in enumerate(dense) if (n + index) % len(HOSTILE) == 0]
    sampled += [f for n, f in enumerate(thin) if (n + index) % KEY_STRIDE == 0]
    return [*SHOWN, *(f for f in sampled if f not in SHOWN)]


def test_the_sample_covers_every_field_and_file() -> None:
    covered = {f for index in range(len(HOSTILE)) for f in fields_for(index)}
    assert covered >= {f for f in FIELDS if not f.key or f.file in JSON_DOCS}
    assert {f.file for f in covered if f.key} == set(BASE_RECORDS)
    assert {f.file for f in FIELDS} == set(BASE_RECORDS)


# -- changing one field, honestly re-signed ----------------------------------------------


def _set(value: Any, field: Field, text: str) -> Any:
    *parents, last = field.path
    holder = value
    for part in parents:
        holder = holder[part]
    if field.key:
        assert isinstance(last, str)
        items = [(text if k == last else k, v) for k, v in holder.items()]
        holder.clear()
        holder.update(items)
    else:
        holder[last] = text
    return value


def _dumps(value: Any, escaped: bool, **options: Any) -> bytes:
    """Escaped (``\\ud800``) or literal UTF-8 (a lone surrogate then is not UTF-8 at all)."""
    return json.dumps(value, ensure_ascii=escaped, **options).encode("utf-8", "surrogatepass")


def _document(value: Any, escaped: bool) -> bytes:
    return _dumps(value, escaped, indent=2, sort_keys=True) + b"\n"


def _lines(values: list[Any], escaped: bool) -> bytes:
    return b"".join(_dumps(v, escaped, separators=(",", ":")) + b"\n" for v in values)


def _sign_manifest(bundle: Path, value: dict[str, Any]) -> None:
    try:
        data = rfc8785.dumps(value)
    except Exception:  # a lone surrogate has no canonical form: sign what an attacker would
        data = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    REGEN._sign_manifest(bundle, data, OWNER)


def mutate(world: Any, field: Field, text: str, escaped: bool) -> None:
    """``field`` of the world's bundle set to ``text``, written again and honestly signed."""
    bundle = world.bundle
    records = _records(bundle)
    if field.file == "manifest.json":
        _sign_manifest(bundle, _set(records["manifest.json"][0], field, text))
        return
    changed = {field.file}
    if field.file in JSON_DOCS:
        _set(records[field.file][0], field, text)
    else:
        assert field.line is not None
        _set(records[field.file][field.line], field, text)
    mirror = None
    if field.file == "target.json":
        mirror = Field("config.json", None, ("target", *field.path), field.key)
    elif field.file == "config.json" and field.path[:1] == ("target",) and len(field.path) > 1:
        mirror = Field("target.json", None, field.path[1:], field.key)
    if mirror is not None:
        _set(records[mirror.file][0], mirror, text)
        changed.add(mirror.file)
    for name in sorted(changed):
        if name in JSON_DOCS:
            data = _document(records[name][0], escaped)
        elif name == "cassette.jsonl":
            data = _lines(records[name], escaped)
        else:
            data = REGEN.deterministic_gzip(_lines(records[name], escaped))
        REGEN._rewrite(world, name, data)


# -- the worlds ---------------------------------------------------------------------------


@dataclass
class World:
    """A copy of ``_base/`` whose bundle directory ``reset`` puts back as it was."""

    root: Path

    def __post_init__(self) -> None:
        shutil.copytree(BASE, self.root)
        self.world = REGEN.World(self.root, {REGEN.ENTRANT: OWNER}, None, None)
        self.options = VerifyOptions(
            results_root=self.root / "results",
            allowed_signers=self.world.signers,
            tasks=self.root / "mini" / "tasks",
            replay_sample=3,
            seed=7,
        )

    def reset(self) -> Any:
        shutil.rmtree(self.world.bundle)
        shutil.copytree(BASE_BUNDLE, self.world.bundle)
        return self.world


def board_options(world: Any, out: Path) -> BuildOptions:
    return BuildOptions(
        runs=None,
        results=world.root / "results",
        out=out,
        templates=REPO / "site_templates",
        methodology=REPO / "docs" / "METHODOLOGY.md",
        submissions=None,
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
        resamples=20,
        frontier_resamples=20,
    )


def assert_board_builds(world: Any, text: str, out: Path) -> None:
    result = build(board_options(world, out))
    rows = [row for cohort in result.board.cohorts for row in cohort.entries]
    assert [(row.run_id, row.verified) for row in rows] == [(REGEN.RUN_ID, True)]
    html = result.index.read_text(encoding="utf-8")
    if "<" in text:
        assert text not in html, "raw markup from a bundle reached the page"
    json.loads(result.board_json.read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(len(HOSTILE)), ids=list(HOSTILE))
def test_hostile_string_in_every_record(index: int, tmp_path: Path) -> None:
    name, text = list(HOSTILE.items())[index]
    bad = forbidden(text)
    here = World(tmp_path / "world")
    accepted: list[tuple[Field, bool]] = []
    for number, field in enumerate(fields_for(index)):
        escaped = (number + index) % 2 == 0
        world = here.reset()
        mutate(world, field, text, escaped)
        verdict = verify_bundle(world.bundle, here.options)
        if verdict.valid:
            assert not bad, f"{field.label}: {name} was accepted"
            accepted.append((field, escaped))
            continue
        assert verdict.code is not None, field.label
        if not bad and field not in NAMES:  # no false alarm of the text check
            assert verdict.code is not Code.TEXT_INVALID, f"{field.label}: {verdict}"
        if bad and field.file != "manifest.json":
            assert verdict.code is Code.TEXT_INVALID, f"{field.label}: {verdict}"
            where = "config.json" if field.file == "target.json" else field.file
            suffix = "" if field.line is None else f":{field.line + 1}"
            assert verdict.path == str(world.bundle / where) + suffix, field.label
            if escaped and not field.key:
                prefix = ("target",) if field.file == "target.json" else ()
                assert verdict.field == field_name((*prefix, *field.path)), field.label
    if bad:
        return
    assert accepted, f"{name}: no field accepted it; nothing reached the board"
    # The board, from one bundle holding every accepted change at once (one build per string;
    # each change on its own when together they do not verify).
    world = here.reset()
    for field, escaped in accepted:
        mutate(world, field, text, escaped)
    groups = [accepted] if verify_bundle(world.bundle, here.options).valid else []
    groups = groups or [[one] for one in accepted]
    for group in groups:
        world = here.reset()
        for field, escaped in group:
            mutate(world, field, text, escaped)
        labels = ", ".join(field.label for field, _ in group)
        try:
            assert_board_builds(world, text, tmp_path / "site")
        except Exception as exc:  # name the fields that broke the board
            raise AssertionError(f"{labels}: {name}: the board failed: {exc!r}") from exc


def test_text_invalid_names_record_line_and_field(tmp_path: Path) -> None:
    """One escaped lone surrogate deep in the last attempt line: the file, its line and the
    path to the string are in the verdict."""
    here = World(tmp_path / "world")
    world, options = here.reset(), here.options
    last = len(BASE_RECORDS["attempts.jsonl.gz"]) - 1
    field = Field("attempts.jsonl.gz", last, ("trace", "messages", 0, "content"))
    mutate(world, field, "\ud83d", escaped=True)
    verdict = verify_bundle(world.bundle, options)
    assert verdict.code is Code.TEXT_INVALID
    assert verdict.path == f"{world.bundle / 'attempts.jsonl.gz'}:{last + 1}"
    assert verdict.field == "trace.messages[0].content"
    assert "lone surrogate U+D83D" in verdict.message


def test_the_manifest_text_is_checked_too(tmp_path: Path) -> None:
    """A C1 control in the manifest's harness_version (its paths keep their own code: a NUL
    there is PATH_UNSAFE): refused as TEXT_INVALID, naming manifest.json and the field."""
    here = World(tmp_path / "world")
    world, options = here.reset(), here.options
    mutate(world, Field("manifest.json", None, ("harness_version",)), "0.1.0\x85", escaped=True)
    verdict = verify_bundle(world.bundle, options)
    assert verdict.code is Code.TEXT_INVALID
    assert verdict.path == str(world.bundle / "manifest.json")
    assert verdict.field == "harness_version"


def test_cli_builds_a_board_of_hostile_display_text(tmp_path: Path) -> None:
    """The real ``bench board build``, stdout and stderr ASCII only: exit 0, no traceback."""
    here = World(tmp_path / "world")
    world, options = here.reset(), here.options
    name = (
        "</script><img src=x onerror=alert(1)> \u202a\u0645\u0631\u062d\u0628\u0627 "
        "\uff11 \U0001f600"
    )
    # A display name may hold no embedding control (TEXT_INVALID) and no second script beside
    # Latin but Han, kana or Hangul (NAME_LOOKALIKE): the Arabic stays in the target's copy.
    shown = "</script><img src=x onerror=alert(1)> \u4f60\u597d \uff11 \U0001f600"
    mutate(world, Field("config.json", None, ("display_name",)), shown, escaped=False)
    mutate(world, Field("target.json", None, ("display_name",)), name, escaped=True)
    assert verify_bundle(world.bundle, options).valid
    out = tmp_path / "site"
    (tmp_path / "no-runs").mkdir()
    (tmp_path / "no-submissions").mkdir()
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("bench")),
            "board", "build",
            "--runs", str(tmp_path / "no-runs"),
            "--results", str(world.root / "results"),
            "--out", str(out),
            "--templates", str(REPO / "site_templates"),
            "--methodology", str(REPO / "docs" / "METHODOLOGY.md"),
            "--submissions", str(tmp_path / "no-submissions"),
            "--allowed-signers", str(world.signers),
            "--tasks", str(world.root / "mini" / "tasks"),
            "--resamples", "20",
        ],
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )  # fmt: skip
    stderr = done.stderr.decode("ascii", "replace")
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "<img src=x" not in html and "</script><img" not in html
    board = json.loads((out / "board.json").read_text(encoding="utf-8"))
    (row,) = [row for cohort in board["cohorts"] for row in cohort["entries"]]
    assert row["display_name"] == shown and row["verified"] is True
