"""The ``judge`` expectation: an LLM judge grades the answer against the task's rubric.

The judge sees the rubric, the task's last user message (the question) and the final answer.
First the guard (``guard.check_answer``) reads the answer: one that speaks to its grader (a
verdict it asks for, a role marker, a copied prompt heading, hidden characters, the rubric
repeated back, or too long to grade) fails, decided, with the guard's sentence. The judge is
not asked and nothing is cached; with no judge, or an untrusted one, the failure stands all the
same, because no model decided it.

Otherwise the judge's verdict decides the expectation only when the run's judge is *trusted* (a
calibration on file for this very judge clears κ ≥ 0.70 over ≥ 20 labels). Otherwise:

* no judge for the run → undecided, ``no judge configured for this run``;
* an untrusted judge → it is still asked and what it said is recorded, but the verdict is
  undecided and marked ``untrusted_judge``: ``not scored: κ 0.41 is below the floor 0.70 (the
  judge said FAIL: …)``. Excluded from the mean, never scored as a zero;
* an outage (HTTP error, timeout, connection error, a body that is not a chat completion) →
  undecided, ``the judge could not decide: HTTP 500 …``. A reply without a verdict is not an
  outage: the judge is asked once more, then it is a FAIL that says so (``client.py``); nor is
  a 400, 413 or 422 whose request the server takes with the answer withheld: the answer was
  refused, a FAIL that says so (``client.REFUSED_ANSWER``).
"""

from __future__ import annotations

from bench.core.score import Verdict
from bench.tasks.expectations import Judge

from ..base import ScoringContext, failed, passed, register, squash, truncate, undecided
from .errors import JudgeUnavailable

REASON_LIMIT = 200
"""How much of the judge's reason a sentence quotes."""


def question_of(context: ScoringContext) -> str:
    """The question the judge sees: the task's last user message."""
    users = [message.content for message in context.task.input if message.role == "user"]
    return users[-1] if users else ""


@register("judge")
def score_judge(expectation: Judge, context: ScoringContext) -> Verdict:
    # The guard's patterns (about 25 ms to compile) load with the first judged answer, not
    # with every run that imports the scorers (docs/PERFORMANCE.md, issue 19).
    from .guard import check_answer

    tripped = check_answer(context.trace.answer, expectation.rubric)
    if tripped is not None:
        return failed(expectation, tripped.sentence)
    service = context.judge
    if service is None:
        return undecided(expectation, "no judge configured for this run")
    try:
        opinion = service.decide(expectation.rubric, question_of(context), context.trace.answer)
    except JudgeUnavailable as exc:
        return undecided(expectation, f"the judge could not decide: {exc.reason}")
    said = f"the judge said {'PASS' if opinion.passed else 'FAIL'}: " + truncate(
        squash(opinion.reason).strip(), REASON_LIMIT
    )
    if not service.trusted:
        return undecided(expectation, f"not scored: {service.trust_note} ({said})").model_copy(
            update={"untrusted_judge": True}
        )
    if opinion.passed:
        return passed(expectation, said)
    return failed(expectation, said)


__all__ = ["REASON_LIMIT", "question_of", "score_judge"]
