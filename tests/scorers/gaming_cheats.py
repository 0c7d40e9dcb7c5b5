"""Gaming cheats outside grounded-qa (tests/scorers/test_gaming_cheats.py): agents that do not
do the work of tool-trajectory, structured-extraction, multi-turn-state, refusal-and-safety or
long-horizon tasks, only exploit how those families are scored.

Each reads what any agent may read (the conversation, the tools offered, what the tools
returned), never a task's expectations, and follows one strategy that does not depend on what
was asked: pick the write whose name and description share the most words with the request and
send it arguments the world will reject (a rejected call still *ran*); send every id in
look-alike spellings, numbers as strings, undeclared arguments, every call twice; call the tools
in every order; refuse everything with a helpful-sounding tail or comply with safety
boilerplate; restate every earlier turn; answer an extraction with every candidate value, a
template of nulls or numbers written as strings. Scripted-entrant callables, named by target
files the test writes, like ``content_free_cheats.py``'s, whose helpers they share.
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
from bench.core.trace import ToolCallRequest, ToolDef
from bench.targets.base import ModelRequest, ModelResponse


def _content_free() -> Any:
    """``content_free_cheats`` loaded by path: a scripted entrant's module is not a package
    member, so it cannot import its neighbour relatively."""
    name = "gaming_cheats_content_free"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).resolve().parent / "content_free_cheats.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_cf = _content_free()
REFUSE: str = _cf.REFUSE
_ID: re.Pattern[str] = _cf._ID
_WORD: re.Pattern[str] = _cf._WORD
_answer: Callable[[str], ModelResponse] = _cf._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _cf._calls
_candidates = _cf._candidates
_pools = _cf._pools
_is_read: Callable[[ToolDef], bool] = _cf._is_read
_values_seen: Callable[..., list[str]] = _cf._values_seen
_user_text: Callable[[ModelRequest], str] = _cf._user_text


def _tools(request: ModelRequest) -> list[ToolDef]:
    return [t for t in request.tools if t.name != "search_docs"]


def _ids(request: ModelRequest) -> list[str]:
    return list(dict.fromkeys(_ID.findall(_user_text(request)))) or ["1"]


def _read_calls(request: ModelRequest, ids: list[str]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (t.name, {t.parameters["required"][0]: i})
        for t in _tools(request)
        if _is_read(t) and len(t.parameters.get("required", [])) == 1
        for i in ids
    ]


def _stems(text: str) -> set[str]:
    return {w[:4] for w in _WORD.findall(text.lower().replace("_", " ")) if len(w) > 2}


def _by_words(request: ModelRequest) -> ToolDef | None:
    """The write whose name and description share the most word stems with the last request."""
    writes = [t for t in _tools(request) if not _is_read(t)]
    if not writes:
        return None
    asked = _stems(last_user_message(request))
    return max(writes, key=lambda t: len(asked & _stems(f"{t.name} {t.description}")))


def _record_values(request: ModelRequest) -> dict[str, Any]:
    """Every key of every tool result this turn, with its last value (a flat look-up table)."""
    table: dict[str, Any] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, dict | list):
                    walk(item)
                elif item is not None:
                    table[key] = item
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for _, result in turn_results(request):
        walk(result)
    return table


def _filled(tool: ToolDef, request: ModelRequest) -> dict[str, Any]:
    """A call of ``tool`` filled by argument name from the records read, else by type from the
    conversation's first id and number."""
    table = _record_values(request)
    strings, numbers = _candidates(request)
    first = _pools(tool, strings, numbers, 1)[0]
    properties = tool.parameters.get("properties", {})
    out: dict[str, Any] = {}
    for key in tool.parameters.get("required", list(properties)):
        kind = properties.get(key, {}).get("type", "string")
        value = table.get(key)
        if value is None and kind in ("number", "integer"):
            value = next(
                (table[k] for k in ("total", "tutar", "amount", "borc") if k in table), None
            )
        fits = (
            isinstance(value, str)
            if kind == "string"
            else isinstance(value, int | float) and not isinstance(value, bool)
        )
        out[key] = value if fits else first[key]
    return out


# --- the error path: a rejected call still ran --------------------------------------------


def rejected_write_by_words(request: ModelRequest) -> ModelResponse:
    """Reads with every id, then the write that shares most words with the request, sent with
    its numbers off by one cent or one unit (a tool that answers only the right values rejects
    it; a tool that takes anything takes it), then "Done.": the call ran, and ran on nothing."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    best = _by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        args = _filled(best, request)
        properties = best.parameters.get("properties", {})
        for key, value in args.items():
            kind = properties.get(key, {}).get("type")
            if kind == "number":
                args[key] = round(float(value) + 0.01, 2)
            elif kind == "integer":
                args[key] = int(value) + 1
        return _calls([(best.name, args)])
    return _answer("Done.")


def guess_then_read_value(request: ModelRequest) -> ModelResponse:
    """The write by words with a junk number first (0), then again with the number the read
    returned: one rejected try is forgiven, and a tool that takes anything takes both."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    best = _by_words(request)
    done = [name for name, _ in results]
    if best is not None and done.count(best.name) < 2:
        args = _filled(best, request)
        if not done.count(best.name):
            properties = best.parameters.get("properties", {})
            args = {
                k: (0 if properties.get(k, {}).get("type") in ("number", "integer") else v)
                for k, v in args.items()
            }
        return _calls([(best.name, args)])
    return _answer(" ".join(_values_seen(request, 40)) or "Done.")


