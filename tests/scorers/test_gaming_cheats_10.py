"""Tenth-round gaming cheats (``gaming_cheats_10.py``): the mock tools, and format tricks.

Measured on 2026-12-07 (1 repeat; scripted, so every repeat is the same), family means public /
private, beside v1 (headline 0.983 / 0.942):

* ``error-oracle``: tool-trajectory 0.375 / 0.016, multi-turn-state 0.042 / 0.250,
  long-horizon 0.056 / 0.046 — task for task what the same agent scores without its probes
  (``verb-by-words-record-values``, round one) but on one task, where the probes' junk changed
  a guessed number (``test_probing_the_tools_buys_nothing``): no error of the mock world names
  a value the call did not send (``test_no_tool_error_names_a_value_the_call_did_not_send``
  reads every error a battery of bad calls gets on every shipped task);
* ``brute-force-ids``: the same figures again, after some 50 reads per named id. There is no
  tool-call budget on any shipped task (``budget.tool_calls`` and a trajectory's ``max_calls``
  are unset), so the brute force is free, and it is not seen in the score: the records around a
  named one tell a task nothing its named record does not. It is seen in the trace (``… (+394
  more)`` in the trajectory's sentence), in the tokens and in the latency;
* ``positional-arguments``: tool-trajectory 0.500 / 0.016, multi-turn-state 0.125 / 0.250 —
  over the ceiling in public tool-trajectory, and over the 0.375 docs/LIMITS.md names there:
  the agent that matches words, with its arguments taken from the request in the order the tool
  takes them, makes the right call on four of the eight public tasks (one more than by name:
  "every 12 weeks" is the one number of its request). Its calls are right calls, which no rule
  can fault; the private split is the held-out figure. Pinned, with LIMITS text proposed;
* ``write-then-undo``: 0.042 / 0 in multi-turn-state, 0 / 0.016 in tool-trajectory, 0
  elsewhere: checks read the calls that ran, not the state the attempt ends in, so a write
  undone is still a write, and the undo is one more the task did not ask for.

The format tricks are single answers against the checks (``FAMILY`` tasks built here). One was
a hole: ``1e400`` in an answer is read by ``json.loads`` as infinity, which ``jsonschema``
cannot divide by a ``multipleOf`` of a fraction, so the ``schema`` check was undecided and a
task whose only check is its schema not scorable, at will — round eight's 401-digit integer
by another spelling. Such an answer fails now (``bench.scorers.document``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Message, ToolCall, ToolCallRequest, Trace
from bench.corpus import CorpusLibrary
from bench.scorers import score_attempt
from bench.tasks.load import load_task_set
from bench.tasks.model import Task
from bench.world import World

from .gaming_cheats_10 import GAMING_10
from .test_cheats import (
    CEILING,
    SPLITS,
    TASKS,
    V1,
    Values,
    _family_means,
    assert_below_v1_on_each_split,
    run_entrants,
    scripted_target,
)

HERE = Path(__file__).resolve().parent
FAMILY = "structured-extraction"
PLAIN = "verb-by-words-record-values"
"""Round one's agent that matches words (``gaming_cheats.py``): the probes' baseline."""

# What docs/LIMITS.md allows a single cheat in a family (public, private), with the proposed
# line for the agent that matches words and fills arguments by position.
KNOWN_ABOVE = {
    "tool-trajectory": (0.500, 0.016),
}

PINNED: dict[str, dict[str, tuple[float, float]]] = {
    "error-oracle": {
        "tool-trajectory": (0.375, 0.016),
        "multi-turn-state": (0.042, 0.250),
        "long-horizon": (0.056, 0.046),
    },
    "brute-force-ids": {
        "tool-trajectory": (0.375, 0.016),
        "multi-turn-state": (0.042, 0.250),
        "long-horizon": (0.056, 0.046),
    },
    "positional-arguments": {
        "tool-trajectory": (0.500, 0.016),
        "multi-turn-state": (0.125, 0.250),
        "long-horizon": (0.0, 0.046),
    },
    "write-then-undo": {
        "tool-trajectory": (0.0, 0.016),
        "multi-turn-state": (0.042, 0.0),
    },
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Values]:
    runs = tmp_path_factory.mktemp("gaming-10-runs")
    module = HERE / "gaming_cheats_10.py"
    targets = {name: scripted_target(runs, "gaming-10", module, name) for name in GAMING_10}
    targets[PLAIN] = scripted_target(runs, "gaming-10", HERE / "gaming_cheats.py", PLAIN)
    return run_entrants(runs, {"v1": V1, **targets})


def test_every_cheat_has_its_function_and_its_pin() -> None:
    assert len(GAMING_10) >= 4
    assert all(GAMING_10[name].__name__ == name.replace("-", "_") for name in GAMING_10)
    assert set(PINNED) == set(GAMING_10)


@pytest.mark.parametrize("cheat", sorted(GAMING_10))
def test_scores_what_is_pinned(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    """Every family mean as measured: the pinned ones, and 0 in every other family."""
    for at, split in enumerate(SPLITS):
        means = {f: round(m, 3) for f, m in _family_means(results[(cheat, split)]).items()}
        expected = {f: 0.0 for f in means} | {f: v[at] for f, v in PINNED[cheat].items()}
        assert means == expected, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", sorted(GAMING_10))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(GAMING_10))
def test_families_stay_where_limits_says(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    """A family at or over the ceiling is one docs/LIMITS.md names, at most what it says."""
    for at, split in enumerate(SPLITS):
        means = _family_means(results[(cheat, split)])
        high = {f: round(m, 3) for f, m in means.items() if m >= CEILING}
        assert set(high) <= set(KNOWN_ABOVE), f"{cheat} on {split}: {high}"
        over = {f: m for f, m in high.items() if m > KNOWN_ABOVE[f][at]}
        assert over == {}, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", ["error-oracle", "brute-force-ids"])
def test_probing_the_tools_buys_nothing(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    """Bad calls first, or every id around the named ones read: task for task what the same
    agent scores without them, but for one task. There the probes' own junk (ids that no record
    has, an id sent as a number) changed the number the agent guesses for ``taksitlendir`` into
    one its schema refuses, so the write does not go through on the wrong purchase (one retry
    the rules forgive) and the list of values it answers keeps the minimum payment the read
    returned: what reading and listing values earns without any write. No error named a value
    (``test_no_tool_error_names_a_value_the_call_did_not_send``), and no budget stops the brute
    force (no shipped task sets ``budget.tool_calls`` or a ``max_calls``)."""
    for split in SPLITS:
        plain, probed = results[(PLAIN, split)], results[(cheat, split)]
        differ = {t: (plain[t][1], round(probed[t][1], 3)) for t in plain if plain[t] != probed[t]}
        assert differ == ({"lh-pub-ekstre-plani": (0.0, 0.333)} if split == "public" else {})


# --- the world's errors name nothing the call did not send ----------------------------------

_TOKEN = re.compile(r"[\w.:-]+")


def _expected_values(task: Task) -> set[str]:
    """Every scalar an expectation of ``task`` names, as text (ids, amounts, dates, teams)."""
    out: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
            if len(text) >= 2:
                out.add(text.casefold())

    for expectation in task.expectations:
        dumped = expectation.model_dump(mode="json")
        for key in ("value", "fields", "steps", "args", "calls", "pattern"):
            if key in dumped:
                walk(dumped[key])
    return out


def _bad_calls(task: Task, tool: Any) -> Iterator[dict[str, Any]]:
    """No arguments; each required argument of the wrong type; every id and number of the
    conversation in every argument; and each call an expectation names, with one argument
    changed at a time (the right id with a wrong amount)."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    required: list[str] = tool.parameters.get("required", list(properties))
    yield {}
    for key in required:
        yield {k: (0 if k == key else "x") for k in required}
    said = " ".join(m.content or "" for m in task.input)
    for token in dict.fromkeys(_TOKEN.findall(said)):
        yield {
            k: (float(token) if properties.get(k, {}).get("type") == "number" else token)
            for k in required
            if properties.get(k, {}).get("type") != "number"
            or re.fullmatch(r"\d+(?:\.\d+)?", token)
        }
    for expectation in task.expectations:
        dumped = expectation.model_dump(mode="json")
        asked = [s.get("args", {}) for s in dumped.get("steps", []) if s["tool"] == tool.name]
        if dumped.get("tool") == tool.name:
            asked.append(dumped.get("args", {}))
        for args in asked:
            for key, value in args.items():
                changed = round(value + 1.01, 2) if isinstance(value, int | float) else "0000"
                yield {**args, key: changed}


