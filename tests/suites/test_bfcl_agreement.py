"""The ``calls`` check against BFCL's own checker, side by side, on scripted model outputs.

For every imported task, outputs are built from the ground truth by fixed perturbations (the
exact answer, a second listed value, a wrong type, a wrong value, a case and whitespace change,
a missing optional and a missing required argument, an extra argument, an int for a float, a
wrong function name, reordered / extra / missing calls, and for (ir)relevance no call or a
spurious one). Beside them, a real model's outputs: SmolLM2-135M-Instruct's first responses to
a stratified sample of tasks, recorded through the real llama-cpp-python server
(tests/suites/record_smollm2.py, committed as tests/suites/data/smollm2-outputs.json), given
to our check as the harness parsed them and to BFCL's as its OpenAI handler records them. Each
output is scored by ``bench.scorers.calls`` and by ``bfcl_eval``'s ``ast_checker``
(tests/suites/bfcl_official.py); the two must agree on at least 99.5 % of them, and every
disagreement must be the one listed in docs/SUITES.md.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Message, ToolCall, ToolCallRequest, Trace
from bench.scorers import score_attempt
from bench.scorers.base import ScoringContext
from bench.scorers.calls import score_calls
from bench.suites.astmatch import Param, Signature, signature_of
from bench.suites.bfcl import CATEGORIES, Imported, locate, read_category, task_for
from bench.suites.oracle import oracle as made_by_oracle
from bench.suites.oracle import render
from bench.tasks.expectations import Calls
from bench.tasks.model import Task, ToolSpec

DOCS = Path(__file__).resolve().parents[2] / "docs" / "SUITES.md"
FLOOR = 0.995

Output = list[tuple[str, dict[str, Any]]]


# --- the oracle: the first listed value of every argument ------------------------------------


def oracle(task: Task) -> Output:
    check = calls_of(task)
    return made_by_oracle(signatures_of(task), check.calls, check.language)


# --- scripted perturbations ------------------------------------------------------------------


def _copy(output: Output) -> Output:
    return [(name, json.loads(json.dumps(args))) for name, args in output]


def _bump(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1000
    if isinstance(value, str):
        return value + " zzqx"
    return "zzqx"


def _mistype(value: Any, language: str) -> Any:
    if language != "python":
        return 7
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return 12345


def perturbations(task: Task) -> Iterator[tuple[str, Output]]:
    """``(kind, output)`` for one task; every kind is applied where it applies."""
    check = calls_of(task)
    functions = [tool.name for tool in task.tools if isinstance(tool, ToolSpec)]
    if not check.calls:
        any_call = [(functions[0], {})] if functions else []
        yield "no call", []
        if any_call:
            yield "spurious call", any_call
        return
    exact = oracle(task)
    signatures = signatures_of(task)
    yield "exact", exact
    first_name, first_args = exact[0]
    signature = signatures[first_name]
    want = check.calls[0].args
    for param, values in want.items():
        alternatives = [v for v in values if v != ""]
        if len(alternatives) > 1:
            out = _copy(exact)
            out[0][1][param] = render(alternatives[1], signature.params[param], check.language)
            yield "second listed value", out
            break
    if first_args:
        param = next(iter(first_args))
        out = _copy(exact)
        out[0][1][param] = _mistype(first_args[param], check.language)
        yield "wrong type", out
        out = _copy(exact)
        out[0][1][param] = _bump(first_args[param])
        yield "wrong value", out
    strings = [p for p, v in first_args.items() if isinstance(v, str) and v.strip()]
    if strings and check.language == "python":
        out = _copy(exact)
        out[0][1][strings[0]] = "  " + out[0][1][strings[0]].upper().replace(" ", "   ") + " "
        yield "string case and whitespace", out
    optional = [p for p in first_args if "" in want.get(p, [])]
    if optional:
        out = _copy(exact)
        del out[0][1][optional[0]]
        yield "missing optional", out
    required = [p for p in signature.required if p in first_args]
    if required:
        out = _copy(exact)
        del out[0][1][required[0]]
        yield "missing required", out
    out = _copy(exact)
    out[0][1]["bench_unexpected"] = 1
    yield "extra argument", out
    floats = [
        p
        for p, v in first_args.items()
        if signature.params.get(p, Param("any")).type == "float" and isinstance(v, float)
    ]
    if floats and check.language == "python":
        out = _copy(exact)
        out[0][1][floats[0]] = int(out[0][1][floats[0]])
        yield "int for float", out
    yield from _value_edits(exact, check.language)
    out = _copy(exact)
    out[0] = (first_name + "_v2", out[0][1])
    yield "wrong function name", out
    if len(exact) > 1:
        yield "reordered calls", list(reversed(_copy(exact)))
    yield "extra call", _copy(exact) + _copy(exact[:1])
    yield "missing call", _copy(exact[:-1])


def _value_edits(exact: Output, language: str) -> Iterator[tuple[str, Output]]:
    """Edits that probe the type and normalisation rules one value at a time."""
    args = exact[0][1]

    def edited(param: str, value: Any) -> Output:
        out = _copy(exact)
        out[0][1][param] = value
        return out

    ints = [p for p, v in args.items() if type(v) is int]
    if ints and language == "python":
        yield "bool for int", edited(ints[0], True)
        yield "float for int", edited(ints[0], float(args[ints[0]]))
    lists = [p for p, v in args.items() if isinstance(v, list) and len(set(map(str, v))) > 1]
    if lists:
        yield "list reordered", edited(lists[0], list(reversed(args[lists[0]])))
    dicts = [p for p, v in args.items() if isinstance(v, dict) and v]
    if dicts:
        smaller = dict(args[dicts[0]])
        smaller.pop(next(iter(smaller)))
        yield "dict key dropped", edited(dicts[0], smaller)
    strings = [p for p, v in args.items() if isinstance(v, str) and v]
    if strings and language != "python":
        yield "quoted string", edited(strings[0], f'"{args[strings[0]]}"')
        yield "punctuation added", edited(strings[0], f"{args[strings[0]]}.")
    if args:
        yield "null value", edited(next(iter(args)), None)


# --- the two checkers --------------------------------------------------------------------------


def calls_of(task: Task) -> Calls:
    check = task.expectations[0]
    assert isinstance(check, Calls)
    return check


def signatures_of(task: Task) -> dict[str, Signature]:
    return {
        tool.name: signature_of(tool.name, tool.parameters)
        for tool in task.tools
        if isinstance(tool, ToolSpec)
    }


def trace_of(output: Output | list[ToolCallRequest]) -> Trace:
    """The trace of an attempt whose first response made these calls (every one handled, a
    malformed one refused, as the agent loop does), then answered."""
    messages = [Message(role="user", content="(the task's question)")]
    requests = [
        call
        if isinstance(call, ToolCallRequest)
        else ToolCallRequest(id=f"call-{i}", name=call[0], arguments=call[1])
        for i, call in enumerate(output)
    ]
    if requests:
        messages.append(Message(role="assistant", tool_calls=requests))
    ran = [ToolCall(id=r.id, name=r.name, arguments=r.arguments) for r in requests]
    messages.append(Message(role="assistant", content="done"))
    return Trace(messages=messages, tool_calls=ran, answers=["done"])


def ours(task: Task, output: Output | list[ToolCallRequest]) -> tuple[bool, str]:
    context = ScoringContext(task=task, trace=trace_of(output), known_passages=frozenset())
    verdict = score_calls(calls_of(task), context)
    return verdict.passed, verdict.sentence


def tag(task: Task, name: str) -> str:
    prefix = f"bfcl:{name}="
    return next(t.removeprefix(prefix) for t in task.tags if t.startswith(prefix))


def bfcl_entries(package: Path) -> dict[str, tuple[dict[str, Any], Any]]:
    source = locate(package)
    found: dict[str, tuple[dict[str, Any], Any]] = {}
    for category in CATEGORIES:
        for entry, answer in read_category(source, category):
            found[entry["id"]] = (entry, answer)
    return found


Row = tuple[str, str, bool, bool]  # (BFCL id, perturbation, BFCL valid, ours passed)


# --- a real model's outputs ----------------------------------------------------------------

SMOLLM2 = "SmolLM2-135M"
SMOLLM2_OUTPUTS = Path(__file__).with_name("data") / "smollm2-outputs.json"


def smollm2_outputs() -> dict[str, Any]:
    """SmolLM2-135M-Instruct's first responses to a stratified sample of the imported tasks,
    recorded through the real llama-cpp-python server by tests/suites/record_smollm2.py: per
    output the calls as the harness parsed them (``calls``) and the response as BFCL's OpenAI
    function-calling handler records it (``bfcl``). Missing: no outputs (and
    ``test_a_real_models_outputs_are_judged_too`` fails, saying how to record them)."""
    if not SMOLLM2_OUTPUTS.is_file():
        return {"outputs": []}
    data: dict[str, Any] = json.loads(SMOLLM2_OUTPUTS.read_text(encoding="utf-8"))
    return data


def model_calls(calls: list[dict[str, Any]]) -> list[ToolCallRequest]:
    return [
        ToolCallRequest(
            id=f"call-{i}",
            name=call["name"],
            arguments=call.get("arguments", {}),
            arguments_error=call.get("arguments_error"),
        )
        for i, call in enumerate(calls)
    ]


@pytest.fixture(scope="module")
def measured(
    bfcl_official: Callable[[list[dict[str, object]]], dict[str, dict[str, object]]],
    bfcl_package: Path,
    bfcl_suite: tuple[Imported, tuple[Task, ...]],
) -> tuple[list[Row], dict[str, str], Counter[str]]:
    _, tasks = bfcl_suite
    entries = bfcl_entries(bfcl_package)
    cases: list[dict[str, object]] = []
    mine: dict[str, tuple[bool, str]] = {}
    labels: dict[str, tuple[str, str]] = {}
    for task in tasks:
        original = tag(task, "id")
        entry, answer = entries[original]
        for index, (kind, output) in enumerate(perturbations(task)):
            key = f"{original}#{index}"
            labels[key] = (original, kind)
            mine[key] = ours(task, output)
            cases.append(
                {
                    "key": key,
                    "category": tag(task, "category"),
                    "functions": entry["function"],
                    "answer": answer,
                    "output": [{name: args} for name, args in output],
                }
            )
    by_original = {tag(task, "id"): task for task in tasks}
    for output in smollm2_outputs()["outputs"]:
        original, task = output["id"], by_original[output["id"]]
        entry, answer = entries[original]
        key = f"{original}#smollm2"
        labels[key] = (original, SMOLLM2)
        mine[key] = ours(task, model_calls(output["calls"]))
        cases.append(
            {
                "key": key,
                "category": output["category"],
                "functions": entry["function"],
                "answer": answer,
                "raw": output["bfcl"],
            }
        )
    theirs = bfcl_official(cases)
    rows: list[Row] = []
    why: dict[str, str] = {}
    kinds: Counter[str] = Counter()
    for key, (original, kind) in labels.items():
        kinds[kind] += 1
        rows.append((original, kind, bool(theirs[key]["valid"]), mine[key][0]))
        why[f"{original}|{kind}"] = f"bfcl: {theirs[key]['error']}; ours: {mine[key][1]}"
    return rows, why, kinds


def documented() -> set[tuple[str, str, bool, bool]]:
    """The disagreement table in docs/SUITES.md, between its two markers."""
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("<!-- bfcl-disagreements:start -->")[1].split(
        "<!-- bfcl-disagreements:end -->"
    )[0]
    rows = set()
    for line in block.splitlines():
        found = re.match(r"^\| `([^`]+)` \| ([^|]+?) \| (pass|fail) \| (pass|fail) \|", line)
        if found:
            rows.add(
                (
                    found.group(1),
                    found.group(2).strip(),
                    found.group(3) == "pass",
                    found.group(4) == "pass",
                )
            )
    return rows


def test_enough_outputs_across_every_category(
    measured: tuple[list[Row], dict[str, str], Counter[str]],
    bfcl_suite: tuple[Imported, tuple[Task, ...]],
) -> None:
    rows, _, kinds = measured
    imported, _ = bfcl_suite
    assert len(rows) >= 1000
    categories = Counter(
        next(t for t in task.tags if t.startswith("bfcl:category=")) for task in bfcl_suite[1]
    )
    assert len(categories) == len(imported.counts) == 13
    for kind in (
        "exact",
        "wrong type",
        "missing optional",
        "missing required",
        "extra argument",
        "reordered calls",
        "extra call",
        "missing call",
        "string case and whitespace",
        "wrong function name",
        "int for float",
        "no call",
        "spurious call",
    ):
        assert kinds[kind] > 0, kind


def test_a_real_models_outputs_are_judged_too(
    measured: tuple[list[Row], dict[str, str], Counter[str]],
) -> None:
    """At least 300 SmolLM2 outputs, from every category, recorded from the real engine."""
    assert SMOLLM2_OUTPUTS.is_file(), (
        f"{SMOLLM2_OUTPUTS} is missing: record it with tests/suites/record_smollm2.py"
    )
    data = smollm2_outputs()
    _, _, kinds = measured
    outputs = data["outputs"]
    assert kinds[SMOLLM2] == len(outputs) >= 300
    assert {output["category"] for output in outputs} == set(CATEGORIES)
    assert data["engine"]["name"] == "llama-cpp-python"
    assert data["engine"]["model_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert data["bfcl_eval"] == "2026.3.23"
    # a real model, not a copy of the ground truth: it calls tools, and it misses some
    assert sum(1 for output in outputs if output["calls"]) >= 50
    rows, _, _ = measured
    real = [row for row in rows if row[1] == SMOLLM2]
    assert 0 < sum(1 for row in real if row[2]) < len(real)


def test_agreement_with_the_official_checker(
    measured: tuple[list[Row], dict[str, str], Counter[str]],
) -> None:
    rows, why, _ = measured
    agree = sum(1 for _, _, theirs, mine in rows if theirs == mine)
    rate = agree / len(rows)
    differ = {row for row in rows if row[2] != row[3]}
    listing = "\n".join(
        f"| `{o}` | {k} | {'pass' if t else 'fail'} | {'pass' if m else 'fail'} | "
        f"{why[f'{o}|{k}']} |"
        for o, k, t, m in sorted(differ)
    )
    by_kind = Counter((kind, theirs) for _, kind, theirs, _ in rows)
    print(f"\nagreement {agree}/{len(rows)} = {rate:.4%}\n{listing}")
    real = [row for row in rows if row[1] == SMOLLM2]
    print(f"of which {SMOLLM2}: {sum(1 for r in real if r[2] == r[3])}/{len(real)} agree")
    print(
        "\n".join(
            f"{k!r:40} bfcl pass={by_kind[(k, True)]} fail={by_kind[(k, False)]}"
            for k in sorted({k for k, _ in by_kind})
        )
    )
    assert rate >= FLOOR, f"agreement {rate:.4%} is under {FLOOR:.1%}:\n{listing}"
    assert differ == documented(), (
        "docs/SUITES.md's disagreement table differs from what is measured:\n" + listing
    )


def test_the_oracle_scores_one_on_every_task(
    bfcl_suite: tuple[Imported, tuple[Task, ...]],
) -> None:
    _, tasks = bfcl_suite
    below: list[str] = []
    for task in tasks:
        check = calls_of(task)
        output = oracle(task) if check.calls else ([] if not check.any_call else [])
        if check.any_call:
            first = next(tool for tool in task.tools if isinstance(tool, ToolSpec))
            output = [(first.name, {})]
        score = score_attempt(task, trace_of(output), frozenset())
        if score.value != 1.0:
            below.append(f"{task.id}: {score.value} {score.verdicts[0].sentence}")
    assert below == [], f"{len(below)} task(s) under 1.000:\n" + "\n".join(below[:30])


def test_the_cases_left_out_as_unpassable_fail_the_official_checker_too(
    bfcl_official: Callable[[list[dict[str, object]]], dict[str, dict[str, object]]],
    bfcl_package: Path,
    bfcl_suite: tuple[Imported, tuple[Task, ...]],
) -> None:
    imported, _ = bfcl_suite
    source = locate(bfcl_package)
    left_out = dict(imported.unpassable)
    cases: list[dict[str, object]] = []
    for category in CATEGORIES:
        for entry, answer in read_category(source, category):
            if entry["id"] in left_out:
                task = Task.model_validate(task_for(entry, answer, category, source.version))
                cases.append(
                    {
                        "key": entry["id"],
                        "category": category,
                        "functions": entry["function"],
                        "answer": answer,
                        "output": [{name: args} for name, args in oracle(task)],
                    }
                )
    assert len(cases) == len(left_out) == 7
    verdicts = bfcl_official(cases)
    assert {key: verdict["valid"] for key, verdict in verdicts.items()} == dict.fromkeys(
        left_out, False
    )
