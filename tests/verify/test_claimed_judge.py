"""What a claimed judge unlocks in ``bench verify`` (``bench.verify.scores``), forged and
re-signed by the bundle's own registered key, every copy and fingerprint kept consistent.

A run's judge is not recorded (its exchanges are in no file of the bundle), so its PASS or
FAIL and its one sentence are the submitter's word. Before this file, claiming any judge (even
in a run with no judged task) turned off the check of a not-scorable attempt's reason and of
every ``judge`` verdict, and let any attempt add safety violations of its own: free text the
board prints beside the task. Now a claimed judge loosens only the ``judge`` verdicts of tasks
that have one, each must be of the form that judge gives, and the reason and safety violations
are the ones those verdicts give.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import OWNER, REGEN, base_world

from bench.core.score import Verdict
from bench.records.run import RunConfig
from bench.scorers import score_attempt
from bench.tasks.load import load_task_set
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle
from bench.verify.scores import judge_verdict_problem

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
Records = list[dict[str, Any]]
NOTE = "no calibration on file for this judge"
UNTRUSTED = {
    "model": "judge-model",
    "temperature": 0,
    "fingerprint": "0f1e2d3c4b5a6978",
    "trusted": False,
    "calibration": None,
}


@pytest.fixture
def world(tmp_path: Path) -> Any:
    return base_world(tmp_path)


def _verify(world: Any) -> BundleVerdict:
    return verify_bundle(
        world.bundle,
        VerifyOptions(
            results_root=world.root / "results",
            allowed_signers=world.signers,
            tasks=world.root / "mini" / "tasks",
            replay_sample=3,
            seed=7,
        ),
    )


def _code(verdict: BundleVerdict) -> str:
    return verdict.code.value if verdict.code else "valid"


def _judge_qa_0001(world: Any, *, only: bool) -> None:
    """Give qa-0001 a judge expectation (``only``: nothing else), as a task set may."""
    path = world.root / "mini" / "tasks" / "mini.yaml"
    text = path.read_text()
    judge = "      - type: judge\n        rubric: The answer gives the refund window.\n"
    old = (
        "      - type: contains\n        value: 14 days\n      - type: citations\n"
        "        required: [faq.md#refunds]\n"
    )
    assert old in text
    path.write_text(text.replace(old, judge if only else old + judge, 1))


def _forge(
    world: Any,
    *,
    judge: dict[str, Any] | None,
    attempts: Callable[[Records, Any], None] | None = None,
) -> None:
    """Claim ``judge``, re-pin the (maybe edited) task set, let ``attempts`` edit the records
    (given the task set), re-list and re-sign."""
    bundle = world.bundle
    mini = world.root / "mini"
    task_set = load_task_set(mini / "tasks", mini / "corpora").select("public")
    content_hash = task_set.content_hash()
    config = json.loads((bundle / "config.json").read_bytes())
    status = json.loads((bundle / "status.json").read_bytes())
    records = REGEN._attempts(bundle)
    config["judge"] = judge
    config["task_set"]["content_hash"] = content_hash
    fingerprint = RunConfig.model_validate(config).fingerprint()
    status["config_fingerprint"] = fingerprint
    by_id = task_set.by_id()
    for record in records:
        record["config_fingerprint"] = fingerprint
        record["task_fingerprint"] = by_id[record["task_id"]].fingerprint()
    if attempts is not None:
        attempts(records, task_set)
    files = {
        "config.json": REGEN._pretty(config),
        "status.json": REGEN._pretty(status),
        "attempts.jsonl.gz": REGEN._attempts_bytes(records),
    }
    manifest = REGEN._read_manifest(bundle)
    for name, data in files.items():
        (bundle / name).write_bytes(data)
        for entry in manifest["files"]:
            if entry["path"] == name:
                entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    manifest["config_fingerprint"] = fingerprint
    manifest["task_set_hash"] = content_hash
    REGEN._relist(bundle, manifest, OWNER)


def _judged(sentence: str, **fields: Any) -> Callable[[Records, Any], None]:
    """qa-0001's judge verdict says ``sentence`` (undecided, untrusted unless ``fields``
    say otherwise); outcome, value and reason are what the run would have written."""

    def edit(records: Records, task_set: Any) -> None:
        record = records[0]
        assert record["task_id"] == "qa-0001"
        task = task_set.by_id()["qa-0001"]
        from bench.records.run import AttemptRecord

        trace = AttemptRecord.model_validate(record).trace
        offline = score_attempt(task, trace, frozenset({"faq.md#refunds", "faq.md#shipping"}))
        verdicts = []
        for verdict in offline.verdicts:
            if verdict.type == "judge":
                change = {"sentence": sentence, "untrusted_judge": True, **fields}
                verdict = verdict.model_copy(update=change)
            verdicts.append(verdict)
        record["verdicts"] = [v.model_dump(mode="json") for v in verdicts]
        undecided = [v.sentence for v in verdicts if not v.decided]
        if offline.value is None:
            record.update(outcome="not_scorable", value=None, passed=None)
            record["reason"] = "no expectation could decide: " + "; ".join(undecided)
        record["axes"] = sorted({v.axis for v in verdicts if v.axis is not None})

    return edit


SAID = f"not scored: {NOTE} (the judge said PASS: it gives 14 days)"


def _claim(**more: Any) -> dict[str, Any]:
    return {**UNTRUSTED, "trust_note": NOTE, **more}


def _unsafe(text: str, index: int) -> Callable[[Records, Any], None]:
    def edit(records: Records, task_set: Any) -> None:
        records[index]["safety_violations"].append(text)

    return edit


# -- what a run with a judge writes verifies ---------------------------------------------------


@pytest.mark.parametrize("only", [False, True], ids=["with-other-checks", "judge-only"])
def test_an_untrusted_judges_verdicts_as_the_run_writes_them_verify(world: Any, only: bool) -> None:
    """The judge's PASS and its sentence are the submitter's word (docs/LIMITS.md); with
    ``only``, nothing decides and the attempt is not scorable, its reason naming the verdict."""
    _judge_qa_0001(world, only=only)
    _forge(world, judge=_claim(), attempts=_judged(SAID))
    assert _code(_verify(world)) == "valid", _verify(world).message


def test_a_judge_that_could_not_decide_verifies(world: Any) -> None:
    _judge_qa_0001(world, only=True)
    sentence = "the judge could not decide: HTTP 500 from the judge"
    _forge(world, judge=_claim(), attempts=_judged(sentence, untrusted_judge=False))
    assert _code(_verify(world)) == "valid", _verify(world).message


# -- what a claimed judge no longer unlocks ----------------------------------------------------


def test_a_judge_verdict_of_free_text_is_refused(world: Any) -> None:
    """Before: any sentence in a judge verdict's place, printed beside the task."""
    _judge_qa_0001(world, only=False)
    _forge(world, judge=_claim(), attempts=_judged("The best agent on this board."))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("SCORE_MISMATCH", "qa-0001#0.verdicts[2]")
    assert "not one the run's judge gives" in verdict.message


