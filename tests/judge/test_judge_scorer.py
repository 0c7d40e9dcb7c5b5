"""The ``judge`` expectation through ``score_attempt``: no judge, a trusted judge, an untrusted
one (asked, recorded, excluded) and an outage; and a re-scored run that costs no requests."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Trace
from bench.scorers.aggregate import score_attempt
from bench.scorers.judge.calibration import (
    CalibrationItem,
    default_calibration_path,
    summarize,
    write_calibration,
)
from bench.scorers.judge.config import load_judge_config
from bench.scorers.judge.service import RunJudge, open_judge
from bench.tasks.model import Task

pytestmark = pytest.mark.usefixtures("judge_scorer")

RUBRIC = "The answer says approved refunds arrive within 7 business days."


def task(
    expectations: Sequence[dict[str, Any]] = ({"type": "judge", "rubric": RUBRIC},),
    task_id: str = "gqa-1",
    turns: Sequence[str] = ("How long does an approved refund take?",),
) -> Task:
    messages: list[dict[str, str]] = []
    for index, turn in enumerate(turns):
        if index:
            messages.append({"role": "assistant", "content": f"reply {index}"})
        messages.append({"role": "user", "content": turn})
    return Task.model_validate(
        {
            "id": task_id,
            "family": "grounded-qa",
            "split": "public",
            "input": messages,
            "expectations": list(expectations),
            "because": "a judged answer",
        }
    )


def trace(answer: str) -> Trace:
    return Trace(answers=[answer])


def calibrate_on_file(
    judge_yaml: Path, person: Sequence[bool], judge: Sequence[bool], path: Path | None = None
) -> Path:
    """Write a calibration for ``judge_yaml`` from made-up per-label outcomes."""
    config = load_judge_config(judge_yaml)
    items = [
        CalibrationItem(id=f"l{i}", label=p, judge=j, alternate=j, reason="r")
        for i, (p, j) in enumerate(zip(person, judge, strict=True))
    ]
    report = summarize(config, Path("labels.jsonl"), "0" * 64, items)
    target = path or default_calibration_path(judge_yaml)
    write_calibration(report, target)
    return target


AGREE_20 = ([True, False] * 10, [True, False] * 10)  # κ = 1.0 over 20
HALF_20 = ([True, True, False, False] * 5, [True, False, False, False] * 5)  # κ = 0.5


@pytest.fixture
def service(judge_file: Any, tmp_path: Path) -> Iterator[RunJudge]:
    path = judge_file()
    calibrate_on_file(path, *AGREE_20)
    with open_judge(path, cache_path=tmp_path / "cache.sqlite3") as opened:
        yield opened


def test_without_a_judge_the_expectation_is_undecided() -> None:
    score = score_attempt(
        task([{"type": "judge", "rubric": RUBRIC}, {"type": "contains", "value": "7"}]),
        trace("7 business days"),
        frozenset(),
    )
    judged, contains = score.verdicts
    assert (judged.decided, judged.untrusted_judge) == (False, False)
    assert judged.sentence == "no judge configured for this run"
    assert contains.decided and score.value == 1.0
    alone = score_attempt(task(), trace("7 business days"), frozenset())
    assert alone.value is None and alone.undecided == ("no judge configured for this run",)


def test_a_trusted_judge_decides(service: RunJudge, server: Any) -> None:
    assert service.trusted and service.trust_note == "κ 1.00 over 20 labels (floor 0.70 over 20)"
    server.script(server.Reply("PASS: gives 7 business days."), server.Reply("FAIL: says 14 days."))
    good = score_attempt(task(), trace("Within 7 business days."), frozenset(), judge=service)
    (verdict,) = good.verdicts
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == "the judge said PASS: gives 7 business days."
    assert good.value == 1.0 and good.passed
    bad = score_attempt(task(), trace("Within 14 days."), frozenset(), judge=service)
    assert bad.value == 0.0 and bad.failures() == ("the judge said FAIL: says 14 days.",)
    assert bad.verdicts[0].axis == "answer"


def test_the_judge_sees_the_last_user_message_and_the_final_answer(
    service: RunJudge, server: Any
) -> None:
    turns = ("Hi, I returned a kettle.", "How long does the refund take to reach my card?")
    score_attempt(
        task(turns=turns), Trace(answers=["Hello!", "7 days."]), frozenset(), judge=service
    )
    (prompt,) = server.user_messages()
    assert "Question:\nHow long does the refund take to reach my card?\n" in prompt
    assert "Hi, I returned a kettle." not in prompt
    assert re.search(r"\[ANSWER (\w{16})\]\n7 days\.\n\[END OF ANSWER \1\]", prompt)
    assert "Hello!" not in prompt


def test_rescoring_the_same_attempts_makes_zero_requests(service: RunJudge, server: Any) -> None:
    attempts = [
        (task(task_id="gqa-1"), trace("Within 7 business days.")),
        (task(task_id="gqa-2"), trace("Refunds take 14 days.")),
        (task(task_id="gqa-3", turns=("When will my refund arrive?",)), trace("In a week.")),
    ]
    first = [score_attempt(t, tr, frozenset(), judge=service) for t, tr in attempts]
    assert server.count == 3
    second = [score_attempt(t, tr, frozenset(), judge=service) for t, tr in attempts]
    assert server.count == 3  # counted at the server: not one request the second time
    assert [s.verdicts for s in first] == [s.verdicts for s in second]
    assert service.usage() == {
        "requests": 3,
        "cache_hits": 3,
        "cache_misses": 3,
        "outages": 0,
        "retries": 0,
        "no_verdicts": 0,
        "cost_usd": None,
    }
    # The key is what was asked, not the task id: a renamed task is a hit.
    score_attempt(
        task(task_id="renamed"), trace("Within 7 business days."), frozenset(), judge=service
    )
    assert server.count == 3


def test_an_edited_task_is_asked_again(service: RunJudge, server: Any) -> None:
    score_attempt(task(), trace("7 days"), frozenset(), judge=service)
    edited = task([{"type": "judge", "rubric": RUBRIC + " It cites faq.md#refunds."}])
    score_attempt(edited, trace("7 days"), frozenset(), judge=service)
    assert server.count == 2


def test_an_untrusted_judge_is_asked_recorded_and_excluded(
    judge_file: Any, tmp_path: Path, server: Any
) -> None:
    path = judge_file()
    calibrate_on_file(path, *HALF_20)
    server.script(server.Reply("FAIL: it says 14 days, not 7 business days."))
    with open_judge(path, cache_path=tmp_path / "c.sqlite3") as untrusted:
        assert not untrusted.trusted
        score = score_attempt(
            task([{"type": "judge", "rubric": RUBRIC}, {"type": "contains", "value": "days"}]),
            trace("Refunds take 14 days."),
            frozenset(),
            judge=untrusted,
        )
    assert server.count == 1  # still asked
    judged, contains = score.verdicts
    assert (judged.decided, judged.passed, judged.untrusted_judge) == (False, False, True)
    assert judged.sentence == (
        "not scored: κ 0.50 is below the floor 0.70 "
        "(the judge said FAIL: it says 14 days, not 7 business days.)"
    )
    assert contains.decided
    assert score.value == 1.0 and score.passed  # excluded from the mean, not a zero
    assert score.undecided == (judged.sentence,)


@pytest.mark.parametrize(
    ("person", "judge", "note"),
    [
        (None, None, "no calibration on file for this judge ("),
        ([True, False] * 6, [True, False] * 6, "12 labels are fewer than the floor's 20"),
        ([True] * 20, [True] * 20, "κ is undefined: the person and the judge gave one"),
        ([True, True, False, False] * 5, [True] * 20, "κ 0.00 is below the floor 0.70"),
    ],
)
def test_every_way_a_judge_is_untrusted_is_named(
    judge_file: Any,
    tmp_path: Path,
    server: Any,
    person: list[bool] | None,
    judge: list[bool] | None,
    note: str,
) -> None:
    path = judge_file()
    if person is not None and judge is not None:
        calibrate_on_file(path, person, judge)
    with open_judge(path, cache_path=tmp_path / "c.sqlite3") as service:
        (verdict,) = score_attempt(task(), trace("7 days"), frozenset(), judge=service).verdicts
    assert verdict.untrusted_judge and not verdict.decided
    assert verdict.sentence.startswith("not scored: " + note)
    assert verdict.sentence.endswith("(the judge said PASS: the answer meets the rubric.)")


def test_a_calibration_for_another_judge_does_not_count(
    judge_file: Any, tmp_path: Path, server: Any
) -> None:
    path = judge_file()
    calibrate_on_file(path, *AGREE_20)
    path = judge_file(model="fake-judge-2")  # same file, another model
    with open_judge(path, cache_path=tmp_path / "c.sqlite3") as service:
        assert not service.trusted and service.trust.report is not None
        (verdict,) = score_attempt(task(), trace("7 days"), frozenset(), judge=service).verdicts
    assert verdict.sentence.startswith("not scored: the calibration on file is for another judge")
    assert "calibrate again" in verdict.sentence


def test_an_outage_is_undecided_never_a_fail(service: RunJudge, server: Any) -> None:
    server.script(server.Reply(status=500))
    score = score_attempt(
        task([{"type": "judge", "rubric": RUBRIC}, {"type": "contains", "value": "7"}]),
        trace("7 days"),
        frozenset(),
        judge=service,
    )
    judged = score.verdicts[0]
    assert (judged.decided, judged.untrusted_judge) == (False, False)
    assert judged.sentence.startswith(
        f"the judge could not decide: HTTP 500 from {server.url}/chat/completions"
    )
    assert score.value == 1.0
    # Not cached: the next scoring asks again, and that answer counts.
    (again,) = score_attempt(task(), trace("7 days"), frozenset(), judge=service).verdicts
    assert again.decided and again.passed and server.count == 2


def test_a_service_that_raises_something_else_is_a_harness_gap() -> None:
    class Broken:
        trusted = True
        trust_note = "ok"

        def decide(self, rubric: str, question: str, answer: str) -> Any:
            raise RuntimeError("bug")

    (verdict,) = score_attempt(task(), trace("x"), frozenset(), judge=Broken()).verdicts
    assert verdict.sentence == "the 'judge' check could not decide: RuntimeError: bug"


def test_the_run_record_description_has_no_key_and_no_url(service: RunJudge, api_key: str) -> None:
    described = service.describe()
    assert described["trusted"] is True
    assert described["calibration"]["n"] == 20
    assert described["fingerprint"] == service.config.fingerprint()
    assert api_key not in repr(described) and "http" not in repr(described)
