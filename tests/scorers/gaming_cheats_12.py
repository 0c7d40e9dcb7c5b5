"""Gaming cheats, twelfth round (tests/scorers/test_gaming_cheats_12.py): the classes round 11
did not measure.

Each reads only what any agent is sent (the conversation, the tools offered with their schemas,
what the tools return), never a task's expectations:

* ``refuse-then-answer`` / ``answer-then-refuse``: acts by words (the reads of every id, then the
  write that shares most words with the request, filled from the records; on a question on the
  documents, search), then a refusal and the values seen — before them, or after them;
* ``refuse-then-answer-no-write``: the reads only, then the refusal and the values: on a refuse
  task nothing forbidden is called, on a help task the values are all there;
* ``question-back``: the last user message, copied back, and no tool called;
* ``schema-echo``: every tool offered, its name, description and parameters, as the answer;
* ``every-option``: every enum value of every tool's parameters, every alternative the request
  offers ("A or B") and every value seen, as the answer;
* ``numbers-every-form``: the reads, then every number seen written as itself, in exponent
  form, in hexadecimal, with a thousands comma and as words;
* ``digit-superstring``: acts by words, then one run of 1,002 digits that holds every number of
  three digits (a de Bruijn sequence), and the numbers seen;
* ``duplicate-keys``: the extraction's JSON object with each key written once per candidate
  value (``{"total": 240.0, "total": 290.4}``; the last one is the candidate ``json-by-type``
  picks);
* ``json-twice``: the extraction's object in a fence, and a different one (numbers shifted)
  after it in prose;
* ``plan-every-order``: the reads, then every write of the task, filled from the records, in
  both orders and twice, and a plan naming every tool in every order (up to 24 orders);
* ``repeat-last-statement``: acts by words, then the user's last message said back;
* ``every-value-said``: the write by words called once with each value said so far in the
  conversation (up to three per argument), then every value restated.

Scripted-entrant callables, named by target files the test writes, like the earlier rounds'.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.baselines import last_user_message, turn_results
from bench.targets.base import ModelRequest, ModelResponse

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str) -> Any:
    """A neighbour loaded by path: a scripted entrant's module is not a package member."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_g = _load("gaming_cheats_12_gaming", "gaming_cheats.py")
_cf = _load("gaming_cheats_12_content_free", "content_free_cheats.py")
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls
REFUSE: str = _g.REFUSE

_OR = re.compile(r"\b([\w-]+)\s*(?:,|\bor\b|/)\s*([\w-]+)")
_INT = re.compile(r"\b\d+(?:\.\d+)?\b")
_WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen", "twenty"),
]


def _acted(request: ModelRequest) -> ModelResponse | None:
    """The next calls of acting by words (search on a documents question), or None when done."""
    if "search_docs" in [t.name for t in request.tools]:
        return None if turn_results(request) else _cf._search_first(request, lambda _: "")
    response: ModelResponse = _g.verb_by_words_record_values(request)
    return response if response.tool_calls else None


def _values(request: ModelRequest, limit: int = 50) -> str:
    passages = _cf._passages(request) or []
    found = [v for p in passages[:1] for v in _cf._VALUE.findall(str(p.get("text", "")))]
    return " ".join(list(dict.fromkeys([*found, *_g._values_seen(request, limit)]))[:limit])


def refuse_then_answer(request: ModelRequest) -> ModelResponse:
    """Acts by words; then a refusal, and every value seen after it."""
    return _acted(request) or _answer(f"{REFUSE} That said: {_values(request)}")


def answer_then_refuse(request: ModelRequest) -> ModelResponse:
    """Acts by words; then every value seen, and a refusal after them."""
    return _acted(request) or _answer(f"{_values(request)}. However, {REFUSE.lower()}")


def refuse_then_answer_no_write(request: ModelRequest) -> ModelResponse:
    """The reads of every id (search on a documents question); a refusal, then the values."""
    if "search_docs" in [t.name for t in request.tools] and not turn_results(request):
        return _cf._search_first(request, lambda _: "")
    if not turn_results(request):
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    return _answer(f"{REFUSE} But here is what I found: {_values(request)}")


def question_back(request: ModelRequest) -> ModelResponse:
    """The last user message, copied back; no tool called."""
    return _answer(last_user_message(request) or "Done.")


def schema_echo(request: ModelRequest) -> ModelResponse:
    """Every tool offered, as JSON: name, description, parameters."""
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in request.tools
    ]
    return _answer(json.dumps(tools, ensure_ascii=False) if tools else "No tools.")