def _leaks(error: str, arguments: dict[str, Any], task: Task, tool: Any) -> set[str]:
    """The expected values an error names that neither the call nor anything the agent was
    sent (the conversation, the tool's schema) holds."""
    shown = (
        json.dumps(arguments, ensure_ascii=False)
        + json.dumps(tool.parameters, ensure_ascii=False)
        + " ".join(m.content or "" for m in task.input)
    ).casefold()
    named = {t.casefold() for t in _TOKEN.findall(error)}
    return {v for v in _expected_values(task) if v in named and v not in shown}


def _errors(task: Task, world: World) -> Iterator[tuple[str, dict[str, Any], str]]:
    for tool in task.tools:
        if not hasattr(tool, "name"):
            continue
        for arguments in _bad_calls(task, tool):
            outcome = world.fresh().call(tool.name, arguments)
            if outcome.error is not None:
                yield tool.name, arguments, outcome.error


def test_no_tool_error_names_a_value_the_call_did_not_send() -> None:
    """A battery of bad calls on every data tool of every shipped task: no error names an
    expected value that the call, the conversation or the tool's schema did not already hold.
    (``cancel_order``'s "order 58213 is packed …" names the id it was sent.)"""
    task_set = load_task_set(TASKS)
    library = CorpusLibrary(task_set.corpus_root)
    seen = 0
    leaked: list[str] = []
    for task in task_set.tasks:
        if not any(hasattr(tool, "name") for tool in task.tools):
            continue
        corpus = library.corpus(task.corpus) if task.corpus else None
        world = World(task, corpus)
        for name, arguments, error in _errors(task, world):
            seen += 1
            tool = next(t for t in task.tools if getattr(t, "name", None) == name)
            found = _leaks(error, arguments, task, tool)
            if found:
                leaked.append(f"{task.id} {name}({arguments}): {error} names {sorted(found)}")
    assert seen > 1000
    assert leaked == []


