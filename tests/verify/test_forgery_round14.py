"""The forger and the griever, fourteenth round: readers that disagree, and other entrants' rows.

- **The transcript page read fewer attempts than verify.** The viewer (``transcript.js``,
  ``recordsOf``) picks a task's lines by the text ``JSON.stringify(task_id)`` before it parses
  any, so a line whose ``task_id`` was written with an escape (``"\\u0071a-0001"``, the very
  same string to Python, to ``JSON.parse`` and to verify) was never shown: a submitter chose
  which repeats of a failed task a reader could open, while verify and the board counted them
  all. Now every attempt's line holds its task id written literally (``RECORD_INVALID``).
- **A bundle given another's run id knocked that bundle out too.** ``RUN_ID_REUSED`` refused
  every bundle with a twin anywhere under ``results/``, whichever came first, so a later bundle
  named after an honest one's run id (its directory's name, public in its pull request) made
  the honest one fail, and each refusal named the other. Now only a twin that came first (or
  that the order cannot tell apart) refuses a bundle, in provenance's order (landing on the
  branch, then ``created_at``); the board cache's key holds the twin's place in that order.

The committed base bundle (tests/fixtures/bundles/_base), forged and re-signed with its
owners' keys; git for the landing order."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from fixture_bundles import BUNDLES, REGEN, base_world

from bench.verify import BundleVerdict, VerifyOptions, verify_bundle
from bench.verify.dependencies import VerdictInputs


def _options(world: Any) -> VerifyOptions:
    return VerifyOptions(
        results_root=world.root / "results",
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
    )


def _lines(bundle: Path) -> list[bytes]:
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [line for line in raw.split(b"\n") if line.strip()]


def _escape_first(line: bytes, field: str) -> bytes:
    """``line`` with the first character of ``field``'s string value written as a \\u escape."""
    value = json.loads(line)[field]
    plain = f'"{field}":{json.dumps(value)}'.encode()
    escaped = f'"{field}":"\\u{ord(value[0]):04x}{value[1:]}"'.encode()
    assert plain in line
    return line.replace(plain, escaped, 1)


def _forge_attempts(world: Any, edit: int, field: str) -> None:
    lines = _lines(world.bundle)
    lines[edit] = _escape_first(lines[edit], field)
    assert json.loads(lines[edit]) == json.loads(_lines(world.bundle)[edit])  # same record
    REGEN._rewrite(world, "attempts.jsonl.gz", gzip.compress(b"\n".join(lines) + b"\n", mtime=0))


def test_an_escaped_task_id_the_transcript_page_would_not_find_is_refused(tmp_path: Path) -> None:
    world = base_world(tmp_path)
    assert verify_bundle(world.bundle, _options(world)).valid
    _forge_attempts(world, 1, "task_id")
    verdict = verify_bundle(world.bundle, _options(world))
    assert verdict.code == "RECORD_INVALID", verdict
    assert verdict.field == "task_id"
    assert verdict.path is not None and verdict.path.endswith("attempts.jsonl.gz:2")
    assert "transcript page" in verdict.message


def test_an_escape_anywhere_else_still_verifies(tmp_path: Path) -> None:
    """Only the text the viewer searches by must be literal: the same record written with
    another escape (its family's first letter) is the record verify and the page read alike."""
    world = base_world(tmp_path)
    _forge_attempts(world, 0, "family")
    verdict = verify_bundle(world.bundle, _options(world))
    assert verdict.valid, verdict


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _twin_world(tmp_path: Path) -> tuple[Any, Path]:
    """The base world with bob's bundle under mini-good's run id (signed by bob), and git."""
    world = base_world(tmp_path)
    bob = serialization.load_ssh_private_key((BUNDLES / "_keys" / "bob").read_bytes(), None)
    world = REGEN.World(world.root, {**world.keys, "bob": bob}, None, None)
    REGEN._reused_run_id(world)
    _git(world.root, "init", "-q", "-b", "main")
    return world, world.root / "results" / "bob" / world.bundle.name


def _land(root: Path, bundle: Path, message: str) -> None:
    _git(root, "add", str(bundle.relative_to(root)))
    _git(root, "commit", "-q", "-m", message)


def _refused_by(verdict: BundleVerdict, twin: str) -> None:
    assert verdict.code == "RUN_ID_REUSED", verdict
    assert twin in verdict.message, verdict.message


def test_a_later_bundle_with_an_honest_bundles_run_id_leaves_the_honest_one_valid(
    tmp_path: Path,
) -> None:
    """mini-good landed first; bob's bundle named after its run id lands later. Only bob's is
    refused (it used to refuse mini-good's too, naming bob's)."""
    world, twin = _twin_world(tmp_path)
    _land(world.root, world.bundle, "mini-good lands")
    _land(world.root, twin, "bob lands")
    options = _options(world)
    assert verify_bundle(world.bundle, options).valid
    _refused_by(verify_bundle(twin, options), "mini-good/")


def test_the_order_decides_not_the_entrant(tmp_path: Path) -> None:
    """The other way round (bob's landed first), mini-good's is the one refused; and of two
    that nothing tells apart (neither committed, one created_at) both are, as before."""
    world, twin = _twin_world(tmp_path)
    options = _options(world)
    _refused_by(verify_bundle(world.bundle, options), "bob/")
    _refused_by(verify_bundle(twin, options), "mini-good/")
    _land(world.root, twin, "bob lands")
    _land(world.root, world.bundle, "mini-good lands")
    # bob's copy still says mini-good inside (RECORD_INCONSISTENT): past the run id, here
    assert verify_bundle(twin, options).code == "RECORD_INCONSISTENT"
    _refused_by(verify_bundle(world.bundle, options), "bob/")


def test_the_cache_key_holds_the_twins_place_in_the_order(tmp_path: Path) -> None:
    """A board cache keeps valid verdicts only; the earlier twin's is valid because the other
    came later, so the key changes when the other's place does."""
    world, twin = _twin_world(tmp_path)
    _land(world.root, world.bundle, "mini-good lands")
    options = _options(world)
    before = VerdictInputs(world.root / "results").key(world.bundle, options)
    _land(world.root, twin, "bob lands")
    after = VerdictInputs(world.root / "results").key(world.bundle, options)
    assert before is not None and after is not None
    assert before != after
    shutil.rmtree(twin.parent)
    alone = VerdictInputs(world.root / "results").key(world.bundle, options)
    assert alone not in (before, after)
