"""The per-attempt rule, and the registry it dispatches through."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import bench.scorers as scorers
from bench.core.score import Verdict
from bench.scorers import REGISTRY, AttemptScore, ScoringContext, register, registered_types
from bench.scorers.base import failed

Attempt = Callable[..., AttemptScore]

UNSCORED: frozenset[str] = frozenset()  # every type has a scorer


# --- the registry --------------------------------------------------------------------------


def test_importing_the_package_registers_every_scorer_module() -> None:
    from bench.tasks.expectations import EXPECTATION_TYPES

    assert set(registered_types()) | UNSCORED == set(EXPECTATION_TYPES)
    assert set(REGISTRY) == set(registered_types())


def test_public_face() -> None:
    for name in (
        "ScoringContext",
        "score_attempt",
        "AttemptScore",
        "registered_types",
        "REGISTRY",
        "register",
    ):
        assert name in scorers.__all__
        assert hasattr(scorers, name)


def test_register_refuses_an_unknown_type_and_a_second_scorer() -> None:
    with pytest.raises(ValueError, match="'contain' is not an expectation type"):
        register("contain")
    with pytest.raises(ValueError, match="a scorer for 'regex' is already registered"):
        register("regex")(lambda expectation, context: failed(expectation, "x"))


@pytest.fixture
def temporary_json_scorer(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[Callable[..., Any]], None]]:
    """Replace the 'json' scorer for one test; the real one is back afterwards."""
    real = REGISTRY["json"]

    def install(fn: Callable[..., Any]) -> None:
        monkeypatch.setitem(REGISTRY, "json", fn)

    yield install
    monkeypatch.undo()
    assert REGISTRY["json"] is real


@pytest.fixture
def without_fields_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if this harness had no scorer for 'fields' (the state of a type not built yet)."""
    monkeypatch.delitem(REGISTRY, "fields")


# --- the rule ------------------------------------------------------------------------------


def test_all_pass(attempt: Attempt) -> None:
    score = attempt(
        [{"type": "contains", "value": "30 days"}, {"type": "not_contains", "value": "guarantee"}],
        answer="Refunds take 30 days.",
    )
    assert (score.value, score.passed, score.undecided) == (1.0, True, ())
    assert score.scorable
    assert [v.type for v in score.verdicts] == ["contains", "not_contains"]
    assert score.failures() == ()


def test_one_failure_fails_the_attempt(attempt: Attempt) -> None:
    score = attempt(
        [{"type": "contains", "value": "30 days"}, {"type": "contains", "value": "receipt"}],
        answer="Refunds take 30 days.",
    )
    assert (score.value, score.passed) == (0.5, False)
    assert score.failures() == ("the answer does not contain 'receipt': Refunds take 30 days.",)


def test_weights_make_a_weighted_mean(attempt: Attempt) -> None:
    score = attempt(
        [
            {"type": "contains", "value": "30 days", "weight": 3},
            {"type": "contains", "value": "receipt", "weight": 1},
        ],
        answer="Refunds take 30 days.",
    )
    assert score.value == 0.75
    assert [v.weight for v in score.verdicts] == [3.0, 1.0]


def test_partial_credit_is_weighted_too(attempt: Attempt) -> None:
    score = attempt(
        [
            {"type": "trajectory", "required": ["a", "b", "c", "d"], "weight": 2},
            {"type": "contains", "value": "done", "weight": 2},
        ],
        tools=["a", "b", "c"],
        answer="not yet",
    )
    # (2 * 0.75 + 2 * 0) / 4
    assert (score.value, score.passed) == (0.375, False)


@pytest.mark.usefixtures("without_fields_scorer")
def test_an_unknown_type_is_undecided_and_leaves_the_denominator(attempt: Attempt) -> None:
    score = attempt(
        [
            {"type": "fields", "fields": {"total": 77.5}, "weight": 5},
            {"type": "contains", "value": "77.5"},
        ],
        answer='{"total": 77.5}',
    )
    fields, contains = score.verdicts
    assert (fields.type, fields.decided, fields.passed, fields.weight) == (
        "fields",
        False,
        False,
        5,
    )
    assert fields.sentence == "no scorer for 'fields' in this harness yet"
    assert score.undecided == ("no scorer for 'fields' in this harness yet",)
    assert contains.passed
    assert (score.value, score.passed) == (1.0, True)