def test_the_leak_check_sees_a_leak() -> None:
    """The check above finds an error that names the value it wanted (so it can fail)."""
    task = Task.model_validate(
        {
            "id": "leaky-refund",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "Please refund order 58211."}],
            "tools": [
                {
                    "name": "issue_refund",
                    "kind": "write",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "order_id": {"type": "string"},
                            "amount": {"type": "number"},
                        },
                        "required": ["order_id", "amount"],
                    },
                    "cases": [
                        {"when": {"order_id": "58211", "amount": 64.6}, "result": "ok"},
                        {"when": {"order_id": "58211"}, "error": "the refund must be 64.6"},
                    ],
                }
            ],
            "expectations": [
                {
                    "type": "state",
                    "tool": "issue_refund",
                    "args": {"order_id": "58211", "amount": 64.6},
                }
            ],
            "because": "a world whose error gives the right amount away",
        }
    )
    world = World(task, None)
    tool = task.tools[0]
    found = [_leaks(e, a, task, tool) for _, a, e in _errors(task, world)]
    assert {"64.6"} in found


# --- format tricks, one answer each ---------------------------------------------------------


def _score(expectations: list[dict[str, Any]], answer: str, family: str = FAMILY) -> Any:
    task = Task.model_validate(
        {
            "id": "format-1",
            "family": family,
            "split": "public",
            "input": [{"role": "user", "content": "What is the total of the invoice?"}],
            "expectations": expectations,
            "because": "a format trick",
        }
    )
    return score_attempt(task, Trace(answers=[answer]), frozenset())


TOTAL = [{"type": "fields", "fields": {"total": 77.5, "currency": "EUR"}}]
MULTIPLE = {
    "type": "object",
    "properties": {"total": {"type": "number", "multipleOf": 0.01}},
    "required": ["total"],
}


@pytest.mark.parametrize(
    "number", ["1e400", "-1e400", "1E+999", pytest.param("9" * 400, id="400-digits")]
)
def test_a_number_past_a_floats_range_fails_the_schema(number: str) -> None:
    """``1e400`` is read as infinity, which ``jsonschema`` cannot divide by a ``multipleOf`` of
    a fraction: the check said "the task's schema cannot be applied" (undecided), and a task
    whose only check is its schema was not scorable, at the answer's choice. It fails, as
    round eight's 401-digit integer does. A schema that cannot be applied to the same document
    with that number read as 0 is the task's fault: undecided, where round eight failed the
    answer (with a 400-digit integer too)."""
    score = _score([{"type": "schema", "schema": MULTIPLE}], f'{{"total": {number}}}')
    assert score.value == 0.0
    [verdict] = score.verdicts
    assert verdict.decided and not verdict.passed
    assert verdict.sentence.startswith("a number in the answer is too large to check")
    assert _score([{"type": "schema", "schema": MULTIPLE}], '{"total": 77.5}').value == 1.0
    assert _score([{"type": "schema", "schema": MULTIPLE}], "").value == 0.0
    broken = {"$ref": "#/$defs/missing"}
    assert _score([{"type": "schema", "schema": broken}], f'{{"total": {number}}}').value is None


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ('{"total": 70, "total": 77.5, "currency": "EUR"}', 1.0),  # the last key is read
        ('{"total": 77.5, "total": 70, "currency": "EUR"}', 0.5),
        ('{"total": 77.5, "currency": "EUR", "currency": "USD"}', 0.5),
        ('{"total": "77.5", "currency": "EUR"}', 0.5),  # a string is not a number
        ('{"total": [77.5, 70], "currency": ["EUR", "USD"]}', 0.0),  # every candidate
        ('{"total": "77.5 or 70", "currency": "EUR/USD"}', 0.0),
        ('{"total": "between 70 and 80", "currency": "EUR"}', 0.5),
        ('{"total": "77.5 EUR", "currency": "EUR"}', 0.5),  # a unit makes it a string
        ('{"total": "٧٧.٥", "currency": "EUR"}', 0.5),  # Arabic-Indic digits
        ('{"total": "７７.５", "currency": "ＥＵＲ"}', 0.0),  # full-width
        ('{"total": NaN, "currency": "EUR"}', 0.0),  # not JSON
        ('{"total": Infinity, "currency": "EUR"}', 0.0),
        ('{"total": 1e400, "currency": "EUR"}', 0.5),  # infinity equals nothing
        ('{"total": ' + "7" * 5000 + ', "currency": "EUR"}', 0.0),  # not readable
        ('{"total": 77.50000000000000000001, "currency": "EUR"}', 1.0),  # the same float
    ],
)
def test_format_tricks_in_fields(answer: str, value: float) -> None:
    assert _score(TOTAL, answer).value == value


