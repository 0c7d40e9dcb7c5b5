"""A hedge is not an answer: "I don't know." in front of an answer the corpus holds.

An audit found that prefixing every answer of the example bot v1 with "I don't know." raised
its score: the prefix passed every question marked unanswerable (``answerable: false``) and
cost nothing on the answerable ones, which carry no ``answerable`` check. ``contains`` and
``regex`` now fail a hedged answer on a question the corpus answers (docs/SCORING.md)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from bench.runner import RunRequest, start_run

from .conftest import Attempt

REPO = Path(__file__).resolve().parents[2]
GROUNDED = [
    {"type": "contains", "value": "14 days"},
    {"type": "citations", "required": ["policy.md#refunds"]},
]
ANSWER = "You can ask for a refund within 14 days of delivery [policy.md#refunds]."


@pytest.mark.parametrize(
    "prefix", ["I don't know. ", "I couldn\u2019t find that, but ", "Not enough information; "]
)
def test_a_hedged_answer_fails_where_the_corpus_answers(attempt: Attempt, prefix: str) -> None:
    plain = attempt(GROUNDED, answer=ANSWER, retrieved=["policy.md#refunds"])
    assert plain.value == 1.0
    hedged = attempt(GROUNDED, answer=prefix + ANSWER, retrieved=["policy.md#refunds"])
    contains = hedged.verdicts[0]
    assert not contains.passed
    assert "hedge, not an answer" in contains.sentence
    assert hedged.value is not None and hedged.value < 1.0


def test_a_regex_goal_reads_the_hedge_too(attempt: Attempt) -> None:
    regex = [{"type": "regex", "pattern": r"\b14 days\b"}, GROUNDED[1]]
    assert attempt(regex, answer=ANSWER, retrieved=["policy.md#refunds"]).value == 1.0
    hedged = attempt(regex, answer="I do not know. " + ANSWER, retrieved=["policy.md#refunds"])
    assert not hedged.verdicts[0].passed


def test_only_questions_the_corpus_answers_are_held_to_it(attempt: Attempt) -> None:
    # marked unanswerable: declining is the goal, and a value may sit beside it
    unanswerable = [{"type": "answerable", "answerable": False}, GROUNDED[1]]
    said = "I don't know: the documents do not say [policy.md#refunds]."
    assert attempt(unanswerable, answer=said).verdicts[0].passed
    # no citations check (a tool task's summary): "could not find" may be the honest answer
    tool_task = [{"type": "contains", "value": "order 555"}]
    said = "I could not find order 555 in the system."
    assert attempt(tool_task, answer=said, family="tool-trajectory").value == 1.0


def _hedged_v1(tmp_path: Path) -> Path:
    """A scripted target: the example bot v1, with "I don't know. " before every answer."""
    module = tmp_path / "hedged_bot.py"
    bot = REPO / "examples" / "support_bot.py"
    module.write_text(
        "import importlib.util\n"
        f"_spec = importlib.util.spec_from_file_location('hedge_v1_bot', {str(bot)!r})\n"
        "_bot = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_bot)\n"
        'HEDGE = "I don\'t know. "\n'
        "def respond(request):\n"
        "    response = _bot.respond_v1(request)\n"
        "    if response.tool_calls or not response.content:\n"
        "        return response\n"
        "    return response.model_copy(update={'content': HEDGE + response.content})\n",
        encoding="utf-8",
    )
    target = tmp_path / "hedged.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: hedged-v1\ndisplay_name: hedged v1\n"
        "model: hedged-v1\ncallable: hedged_bot.py:respond\n",
        encoding="utf-8",
    )
    return target


def _grounded_mean(target: Path, runs: Path) -> float:
    run, _ = start_run(
        RunRequest(
            tasks=REPO / "tasks", target_file=target, split="public", concurrency=8, runs_dir=runs
        )
    )
    values: dict[str, list[float]] = defaultdict(list)
    for record in run.attempts():
        if record.family == "grounded-qa":
            values[record.task_id].append(record.value or 0.0)
    return sum(sum(v) / len(v) for v in values.values()) / len(values)


def test_hedging_the_example_bot_never_raises_its_grounded_score(tmp_path: Path) -> None:
    v1 = _grounded_mean(REPO / "examples" / "targets" / "support-bot-v1.yaml", tmp_path / "r")
    hedged = _grounded_mean(_hedged_v1(tmp_path), tmp_path / "r")
    assert hedged < v1, (hedged, v1)