@pytest.mark.usefixtures("without_fields_scorer")
def test_nothing_decided_is_not_scorable(attempt: Attempt) -> None:
    score = attempt([{"type": "fields", "fields": {"total": 77.5}}], answer="77.5")
    assert (score.value, score.passed) == (None, None)
    assert not score.scorable
    assert score.undecided == ("no scorer for 'fields' in this harness yet",)
    assert len(score.verdicts) == 1


def test_undecided_checks_alone_do_not_make_a_zero(attempt: Attempt) -> None:
    score = attempt(
        [{"type": "citations", "required": ["faq.md#refunds"]}],
        answer="faq.md#refunds",
        known=frozenset(),
    )
    assert (score.value, score.passed) == (None, None)
    assert score.undecided == (
        "no passage ids are known for this task, so citations cannot be checked",
    )


def test_a_raising_scorer_is_undecided_not_propagated(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    def explode(expectation: Any, context: ScoringContext) -> Verdict:
        raise KeyError("kind")

    temporary_json_scorer(explode)
    score = attempt(
        [{"type": "json", "weight": 2}, {"type": "contains", "value": "{"}], answer="{}"
    )
    broken, contains = score.verdicts
    assert (broken.decided, broken.passed, broken.weight) == (False, False, 2.0)
    assert broken.sentence == "the 'json' check could not decide: KeyError: 'kind'"
    assert score.undecided == ("the 'json' check could not decide: KeyError: 'kind'",)
    assert contains.passed
    assert (score.value, score.passed) == (1.0, True)


def test_a_raising_scorer_without_a_message(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    def divide(expectation: Any, context: ScoringContext) -> Verdict:
        raise ZeroDivisionError

    temporary_json_scorer(divide)
    score = attempt([{"type": "json"}], answer="{}")
    assert score.undecided == ("the 'json' check could not decide: ZeroDivisionError",)
    assert score.value is None


def test_an_existing_scorer_that_raises(attempt: Attempt, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(expectation: Any, context: ScoringContext) -> Verdict:
        raise RuntimeError("catastrophic backtracking")

    monkeypatch.setitem(REGISTRY, "regex", broken)
    score = attempt([{"type": "regex", "pattern": "a+"}], answer="aaa")
    assert score.undecided == (
        "the 'regex' check could not decide: RuntimeError: catastrophic backtracking",
    )
    assert (score.value, score.passed) == (None, None)


def test_a_scorer_returning_something_else_is_undecided(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    temporary_json_scorer(lambda expectation, context: 1.0)
    score = attempt([{"type": "json"}], answer="{}")
    assert score.undecided == (
        "the 'json' check could not decide: it returned float, not a Verdict",
    )


def test_the_verdict_carries_the_expectations_weight_and_type(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    def careless(expectation: Any, context: ScoringContext) -> Verdict:
        return Verdict(type="other", decided=True, passed=True, credit=1.0, sentence="fine")

    temporary_json_scorer(careless)
    (verdict,) = attempt([{"type": "json", "weight": 4}], answer="{}").verdicts
    assert (verdict.type, verdict.weight) == ("json", 4.0)


def test_a_keyboard_interrupt_is_not_swallowed(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    def interrupted(expectation: Any, context: ScoringContext) -> Verdict:
        raise KeyboardInterrupt

    temporary_json_scorer(interrupted)
    with pytest.raises(KeyboardInterrupt):
        attempt([{"type": "json"}], answer="{}")


def test_the_attempt_score_is_frozen(attempt: Attempt) -> None:
    import dataclasses

    score = attempt([{"type": "contains", "value": "x"}], answer="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        score.value = 0.0  # type: ignore[misc]


def test_the_context_is_what_the_scorer_is_handed(
    attempt: Attempt, temporary_json_scorer: Callable[[Callable[..., Any]], None]
) -> None:
    seen: list[ScoringContext] = []

    def spy(expectation: Any, context: ScoringContext) -> Verdict:
        seen.append(context)
        return failed(expectation, "spied", credit=0.25)

    temporary_json_scorer(spy)
    known = frozenset({"faq.md#refunds"})
    score = attempt([{"type": "json"}], answer="{}", known=known)
    (context,) = seen
    assert context.known_passages == known
    assert context.trace.answer == "{}"
    assert context.task.id == "t-1"
    assert (score.value, score.passed) == (0.25, False)