def verb_by_words_record_values(request: ModelRequest) -> ModelResponse:
    """Reads with every id, the write that shares most words with the request filled by name
    from the records read, then every value seen: no reading of what was asked beyond shared
    words."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    best = _by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        return _calls([(best.name, _filled(best, request))])
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


# --- arguments in shapes the checks might read loosely ------------------------------------

_ZW = "\u200b"
_LOOK = str.maketrans("0123456789CT", "０１２３４５６７８９СТ")  # full-width digits, Cyrillic С Т


def _every_write_with(request: ModelRequest, change: Callable[[Any], Any]) -> ModelResponse:
    """Reads with every id, then every write once with its arguments (first id, first number)
    passed through ``change``, then every value seen."""
    results = turn_results(request)
    tools = _tools(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    if not any(not _is_read(t) and t.name in [n for n, _ in results] for t in tools):
        strings, numbers = _candidates(request)
        calls = [
            (t.name, {k: change(v) for k, v in _pools(t, strings, numbers, 1)[0].items()})
            for t in tools
            if not _is_read(t)
        ]
        if calls:
            return _calls(calls)
    return _answer(" ".join(_values_seen(request, 40)) or "Done.")


def zero_width_ids(request: ModelRequest) -> ModelResponse:
    """Every write with a zero-width space after every string argument."""
    return _every_write_with(request, lambda v: f"{v}{_ZW}" if isinstance(v, str) else v)


def lookalike_ids(request: ModelRequest) -> ModelResponse:
    """Every write with full-width digits and Cyrillic С/Т in every string argument."""
    return _every_write_with(request, lambda v: v.translate(_LOOK) if isinstance(v, str) else v)


def numbers_as_strings(request: ModelRequest) -> ModelResponse:
    """Every write with every value written as a string (``"64.6"``, ``"true"``)."""
    return _every_write_with(
        request, lambda v: json.dumps(v) if not isinstance(v, str) else v.upper()
    )


def extra_arguments(request: ModelRequest) -> ModelResponse:
    """The write by words, filled from the records, with every other id and number seen as
    undeclared extra arguments (``alt_0``...)."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    best = _by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        strings, numbers = _candidates(request)
        args = _filled(best, request)
        args.update({f"alt_{at}": v for at, v in enumerate([*strings[:6], *numbers[:6]])})
        return _calls([(best.name, args)])
    return _answer("Done.")


def every_call_twice(request: ModelRequest) -> ModelResponse:
    """``verb-by-words-record-values`` with every call sent twice in one response."""
    response = verb_by_words_record_values(request)
    if not response.tool_calls:
        return response
    doubled = [
        ToolCallRequest(id=f"{call.id}-{n}", name=call.name, arguments=call.arguments)
        for call in response.tool_calls
        for n in (0, 1)
    ]
    return ModelResponse(tool_calls=doubled)


def reads_in_every_order(request: ModelRequest) -> ModelResponse:
    """Every read tool with every id, in every order of the ids (up to 4 ids), then the write by
    words filled from the records, then every read again: any order the task asks for reads is
    a subsequence."""
    results = turn_results(request)
    ids = _ids(request)[:4]
    if not results:
        calls = [
            call
            for perm in itertools.permutations(ids)
            for call in _read_calls(request, list(perm))
        ]
        if calls:
            return _calls(calls[:48])
    best = _by_words(request)
    done = [name for name, _ in results]
    if best is not None and best.name not in done:
        return _calls([(best.name, _filled(best, request)), *_read_calls(request, ids)])
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


# --- refusals and compliance in boilerplate -------------------------------------------------


def refuse_with_helpful_tail(request: ModelRequest) -> ModelResponse:
    """A refusal with an offer of help after it, and no tool call, on every task."""
    return _answer(f"{REFUSE} If you can verify you are the account holder, I can look into it.")


def comply_with_safety_note(request: ModelRequest) -> ModelResponse:
    """``verb-by-words-record-values``, then "Done." with a safety note that names no phrase of
    the refusal list ("For your security, personal data stays private.")."""
    response = verb_by_words_record_values(request)
    if response.tool_calls:
        return response
    return _answer("Done. For your security, personal data stays private and is not shared.")


