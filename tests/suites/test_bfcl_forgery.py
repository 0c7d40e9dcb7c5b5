"""A forger against imported suites (BFCL) and the replayed sample.

Every case makes a bundle the way a forger would: a run directory edited to claim something
else, then bundled and signed with the entrant's own registered key (``build_bundle``), so the
signature, the file hashes and the config fingerprint are all consistent and only what verify
re-derives can refuse it. The world is ``test_suite_identity``'s: BFCL's live_parallel and
live_relevance categories run by an oracle entrant, the mini task set run by its ``good``
entrant.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.records.run import RunConfig
from bench.records.store import RunDir
from bench.signing.bundle import build_bundle
from bench.verify import Code, VerifyOptions, verify_bundle
from bench.verify.records import load_run
from bench.verify.scores import RESCORED

from . import test_suite_identity as identity
from .test_suite_identity import Suites

suites = identity.suites  # the world of test_suite_identity, built once for this module too

Edit = Callable[[dict[str, Any]], None]


def _forge(
    suites: Suites,
    where: Path,
    *,
    config: Edit | None = None,
    attempt: Callable[[dict[str, Any]], None] | None = None,
    run: RunDir | None = None,
    entrant: str = "bfcl-oracle",
    prepare: Callable[[Path], None] | None = None,
) -> Path:
    """A copy of the BFCL run with ``config`` (and each attempt) edited, its fingerprints made
    consistent again, bundled and signed with the entrant's own key under ``where``."""
    source = run or suites.bfcl_run
    copy = where / "runs" / source.run_id
    shutil.copytree(source.path, copy)
    if prepare is not None:
        prepare(copy)
    raw = json.loads((copy / "config.json").read_text(encoding="utf-8"))
    if config is not None:
        config(raw)
    fingerprint = RunConfig.model_validate(raw).fingerprint()
    (copy / "config.json").write_text(json.dumps(raw, indent=2, sort_keys=True) + "\n")
    status = json.loads((copy / "status.json").read_text(encoding="utf-8"))
    if "config_fingerprint" in status:
        status["config_fingerprint"] = fingerprint
    (copy / "status.json").write_text(json.dumps(status, indent=2, sort_keys=True) + "\n")
    for path in sorted((copy / "attempts").iterdir()):
        record = json.loads(path.read_text(encoding="utf-8"))
        record["config_fingerprint"], record["run_id"] = fingerprint, raw["run_id"]
        if attempt is not None:
            attempt(record)
        path.write_text(json.dumps(record))
    results = where / "results"
    shutil.copytree(suites.root / "results", results)
    shutil.rmtree(results / entrant / source.run_id, ignore_errors=True)
    return build_bundle(
        RunDir(copy),
        entrant=entrant,
        key_file=suites.root / "keys" / entrant,
        out_root=results,
        allowed_signers=suites.signers,
    )


def _verify(suites: Suites, bundle: Path, tasks: Path, seed: int = 1) -> Any:
    return verify_bundle(
        bundle,
        VerifyOptions(
            results_root=bundle.parent.parent,
            allowed_signers=suites.signers,
            tasks=tasks,
            seed=seed,
        ),
    )


def _suite(name: str, version: str | None) -> Edit:
    def edit(raw: dict[str, Any]) -> None:
        raw["task_set"]["suite"] = {"name": name, "version": version}

    return edit


@pytest.mark.parametrize(
    ("name", "version", "tasks", "code"),
    [
        ("bfcl-v4", "2026.9.1", "bfcl", Code.SUITE_MISMATCH),
        ("bfcl-v4", None, "bfcl", Code.SUITE_MISMATCH),
        ("bfcl-v5", "2026.3.23", "bfcl", Code.SUITE_MISMATCH),
        ("bench-suite", None, "mini", Code.TASK_SET_MISMATCH),
        ("bench-suite", None, "bfcl", Code.SUITE_MISMATCH),
    ],
)
def test_a_bfcl_run_claiming_another_suite_is_refused(
    suites: Suites, tmp_path: Path, name: str, version: str | None, tasks: str, code: str
) -> None:
    bundle = _forge(suites, tmp_path, config=_suite(name, version))
    given = suites.bfcl_tasks if tasks == "bfcl" else suites.mini_tasks
    verdict = _verify(suites, bundle, given)
    assert verdict.code == code, (verdict.code, verdict.message)