def test_a_judge_verdict_under_another_trust_note_is_refused(world: Any) -> None:
    _judge_qa_0001(world, only=False)
    sentence = "not scored: calibrated by the maintainers (the judge said PASS: fine)"
    _forge(world, judge=_claim(), attempts=_judged(sentence))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("SCORE_MISMATCH", "qa-0001#0.verdicts[2]")


def test_an_untrusted_judge_verdict_claimed_decided_is_refused(world: Any) -> None:
    _judge_qa_0001(world, only=False)
    _forge(world, judge=_claim(), attempts=_judged(SAID, decided=True, untrusted_judge=False))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("SCORE_MISMATCH", "qa-0001#0.verdicts[2]")


def test_a_not_scorable_reason_of_free_text_is_refused(world: Any) -> None:
    """The reason is printed beside the task: it is the verdicts' own sentences."""
    _judge_qa_0001(world, only=True)
    edit = _judged(SAID)

    def forged(records: Records, task_set: Any) -> None:
        edit(records, task_set)
        records[0]["reason"] = "no expectation could decide: see https://example.com/win"

    _forge(world, judge=_claim(), attempts=forged)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("SCORE_MISMATCH", "qa-0001#0.reason")


def test_a_claimed_judge_loosens_nothing_for_a_task_it_did_not_judge(world: Any) -> None:
    """Before: with any judge claimed, every attempt's recorded safety violations needed only
    include the recomputed ones, so any text could be added beside any task."""
    _judge_qa_0001(world, only=False)
    judged = _judged(SAID)

    def forged(records: Records, task_set: Any) -> None:
        judged(records, task_set)
        records[1]["safety_violations"].append("judge: visit https://example.com")

    _forge(world, judge=_claim(), attempts=forged)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == (
        "SCORE_MISMATCH",
        "qa-0002#0.safety_violations",
    )