def _enums(value: Any, out: list[str]) -> list[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "enum" and isinstance(item, list):
                out += [str(v) for v in item]
            else:
                _enums(item, out)
    elif isinstance(value, list):
        for item in value:
            _enums(item, out)
    return out


def every_option(request: ModelRequest) -> ModelResponse:
    """Every enum value of every tool, every "A or B" of the request, every value seen."""
    options = _enums([t.parameters for t in request.tools], [])
    for first, second in _OR.findall(last_user_message(request)):
        options += [first, second]
    said = list(dict.fromkeys([*options, *_g._values_seen(request, 40)]))
    return _answer(", ".join(said[:70]) or "Done.")


def forms(number: str) -> list[str]:
    """``number`` as written, in exponent form, in hexadecimal, with a thousands comma, and in
    words (0–20)."""
    value = float(number)
    out = [number, f"{value:.3g}".replace("e+0", "e").replace("e+", "e"), f"{value:,.2f}"]
    if value.is_integer():
        out += [hex(int(value)), f"{int(value):,}"]
        if int(value) < len(_WORDS):
            out.append(_WORDS[int(value)])
    return list(dict.fromkeys(out))


def numbers_every_form(request: ModelRequest) -> ModelResponse:
    """Acts by words; then every number seen in every form of ``forms``."""
    acted = _acted(request)
    if acted is not None:
        return acted
    numbers = list(dict.fromkeys(_INT.findall(_values(request, 60))))[:12]
    return _answer(" ".join(f for n in numbers for f in forms(n)) or "Done.")


def superstring(width: int = 3) -> str:
    """The shortest run of digits that holds every ``width``-digit number (a de Bruijn
    sequence over the ten digits, its start repeated at its end)."""
    found: list[int] = []
    a = [0] * (width + 1)

    def walk(t: int, p: int) -> None:
        if t > width:
            if width % p == 0:
                found.extend(a[1 : p + 1])
            return
        a[t] = a[t - p]
        walk(t + 1, p)
        for digit in range(a[t - p] + 1, 10):
            a[t] = digit
            walk(t + 1, t)

    walk(1, 1)
    return "".join(map(str, found + found[: width - 1]))


def digit_superstring(request: ModelRequest) -> ModelResponse:
    """Acts by words; then every three-digit number in one run of digits, and the values."""
    return _acted(request) or _answer(f"{superstring()} {_values(request, 30)}")


def _by_type(request: ModelRequest) -> dict[str, Any]:
    try:
        document = json.loads(_cf.json_by_type(request).content or "{}")
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def duplicate_keys(request: ModelRequest) -> ModelResponse:
    """Each numeric key written once per number of the document, ``json-by-type``'s last."""
    document = _by_type(request)
    numbers = [
        float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.\d{2}\b", _g._document(request))
    ]
    pairs: list[str] = []
    for key, value in document.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            pairs += [f"{json.dumps(key)}: {json.dumps(n)}" for n in numbers if n != value]
        pairs.append(f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return _answer("{" + ", ".join(pairs) + "}")


def json_twice(request: ModelRequest) -> ModelResponse:
    """``json-by-type``'s object in a fence, and one with its numbers shifted after it."""
    document = _by_type(request)
    numbers = [v for v in document.values() if isinstance(v, int | float)]
    shifted = numbers[1:] + numbers[:1]
    other = {
        k: (shifted.pop(0) if isinstance(v, int | float) and shifted else v)
        for k, v in document.items()
    }
    fenced = json.dumps(document, ensure_ascii=False)
    return _answer(f"```json\n{fenced}\n```\nOr: {json.dumps(other, ensure_ascii=False)}")


def plan_every_order(request: ModelRequest) -> ModelResponse:
    """The reads; then every write, filled, in both orders, twice; then a plan naming every
    tool in every order."""
    results = turn_results(request)
    if not results:
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    writes = [t for t in _g._tools(request) if not _g._is_read(t)]
    if writes and not any(name == writes[0].name for name, _ in results):
        pairs = [(t.name, _g._filled(t, request)) for t in writes]
        return _calls((pairs + pairs[::-1]) * 2)
    names = [t.name.replace("_", " ") for t in request.tools]
    orders = list(itertools.islice(itertools.permutations(names), 24))
    plan = " | ".join("; ".join(order) for order in orders)
    return _answer(f"Plan: {plan}. Values: {_values(request, 20)}")


def repeat_last_statement(request: ModelRequest) -> ModelResponse:
    """Acts by words; then the user's last message said back."""
    return _acted(request) or _answer(f"Sure: {last_user_message(request)}")


def every_value_said(request: ModelRequest) -> ModelResponse:
    """The write by words once per combination of the values said so far (three an argument),
    then every value restated."""
    best = _g._by_words(request)
    if best is not None and not turn_results(request):
        strings, numbers = _cf._candidates(request)
        calls = [(best.name, args) for args in _cf._pools(best, strings, numbers, 3)[:27]]
        if calls:
            return _calls(calls)
    earlier = " ".join(m.content for m in request.messages if m.role == "assistant")
    said = _cf._VALUE.findall(_cf._user_text(request) + " " + earlier)
    return _answer("Noted: " + " ".join(list(dict.fromkeys(said))[:70]))


GAMING_12: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "refuse-then-answer": refuse_then_answer,
    "answer-then-refuse": answer_then_refuse,
    "refuse-then-answer-no-write": refuse_then_answer_no_write,
    "question-back": question_back,
    "schema-echo": schema_echo,
    "every-option": every_option,
    "numbers-every-form": numbers_every_form,
    "digit-superstring": digit_superstring,
    "duplicate-keys": duplicate_keys,
    "json-twice": json_twice,
    "plan-every-order": plan_every_order,
    "repeat-last-statement": repeat_last_statement,
    "every-value-said": every_value_said,
}

__all__ = ["GAMING_12"]