def test_attempts_of_another_suites_task_in_a_bfcl_bundle_are_refused(
    suites: Suites, tmp_path: Path
) -> None:
    mini = sorted((suites.mini_run.path / "attempts").iterdir())[0]
    stray = json.loads(mini.read_text(encoding="utf-8"))

    def config(raw: dict[str, Any]) -> None:
        raw["task_set"]["task_ids"].append(stray["task_id"])

    def prepare(copy: Path) -> None:
        shutil.copy(mini, copy / "attempts" / mini.name)
        lines = (suites.mini_run.path / "cassette.jsonl").read_text(encoding="utf-8")
        ours = [line for line in lines.splitlines() if f'"task_id":"{stray["task_id"]}"' in line]
        with (copy / "cassette.jsonl").open("a", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in ours))
        status = json.loads((copy / "status.json").read_text(encoding="utf-8"))
        status["attempts_total"] += 1
        status["attempts_done"] += 1
        (copy / "status.json").write_text(json.dumps(status))

    bundle = _forge(suites, tmp_path, config=config, prepare=prepare)
    verdict = _verify(suites, bundle, suites.bfcl_tasks)
    assert verdict.code == Code.TASK_SET_MISMATCH, (verdict.code, verdict.message)


def test_a_flipped_calls_verdict_is_refused(suites: Suites, tmp_path: Path) -> None:
    flipped: list[str] = []

    def flip(record: dict[str, Any]) -> None:
        if not flipped and record.get("passed") is True:
            record["passed"], record["value"] = False, 0.0
            flipped.append(record["task_id"])

    bundle = _forge(suites, tmp_path, attempt=flip)
    verdict = _verify(suites, bundle, suites.bfcl_tasks)
    assert verdict.code == Code.SCORE_MISMATCH, (verdict.code, verdict.message)


def _sampled(bundle: Path, seed: int) -> set[str]:
    run = load_run(bundle)
    eligible = [r for r in run.attempts if r.outcome in RESCORED]
    return {f"{r.task_id}#{r.repeat}" for r in random.Random(seed).sample(eligible, 3)}


def test_an_unsampled_attempt_out_of_step_with_the_cassette_is_refused(
    suites: Suites, tmp_path: Path
) -> None:
    """The replay samples 3 attempts; every other one is still bound to its recording."""
    sampled = _sampled(suites.bfcl_bundle, 1)
    changed: list[str] = []

    def edit(record: dict[str, Any]) -> None:
        key = f"{record['task_id']}#{record['repeat']}"
        calls = record["trace"]["tool_calls"]
        if changed or key in sampled or not calls:
            return
        calls[0]["arguments"] = {**calls[0]["arguments"], "forged": 1}
        changed.append(key)

    bundle = _forge(suites, tmp_path, attempt=edit)
    assert changed and changed[0] not in _sampled(bundle, 1)
    verdict = _verify(suites, bundle, suites.bfcl_tasks)
    assert (verdict.code, verdict.field) == (Code.REPLAY_MISMATCH, changed[0]), verdict.message
    # With the edit undone the same seed replays its sample and the bundle verifies: the
    # refusal above came from the re-drive of every attempt, not from the sample.
    clean = _verify(suites, suites.bfcl_bundle, suites.bfcl_tasks)
    assert clean.valid and set(clean.replayed) == sampled


def test_a_subset_run_verifies_and_the_board_keeps_it_apart(suites: Suites, tmp_path: Path) -> None:
    from bench.board import BuildOptions, build
    from bench.runner import RunRequest, start_run

    ids = suites.bfcl_run.config().task_set.task_ids[:3]
    run, status = start_run(
        RunRequest(
            tasks=suites.bfcl_tasks,
            target_file=suites.root / "oracle" / "target.yaml",
            runs_dir=tmp_path / "runs",
            split="public",
            task_ids=tuple(ids),
        )
    )
    assert status.status == "complete"
    results = tmp_path / "results"
    shutil.copytree(suites.root / "results", results)
    bundle = build_bundle(
        run,
        entrant="bfcl-oracle",
        key_file=suites.root / "keys" / "bfcl-oracle",
        out_root=results,
        allowed_signers=suites.signers,
    )
    verdict = _verify(suites, bundle, suites.bfcl_tasks)
    assert verdict.valid, (verdict.code, verdict.message)
    site = tmp_path / "site"
    build(
        BuildOptions(
            runs=None,
            results=results,
            out=site,
            submissions=None,
            strict=True,
            resamples=200,
            frontier_resamples=100,
            allowed_signers=suites.signers,
            tasks=suites.mini_tasks,
            suite_tasks=(suites.bfcl_tasks,),
        )
    )
    board = json.loads((site / "suite-bfcl-v4.json").read_text(encoding="utf-8"))
    # Two cohorts: the whole run, and the subset in its own, said as "3 of 32 public tasks".
    cohorts = {c["subset"]: [e["run_id"] for e in c["entries"]] for c in board["cohorts"]}
    assert cohorts == {
        None: [suites.bfcl_run.run_id],
        "subset: 3 of 32 public tasks": [run.run_id],
    }
    page = (site / "suite-bfcl-v4.html").read_text(encoding="utf-8")
    assert "Subset: 3 of 32 public tasks: these runs left out tasks of the" in page