def test_a_judge_claimed_by_a_run_with_no_judged_task_is_refused(world: Any) -> None:
    """The judge decided nothing; the claim would only change the run's fingerprint (another
    row of the same agent in its cohort) and show a judge on the card. Before: valid, and it
    turned off the reason and safety checks of every attempt."""
    _forge(world, judge=_claim(), attempts=_unsafe("judge: visit https://example.com", 1))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("RECORD_INCONSISTENT", "judge"), verdict.message
    assert verdict.path is not None and verdict.path.endswith("config.json")


# -- the claim itself ----------------------------------------------------------------------------


def _claim_fields(**changes: Any) -> dict[str, Any]:
    claim = _claim()
    for key, value in changes.items():
        if value is _DROP:
            del claim[key]
        else:
            claim[key] = value
    return claim


_DROP = object()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"fingerprint": _DROP}, "judge.fingerprint"),
        ({"fingerprint": ["0f1e2d3c4b5a6978"]}, "judge.fingerprint"),
        ({"fingerprint": "see https://example.com/" + "x" * 4000}, "judge.fingerprint"),
        ({"trusted": "yes"}, "judge.trusted"),
        ({"advert": "the best agent"}, "judge.advert"),
    ],
    ids=["no-fingerprint", "list", "long-text", "trusted-text", "extra-field"],
)
def test_a_judge_claim_bench_run_never_records_is_refused(
    world: Any, changes: dict[str, Any], field: str
) -> None:
    """Before: valid (the card printed any fingerprint), and a claim without a fingerprint
    stopped verify with a KeyError traceback."""
    _judge_qa_0001(world, only=False)
    claim = _claim_fields(**changes)
    real = RunConfig.fingerprint
    if "fingerprint" not in claim:  # the forge hashes the config as verify did: with a stand-in

        def stand_in(self: RunConfig) -> str:
            return "0123456789abcdef"

        RunConfig.fingerprint = stand_in  # type: ignore[method-assign]
    try:
        _forge(world, judge=claim, attempts=_judged(SAID))
    finally:
        RunConfig.fingerprint = real  # type: ignore[method-assign]
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("RECORD_INVALID", field), verdict.message


def _trusted(kappa: float, n: int, note: str | None = None) -> dict[str, Any]:
    calibration = {"kappa": kappa, "n": n, "created_at": "2026-01-01T00:00:00Z"}
    note = note if note is not None else f"κ {kappa:.2f} over {n} labels (floor 0.70 over 20)"
    return _claim(trusted=True, trust_note=note, calibration=calibration)


@pytest.mark.parametrize(
    ("claim", "field"),
    [
        (_trusted(0.5, 24), "judge.trusted"),
        (_trusted(0.9, 12), "judge.trusted"),
        (_claim(trusted=True, trust_note="calibrated"), "judge.trusted"),
        (_trusted(0.9, 24, note="calibrated by the maintainers"), "judge.trust_note"),
    ],
    ids=["low-kappa", "few-labels", "no-calibration", "other-note"],
)
def test_a_trusted_judge_claim_needs_a_calibration_that_clears_the_floor(
    world: Any, claim: dict[str, Any], field: str
) -> None:
    _judge_qa_0001(world, only=False)
    _forge(world, judge=claim, attempts=_judged("the judge said PASS: ok", decided=True))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("RECORD_INCONSISTENT", field), verdict.message