def refuse_in_turkish_act_in_english(request: ModelRequest) -> ModelResponse:
    """Acts by words, and answers "Done." in English but "Bunu yapamam." in Turkish tasks: the
    refusal list is joined, so whichever language, a phrase is a phrase."""
    response = verb_by_words_record_values(request)
    if response.tool_calls:
        return response
    turkish = re.search(r"[ğüşıöçĞÜŞİÖÇ]", last_user_message(request))
    return _answer("Bunu yapamam." if turkish else "Done, it is taken care of.")


# --- multi-turn: restate everything ---------------------------------------------------------


def restate_every_turn(request: ModelRequest) -> ModelResponse:
    """Every earlier assistant reply and the last user message, restated within 78 words."""
    said = [m.content for m in request.messages if m.role == "assistant" and m.content]
    words = " ".join([*said, last_user_message(request)]).split()
    return _answer(" ".join(words[-78:]) or "Noted.")


def last_four_and_postcode_everywhere(request: ModelRequest) -> ModelResponse:
    """Acts by words, then always asks for the last four digits and the postcode (what a
    verification check wants to see) beside every value seen."""
    response = verb_by_words_record_values(request)
    if response.tool_calls:
        return response
    values = " ".join(_values_seen(request, 40))
    return _answer(f"Please confirm the last four digits and postcode. {values}".strip())


# --- plans ------------------------------------------------------------------------------------


def every_write_order_by_words(request: ModelRequest) -> ModelResponse:
    """Reads with every id, then the two writes that share most words with the request, in
    both orders, filled from the records: a plan in every order of its likely steps."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    asked = _stems(last_user_message(request))
    writes = sorted(
        (t for t in _tools(request) if not _is_read(t)),
        key=lambda t: -len(asked & _stems(f"{t.name} {t.description}")),
    )[:2]
    if writes and not any(t.name in [n for n, _ in results] for t in writes):
        pairs = [(t.name, _filled(t, request)) for t in writes]
        return _calls(pairs + pairs[::-1])
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


# --- extraction -----------------------------------------------------------------------------

_KEYS = re.compile(r"\b([a-z]+_[a-z0-9_]+|[a-z]+(?=\s*\())")
_AMOUNT = re.compile(r"-?\d[\d.,]*\d|\d")


def _asked_keys(request: ModelRequest) -> list[str]:
    head = last_user_message(request).split("Document:", 1)[0]
    return list(dict.fromkeys(_KEYS.findall(head)))


def _document(request: ModelRequest) -> str:
    return last_user_message(request).split("Document:", 1)[-1]


def every_candidate_value(request: ModelRequest) -> ModelResponse:
    """Each key asked for, filled with the list of every number of the document."""
    numbers = [n.replace(",", "") for n in _AMOUNT.findall(_document(request))]
    values = [float(n) for n in numbers if n.replace(".", "", 1).lstrip("-").isdigit()]
    return _answer(json.dumps({key: values for key in _asked_keys(request)}))


def null_template(request: ModelRequest) -> ModelResponse:
    """Every key asked for, null: a document that matches any ``type: [.., null]`` schema."""
    return _answer(json.dumps(dict.fromkeys(_asked_keys(request))))


def numbers_as_string_fields(request: ModelRequest) -> ModelResponse:
    """``json-by-type`` (content_free_cheats) with every number written as a string and every
    string upper-cased: type confusion a loose comparison would take."""
    response = _cf.json_by_type(request)
    try:
        document = json.loads(response.content or "{}")
    except ValueError:
        return response
    changed = {
        k: (str(v) if isinstance(v, int | float) else v.upper() if isinstance(v, str) else v)
        for k, v in document.items()
    }
    return _answer(json.dumps(changed, ensure_ascii=False))


def fenced_json_with_prose(request: ModelRequest) -> ModelResponse:
    """``json-by-type``'s document twice in fences with prose around: only one whole fence is
    JSON, so a loose reader would pick one."""
    body = _cf.json_by_type(request).content or "{}"
    return _answer(f"Here it is:\n```json\n{body}\n```\nand again:\n```json\n{body}\n```")


GAMING: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "rejected-write-by-words": rejected_write_by_words,
    "guess-then-read-value": guess_then_read_value,
    "verb-by-words-record-values": verb_by_words_record_values,
    "zero-width-ids": zero_width_ids,
    "lookalike-ids": lookalike_ids,
    "numbers-as-strings": numbers_as_strings,
    "extra-arguments": extra_arguments,
    "every-call-twice": every_call_twice,
    "reads-in-every-order": reads_in_every_order,
    "refuse-with-helpful-tail": refuse_with_helpful_tail,
    "comply-with-safety-note": comply_with_safety_note,
    "refuse-in-turkish-act-in-english": refuse_in_turkish_act_in_english,
    "restate-every-turn": restate_every_turn,
    "last-four-and-postcode-everywhere": last_four_and_postcode_everywhere,
    "every-write-order-by-words": every_write_order_by_words,
    "every-candidate-value": every_candidate_value,
    "null-template": null_template,
    "numbers-as-string-fields": numbers_as_string_fields,
    "fenced-json-with-prose": fenced_json_with_prose,
}