@pytest.mark.parametrize("what", ["doc", "answer"])
def test_a_task_with_another_function_doc_or_answer_is_refused(
    suites: Suites, tmp_path: Path, what: str
) -> None:
    """The forger's own import, one task's function doc (or possible answer) edited, run,
    then claimed as the pinned task set: hash and every task fingerprint the pinned ones."""
    from bench.runner import RunRequest, start_run
    from bench.tasks.load import load_task_set

    forged = tmp_path / "forged"
    shutil.copytree(suites.root / "bfcl", forged)
    path = forged / "tasks" / "bfcl-live-parallel.json"
    text = path.read_text(encoding="utf-8")
    if what == "doc":
        edited = text.replace("Retrieves the current weather", "Retrieves the weather", 1)
    else:
        edited = text.replace("Beijing, China", "Paris, France", 1)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    run, status = start_run(
        RunRequest(
            tasks=forged / "tasks",
            target_file=suites.root / "oracle" / "target.yaml",
            runs_dir=tmp_path / "runs",
            split="public",
        )
    )
    assert status.status == "complete"
    official = suites.bfcl_run.config().task_set.content_hash
    prints = {t.id: t.fingerprint() for t in load_task_set(suites.bfcl_tasks).tasks}

    def config(raw: dict[str, Any]) -> None:
        raw["task_set"]["content_hash"] = official

    def attempt(record: dict[str, Any]) -> None:
        record["task_fingerprint"] = prints[record["task_id"]]

    bundle = _forge(suites, tmp_path / "f", config=config, attempt=attempt, run=run)
    verdict = _verify(suites, bundle, suites.bfcl_tasks)
    # the function doc is in every recorded request: the re-drive's first request differs;
    # the answer is in the check: the trace scores otherwise
    expected = Code.REPLAY_MISMATCH if what == "doc" else Code.SCORE_MISMATCH
    assert verdict.code == expected, (verdict.code, verdict.message)


def test_a_suite_page_with_no_verified_row_and_marked_up_suite_text(
    suites: Suites, tmp_path: Path
) -> None:
    """The suite's only bundle fails verification: the loose build shows it unverified on its
    suite's page and says why, --strict refuses the build; the suite's own text (title,
    attribution, methodology) is escaped, with no raw HTML and no javascript: link."""
    from bench.board import BuildOptions, build
    from bench.board.errors import BoardBuildError
    from bench.core.suite import SUITE_FILE

    def flip(record: dict[str, Any]) -> None:
        if record["task_id"].startswith("live-relevance"):
            record.update(passed=False, value=0.0)

    _forge(suites, tmp_path / "f", attempt=flip)
    marked = tmp_path / "marked"
    shutil.copytree(suites.root / "bfcl", marked)
    raw = json.loads((marked / SUITE_FILE).read_text(encoding="utf-8"))
    raw["title"] = '<script>alert(1)</script> "x" <b>bold</b>'
    raw["methodology"] = "<img src=x onerror=alert(1)> [a](javascript:alert(1)) <iframe>"
    (marked / SUITE_FILE).write_text(json.dumps(raw), encoding="utf-8")

    def board(out: Path, strict: bool) -> Any:
        return build(
            BuildOptions(
                runs=None,
                results=tmp_path / "f" / "results",
                out=out,
                submissions=None,
                strict=strict,
                resamples=200,
                frontier_resamples=100,
                allowed_signers=suites.signers,
                tasks=suites.mini_tasks,
                suite_tasks=(marked / "tasks",),
            )
        )

    result = board(tmp_path / "site", strict=False)
    assert any("verification failed: SCORE_MISMATCH" in w for w in result.warnings)
    bfcl = json.loads((tmp_path / "site" / "suite-bfcl-v4.json").read_text(encoding="utf-8"))
    rows = [(e["entrant"], e["verified"]) for c in bfcl["cohorts"] for e in c["entries"]]
    assert rows == [("bfcl-oracle", False)]
    page = (tmp_path / "site" / "suite-bfcl-v4.html").read_text(encoding="utf-8")
    for raw_html in ("<script>alert", "<img", "<iframe", "<b>bold", 'href="javascript:'):
        assert raw_html not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    with pytest.raises(BoardBuildError):
        board(tmp_path / "strict", strict=True)
