"""The adversarial suite of the verifier (every known forgery a case), driven by the case
directories in tests/fixtures/bundles/ (README.md there; regenerate.py rebuilds them).

Each case's world is a copy of ``_base/`` (the valid bundle, allowed_signers, the task set) with
the case directory laid over it, its ``recipe.json`` applied and a ``site/`` added; the verdict
must carry the code in ``EXPECT`` and its exit code, and nothing under ``results/``,
``submissions/`` or ``site/`` may change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.verify import UNUSABLE, BundleVerdict, Code, VerifyOptions, codes, verify_bundle

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
BASE = BUNDLES / "_base"
REGENERATE = ".venv/bin/python tests/fixtures/bundles/regenerate.py"
STALE = (
    "the fixture bundles in tests/fixtures/bundles/ no longer verify with today's code; if the "
    f"change is intended, rebuild them with `{REGENERATE}` and review the diff"
)
CONTROL = {"WHY", "EXPECT", "options.json", "recipe.json"}
PATH_OPTIONS = {"bundle", "results_root", "allowed_signers", "tasks"}
OTHER_OPTIONS = {"repository"}
WATCHED = ("results", "submissions", "site")
CASES = sorted(
    p.name for p in BUNDLES.iterdir() if p.is_dir() and p.name.endswith(("_pass", "_fail"))
)
(BASE_BUNDLE,) = (p for p in (BASE / "results").glob("*/*") if p.is_dir())


def _line(case: str, name: str) -> str:
    return (BUNDLES / case / name).read_text(encoding="utf-8").strip()


def _apply(root: Path, step: dict[str, Any]) -> None:
    """One recipe step; paths are relative to the world."""
    path = root / step["path"]
    match step["op"]:
        case "remove":
            path.unlink()
        case "write" if "text" in step:
            path.write_text(step["text"], encoding="utf-8")
        case "write":
            path.write_bytes(step["fill"].encode() * step["size"])
        case "move":
            (root / step["to"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, root / step["to"])
        case "symlink":
            path.symlink_to((root / step["to"]).resolve())
        case op:
            raise AssertionError(f"unknown recipe op {op!r}")


def build_world(root: Path, case: str | None = None) -> tuple[Path, VerifyOptions]:
    """``_base/`` + the case under ``root``; returns the bundle to verify and the options."""
    shutil.copytree(BASE, root)
    options: dict[str, Any] = {}
    if case is not None:
        source = BUNDLES / case
        for entry in sorted(source.iterdir()):
            if entry.name in CONTROL:
                continue
            if entry.is_dir():
                shutil.copytree(entry, root / entry.name, dirs_exist_ok=True)
            else:
                shutil.copy2(entry, root / entry.name)
        if (source / "recipe.json").is_file():
            for step in json.loads((source / "recipe.json").read_text(encoding="utf-8")):
                _apply(root, step)
        if (source / "options.json").is_file():
            options = json.loads((source / "options.json").read_text(encoding="utf-8"))
            assert set(options) <= PATH_OPTIONS | OTHER_OPTIONS, options
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<!doctype html><title>board</title>\n")
    paths: dict[str, str | Path] = {
        "bundle": BASE_BUNDLE.relative_to(BASE),
        "results_root": "results",
        "allowed_signers": "submissions/allowed_signers",
        "tasks": "mini/tasks",
    }
    paths.update({k: v for k, v in options.items() if k in PATH_OPTIONS})
    bundle = root / paths.pop("bundle")
    values: dict[str, Any] = {k: root / v for k, v in paths.items()}
    values.update({k: v for k, v in options.items() if k in OTHER_OPTIONS})
    return bundle, VerifyOptions(**values, replay_sample=10, seed=7)


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for top in WATCHED:
        for path in sorted((root / top).rglob("*")):
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"L" + str(path.readlink()).encode())
            elif path.is_file():
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _describe(verdict: BundleVerdict) -> str:
    code = verdict.code.value if verdict.code else "valid"
    return f"{code}: {verdict.path}: {verdict.field}: {verdict.message}"


@pytest.mark.parametrize("case", CASES)
def test_adversarial_case(case: str, tmp_path: Path) -> None:
    bundle, options = build_world(tmp_path / "world", case)
    before = tree_hash(tmp_path / "world")
    verdict = verify_bundle(bundle, options)
    assert tree_hash(tmp_path / "world") == before, "the verifier changed the world"
    expected = _line(case, "EXPECT")
    got = verdict.code.value if verdict.code else "valid"
    assert got == expected, f"{_describe(verdict)}\n({_line(case, 'WHY')})\nif stale: {STALE}"
    unusable = {code.value for code in UNUSABLE}
    assert verdict.exit_code == (0 if got == "valid" else 2 if got in unusable else 1)


def test_every_case_says_why_and_what_to_expect() -> None:
    allowed = {code.value for code in Code} | {"valid"}
    for case in CASES:
        why = (BUNDLES / case / "WHY").read_text(encoding="utf-8")
        assert why.strip() and why.count("\n") == 1 and why.endswith("\n"), case
        expect = _line(case, "EXPECT")
        assert expect in allowed, (case, expect)
        assert case.endswith("_pass") == (expect == "valid"), case
        if (BUNDLES / case / "recipe.json").is_file():
            assert "recipe.json" in why, f"{case}: its WHY must say why it needs a recipe"


def test_nothing_else_lives_beside_the_cases() -> None:
    """A directory without the _pass/_fail suffix would silently not run."""
    others = {p.name for p in BUNDLES.iterdir()} - set(CASES) - {"__pycache__"}
    assert others == {"_base", "_keys", "README.md", "regenerate.py"}


def test_every_code_has_a_failing_case() -> None:
    live: frozenset[Code] = getattr(codes, "LIVE_CODES", frozenset())
    covered = {_line(case, "EXPECT") for case in CASES if case.endswith("_fail")}
    missing = {code.value for code in Code if code not in live} - covered
    assert not missing, f"no *_fail case expects {sorted(missing)}; add one to {REGENERATE}"


def test_fixtures_are_current(tmp_path: Path) -> None:
    """The base bundle verifies with every check, every attempt replayed."""
    bundle, options = build_world(tmp_path / "world")
    verdict = verify_bundle(bundle, options)
    assert verdict.valid, f"{STALE}\n{_describe(verdict)}"
    assert len(verdict.replayed) == 3 and verdict.checks[-1] == "error rate", STALE


def test_a_valid_bundle_replays_a_seeded_sample(tmp_path: Path) -> None:
    bundle, options = build_world(tmp_path / "world")
    sample = dataclasses.replace(options, replay_sample=2, seed=3)
    verdict = verify_bundle(bundle, sample)
    assert verdict.valid and verdict.exit_code == 0, f"{STALE}\n{_describe(verdict)}"
    assert len(verdict.replayed) == 2
    assert verdict.checks[-1] == "error rate" and "provenance" in verdict.checks
    assert verify_bundle(bundle, sample).replayed == verdict.replayed


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_flipping_any_byte_of_any_file_is_rejected(data: st.DataObject) -> None:
    names = sorted(p.name for p in BASE_BUNDLE.iterdir())
    name = data.draw(st.sampled_from(names), label="file")
    size = (BASE_BUNDLE / name).stat().st_size
    offset = data.draw(st.integers(0, size - 1), label="offset")
    mask = data.draw(st.integers(1, 255), label="xor")
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results"
        bundle = results / BASE_BUNDLE.relative_to(BASE / "results")
        shutil.copytree(BASE_BUNDLE, bundle)
        raw = bytearray((bundle / name).read_bytes())
        raw[offset] ^= mask
        (bundle / name).write_bytes(bytes(raw))
        verdict = verify_bundle(
            bundle,
            VerifyOptions(
                results_root=results,
                allowed_signers=BASE / "submissions" / "allowed_signers",
                tasks=BASE / "mini" / "tasks",
                replay_sample=0,
            ),
        )
    assert not verdict.valid, (name, offset, mask)


@pytest.mark.parametrize("case", CASES)
def test_a_warm_task_cache_changes_no_verdict(case: str, tmp_path: Path) -> None:
    """A board shares one TaskCache among all its bundles: warmed by a valid bundle verified
    against the very same task set directory first, it gives every case the verdict it gets
    alone, word for word."""
    from dataclasses import replace

    from bench.verify.taskcache import TaskCache

    bundle, options = build_world(tmp_path / "world", case)
    alone = verify_bundle(bundle, options)
    pristine = tmp_path / "pristine" / "results" / BASE_BUNDLE.relative_to(BASE / "results")
    shutil.copytree(BASE_BUNDLE, pristine)
    cache = TaskCache()
    warm = replace(options, results_root=tmp_path / "pristine" / "results", task_cache=cache)
    verify_bundle(pristine, warm)  # valid unless the case broke the signers or the task set
    shared = verify_bundle(bundle, replace(options, task_cache=cache))
    assert _describe(shared) == _describe(alone)
    assert (shared.checks, shared.replayed, shared.suite) == (
        alone.checks,
        alone.replayed,
        alone.suite,
    )