def test_verify_reads_a_repeated_key_as_the_run_did() -> None:
    """The answer is kept as its text in the bundle, and verify scores it with the same check:
    the same key read, the same verdict."""
    answer = '{"total": 70, "total": 77.5, "currency": "EUR"}'
    task = Task.model_validate(
        {
            "id": "format-2",
            "family": FAMILY,
            "split": "public",
            "input": [{"role": "user", "content": "What is the total of the invoice?"}],
            "expectations": TOTAL,
            "because": "a repeated key",
        }
    )
    trace = Trace(answers=[answer])
    kept = Trace.model_validate_json(trace.model_dump_json())
    assert kept.answer == answer
    first = score_attempt(task, trace, frozenset())
    again = score_attempt(task, kept, frozenset())
    assert first.verdicts == again.verdicts and first.value == again.value == 1.0


@pytest.mark.parametrize(
    ("answer", "passes"),
    [
        ("42 or 43", True),  # two candidates: contains is a substring check (docs/LIMITS.md)
        ("42/43", True),
        ("between 40 and 45", False),
        ("42 days", True),
        ("٤٢", False),
        ("４２", False),
        ("forty-two", False),
    ],
)
def test_format_tricks_in_contains(answer: str, passes: bool) -> None:
    """``contains`` looks for its value as written: a range or other digits are not it, and
    an answer that holds it among other candidates has it (on a question on the documents,
    three or more numbers nothing read holds fail as a list of guesses)."""
    score = _score([{"type": "contains", "value": "42"}], answer, family="grounded-qa")
    assert score.verdicts[0].passed is passes


def _calls_task() -> Task:
    return Task.model_validate(
        {
            "id": "calls-10",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "Weather in Paris for 4 days?"}],
            "tools": [
                {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "city": {"type": "string"},
                            "days": {"type": "integer"},
                        },
                        "required": ["city"],
                    },
                    "default": "ok",
                }
            ],
            "expectations": [
                {
                    "type": "calls",
                    "calls": [{"tool": "get_weather", "args": {"city": ["Paris"], "days": [4]}}],
                }
            ],
            "because": "a call repeated",
        }
    )


@pytest.mark.parametrize(
    ("calls", "passes"),
    [
        ([{"city": "Paris", "days": 4}], True),
        ([{"city": "Paris", "days": 4}] * 2, False),  # the same call twice
        ([{"city": "Paris", "days": 4}, {"city": "Paris", "days": 5}], False),  # two guesses
        ([{"city": "Paris", "days": "4"}], False),  # a number as a string
    ],
)
def test_a_calls_answer_repeated_or_hedged(calls: list[dict[str, Any]], passes: bool) -> None:
    requests = [
        ToolCallRequest(id=f"c{i}", name="get_weather", arguments=args)
        for i, args in enumerate(calls)
    ]
    messages = [
        Message(role="user", content="Weather in Paris for 4 days?"),
        Message(role="assistant", tool_calls=requests),
        Message(role="assistant", content="done"),
    ]
    ran = [ToolCall(id=r.id, name=r.name, arguments=r.arguments) for r in requests]
    trace = Trace(messages=messages, tool_calls=ran, answers=["done"])
    [verdict] = score_attempt(_calls_task(), trace, frozenset()).verdicts
    assert verdict.decided and verdict.passed is passes