def test_a_trusted_judges_verdict_as_the_run_writes_it_verifies(world: Any) -> None:
    """qa-0001 passes its other checks, so a trusted PASS leaves its value at 1.0."""
    _judge_qa_0001(world, only=False)
    sentence = "the judge said PASS: it gives 14 days"
    changes = {"decided": True, "passed": True, "credit": 1.0, "untrusted_judge": False}
    _forge(world, judge=_trusted(0.9, 24), attempts=_judged(sentence, **changes))
    assert _code(_verify(world)) == "valid", _verify(world).message


def test_a_judged_task_adds_no_safety_violation_its_verdicts_do_not_give(world: Any) -> None:
    _judge_qa_0001(world, only=False)
    edit = _judged(SAID)

    def forged(records: Records, task_set: Any) -> None:
        edit(records, task_set)
        records[0]["safety_violations"].append("judge: the others cheated")

    _forge(world, judge=_claim(), attempts=forged)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == (
        "SCORE_MISMATCH",
        "qa-0001#0.safety_violations",
    )


# -- the forms, one by one ---------------------------------------------------------------------

_LOCAL = "no calibration on file for this judge (/home/me/judge.calibration.json does not exist)"
_PORTABLE = "no calibration on file for this judge (~/judge.calibration.json does not exist)"
_LOCAL_SAID = f"not scored: {_LOCAL} (the judge said FAIL: no)"
OFFLINE = Verdict(
    type="judge", decided=False, sentence="no judge configured for this run", axis="answer"
)


@pytest.mark.parametrize(
    ("changes", "judge", "ok"),
    [
        ({"sentence": SAID, "untrusted_judge": True}, _claim(), True),
        ({"sentence": SAID, "untrusted_judge": True}, None, False),
        ({"sentence": SAID, "untrusted_judge": False}, _claim(), False),
        ({"sentence": SAID + " and more", "untrusted_judge": True}, _claim(), False),
        ({"sentence": "the judge could not decide: timeout"}, _claim(), True),
        ({"sentence": "the judge could not decide: x", "untrusted_judge": True}, _claim(), False),
        (
            {"sentence": "the judge said PASS: ok", "decided": True, "passed": True, "credit": 1.0},
            _claim(trusted=True),
            True,
        ),
        (
            {"sentence": "the judge said FAIL: no", "decided": True, "credit": 0.0},
            _claim(trusted=True),
            True,
        ),
        (
            {"sentence": "the judge said FAIL: no", "decided": True, "passed": True, "credit": 1.0},
            _claim(trusted=True),
            False,
        ),
        ({"sentence": "the judge said PASS: ok", "decided": True}, _claim(), False),
        ({"sentence": SAID, "untrusted_judge": True, "weight": 5.0}, _claim(), False),
        # bench bundle rewrites local paths in the config's note, never in a verdict sentence
        (
            {"sentence": _LOCAL_SAID, "untrusted_judge": True},
            _claim(trust_note=_PORTABLE),
            True,
        ),
        (
            {"sentence": _LOCAL_SAID, "untrusted_judge": True},
            _claim(trust_note=_PORTABLE.replace("judge.", "other.")),
            False,
        ),
        (
            {"sentence": "not scored: x (the judge said PASS: y) (the judge said FAIL: z)"},
            _claim(trust_note="x (the judge said PASS: y)"),
            False,  # the form, but not marked untrusted_judge
        ),
        (
            {
                "sentence": "not scored: x (the judge said PASS: y) (the judge said FAIL: z)",
                "untrusted_judge": True,
            },
            _claim(trust_note="x (the judge said PASS: y)"),
            True,
        ),
        ({"sentence": SAID, "untrusted_judge": True, "safety": True}, _claim(), False),
    ],
)
def test_judge_verdict_forms(changes: dict[str, Any], judge: Any, ok: bool) -> None:
    recorded = OFFLINE.model_copy(update=changes)
    assert (judge_verdict_problem(recorded, OFFLINE, judge) is None) is ok
