"""An attempt's ``exceeded`` (the budgets it ran out of) is bound to its recording
(``bench.verify.binding``): the transcript page prints it as "budgets run out" beside the
reason. Before, verify never read it: any attempt could carry any text there, re-signed by the
bundle's own key, and still verify.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fixture_bundles import REGEN

from bench.core.budget import Budget
from bench.records import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.keys import write_private_key
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
ENTRANT = "mini-good"
Records = list[dict[str, Any]]


@pytest.fixture(scope="module")
def over_budget(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ed25519PrivateKey]:
    """A real run of the good entrant with a task budget of one tool call: tool-0001 (two
    calls) runs out of it, the rest are scored. Bundled and signed; (root, key)."""
    root = tmp_path_factory.mktemp("budgets")
    shutil.copytree(MINI, root / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    key = Ed25519PrivateKey.generate()
    (root / "submissions").mkdir()
    signers = root / "submissions" / "allowed_signers"
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    write_private_key(root / "key", key)
    run, _ = start_run(
        RunRequest(
            tasks=root / "mini" / "tasks",
            target_file=root / "mini" / "targets" / "good.yaml",
            runs_dir=root / "runs",
            split="public",
            concurrency=1,
            task_budget=Budget(tool_calls=1),
        )
    )
    build_bundle(
        RunDir(run.path),
        entrant=ENTRANT,
        key_file=root / "key",
        out_root=root / "results",
        allowed_signers=signers,
    )
    return root, key


@pytest.fixture
def world(over_budget: tuple[Path, Ed25519PrivateKey], tmp_path: Path) -> tuple[Path, Any]:
    root, key = over_budget
    copy = tmp_path / "w"
    for part in ("results", "submissions", "mini"):
        shutil.copytree(root / part, copy / part)
    return copy, key


def _bundle(root: Path) -> Path:
    [bundle] = (root / "results" / ENTRANT).iterdir()
    return bundle


def _verify(root: Path) -> BundleVerdict:
    return verify_bundle(
        _bundle(root),
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=root / "mini" / "tasks",
            replay_sample=3,
            seed=7,
        ),
    )


def _forge(root: Path, key: Any, edit: Callable[[Records], None]) -> None:
    bundle = _bundle(root)
    records = REGEN._attempts(bundle)
    edit(records)
    data = REGEN._attempts_bytes(records)
    (bundle / "attempts.jsonl.gz").write_bytes(data)
    manifest = REGEN._read_manifest(bundle)
    for entry in manifest["files"]:
        if entry["path"] == "attempts.jsonl.gz":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    REGEN._relist(bundle, manifest, key)


def _code(verdict: BundleVerdict) -> str:
    return verdict.code.value if verdict.code else "valid"


def _outcomes(root: Path) -> dict[str, tuple[str, list[str]]]:
    return {r["task_id"]: (r["outcome"], r["exceeded"]) for r in REGEN._attempts(_bundle(root))}


def test_the_run_is_over_budget_where_its_budget_says_and_verifies(world: Any) -> None:
    root, _ = world
    outcomes = _outcomes(root)
    assert outcomes["tool-0001"] == ("over_budget", ["tool_calls"])
    assert outcomes["qa-0001"] == ("scored", [])
    assert _code(_verify(root)) == "valid", _verify(root).message


def _set_exceeded(task_id: str, exceeded: list[str]) -> Callable[[Records], None]:
    def edit(records: Records) -> None:
        [record] = [r for r in records if r["task_id"] == task_id]
        record["exceeded"] = exceeded

    return edit


@pytest.mark.parametrize(
    ("task_id", "exceeded"),
    [
        ("qa-0001", ["nothing: the harness's clock was wrong (https://example.com)"]),
        ("tool-0001", ["tokens"]),
        ("tool-0001", ["tool_calls", "seconds"]),
        ("tool-0001", []),
    ],
    ids=["scored-with-text", "another-budget", "one-more", "none"],
)
def test_budgets_run_out_that_the_recording_does_not_give_are_refused(
    world: Any, task_id: str, exceeded: list[str]
) -> None:
    root, key = world
    _forge(root, key, _set_exceeded(task_id, exceeded))
    verdict = _verify(root)
    assert (_code(verdict), verdict.field) == ("REPLAY_MISMATCH", f"{task_id}#0.exceeded")
    assert verdict.path is not None and verdict.path.endswith("attempts.jsonl.gz")


def test_the_forge_itself_changes_no_verdict(world: Any) -> None:
    root, key = world
    _forge(root, key, lambda records: None)
    assert _code(_verify(root)) == "valid"


def test_errored_attempts_relabelled_over_budget_are_refused(tmp_path: Path) -> None:
    """An entrant that errored on every attempt (ERROR_RATE_HIGH: nothing of it measured)
    relabels each attempt over budget, keeping its reason: a failure ERROR_RATE_HIGH does not
    count. Before: valid. The recording runs out of no budget, so the label is refused."""
    root = tmp_path / "world"
    shutil.copytree(BUNDLES / "_base", root)
    crashes = BUNDLES / "error_rate_fail" / "results" / "mini-crashes"
    shutil.copytree(crashes, root / "results" / "mini-crashes")
    [bundle] = (root / "results" / "mini-crashes").iterdir()
    options = VerifyOptions(
        results_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
        tasks=root / "mini" / "tasks",
        replay_sample=3,
        seed=7,
    )
    assert _code(verify_bundle(bundle, options)) == "ERROR_RATE_HIGH"
    key = serialization.load_ssh_private_key(
        (BUNDLES / "_keys" / "mini-crashes").read_bytes(), None
    )
    records = REGEN._attempts(bundle)
    assert {r["outcome"] for r in records} == {"errored"}
    for record in records:
        record["outcome"] = "over_budget"
    data = REGEN._attempts_bytes(records)
    (bundle / "attempts.jsonl.gz").write_bytes(data)
    manifest = REGEN._read_manifest(bundle)
    for entry in manifest["files"]:
        if entry["path"] == "attempts.jsonl.gz":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    REGEN._relist(bundle, manifest, key)
    verdict = verify_bundle(bundle, options)
    assert (_code(verdict), verdict.field) == ("REPLAY_MISMATCH", f"{records[0]['task_id']}#0")
    assert "runs out of no budget" in verdict.message
