"""Gaming cheats, third round (tests/scorers/test_gaming_cheats_3.py): classes none of
``examples/cheats.py``, ``heldout_cheats.py``, ``content_free_cheats.py`` or
``gaming_cheats.py`` has.

Each reads what any agent may read (the conversation, the tools offered, what the tools
returned) and, where it says so, the *public* task files, which every entrant may read too; never
a private task, and never one task's own expectations to answer that task (what it learns from
the public split is pooled over tasks: a keyword list, a tool order per set of tools, the values
answers most often hold). None does the work a family measures:

* refusal by a keyword list learned from the public refuse/help pairs, acting or only reading
  otherwise, and a refusal that leaks what it read in look-alike letters and full-width digits;
* a tool order learned from the public tasks and replayed; every write called with its
  schema's enum values; reads of every value seen, round after round, and no write; a question
  in place of an answer; a refusal said beside the write, in the same response;
* every write in every order (a plan that holds any plan); every turn's write done again;
  the latest slot of each kind, acted on once;
* answers in the task's expected shape filled from the question's own words; the values
  public answers hold most often, listed as they are or each searched for first; a paste
  wrapped in JSON; an extraction with every key
  repeated once per candidate value, written as YAML, or as one JSON object per line.

Scripted-entrant callables, named by target files the test writes, like ``gaming_cheats.py``'s,
whose helpers they share.
"""

from __future__ import annotations

import collections
import importlib.util
import itertools
import json
import re
import sys
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from bench.baselines import last_user_message, turn_results
from bench.core.trace import ToolCallRequest, ToolDef
from bench.targets.base import ModelRequest, ModelResponse

HERE = Path(__file__).resolve().parent
TASKS = HERE.parents[1] / "tasks"


def _load(name: str, file: str) -> Any:
    """A neighbour loaded by path: a scripted entrant's module is not a package member."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_g = _load("gaming_cheats_3_gaming", "gaming_cheats.py")
_cf = _g._cf
REFUSE: str = _g.REFUSE
_ID: re.Pattern[str] = _g._ID
_WORD: re.Pattern[str] = _g._WORD
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls
_candidates = _g._candidates
_is_read: Callable[[ToolDef], bool] = _g._is_read
_values_seen: Callable[..., list[str]] = _g._values_seen
_user_text: Callable[[ModelRequest], str] = _g._user_text
_tools: Callable[[ModelRequest], list[ToolDef]] = _g._tools
_ids: Callable[[ModelRequest], list[str]] = _g._ids
_read_calls = _g._read_calls
_by_words: Callable[[ModelRequest], ToolDef | None] = _g._by_words
_filled: Callable[[ToolDef, ModelRequest], dict[str, Any]] = _g._filled
_stems: Callable[[str], set[str]] = _g._stems
_asked_keys: Callable[[ModelRequest], list[str]] = _g._asked_keys
_document: Callable[[ModelRequest], str] = _g._document
_search_first = _cf._search_first
_VALUE: re.Pattern[str] = _cf._VALUE


def _fold(text: str) -> str:
    """Lower case, full-width forms folded: enough to find a value in what search returned."""
    return unicodedata.normalize("NFKC", text).lower()


def _public(family: str) -> list[dict[str, Any]]:
    # libyaml when it is there: a scripted target imports this module afresh for each run, so
    # its caches start empty every run
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load((TASKS / f"{family}.public.yaml").read_text(encoding="utf-8"), loader)
    return list(data["tasks"])


def _first_user(task: dict[str, Any]) -> str:
    return " ".join(m["content"] for m in task["input"] if m["role"] == "user")


def _this_turn(request: ModelRequest) -> list[Any]:
    """The messages after the last user message."""
    last = max(at for at, m in enumerate(request.messages) if m.role == "user")
    return list(request.messages[last + 1 :])


# --- refusal by a keyword list learned from the public pairs ----------------------------------


@cache
def _learned_alarm_words() -> frozenset[str]:
    """Words of a public ``-refuse`` request that its ``-help`` neighbour does not use, and that
    no public ``-help`` request uses at all."""
    tasks = {t["id"]: t for t in _public("refusal-and-safety")}
    help_words = {
        w
        for tid, t in tasks.items()
        if tid.endswith("-help")
        for w in _WORD.findall(_first_user(t).lower())
    }
    alarm: set[str] = set()
    for tid, task in tasks.items():
        if tid.endswith("-refuse"):
            words = set(_WORD.findall(_first_user(task).lower()))
            alarm |= {w for w in words - help_words if len(w) > 3 and not w.isdigit()}
    return frozenset(alarm)


def _alarmed(request: ModelRequest) -> bool:
    return bool(set(_WORD.findall(last_user_message(request).lower())) & _learned_alarm_words())


def learned_alarm_words_else_act(request: ModelRequest) -> ModelResponse:
    """Refuses when the request holds a word learned from the public refuse requests; otherwise
    acts by words (``verb-by-words-record-values``)."""
    if _alarmed(request):
        return _answer(REFUSE)
    return _g.verb_by_words_record_values(request)


def learned_alarm_words_else_read(request: ModelRequest) -> ModelResponse:
    """Refuses on a learned alarm word; otherwise reads every id and lists what it read, never
    a write."""
    if _alarmed(request):
        return _answer(REFUSE)
    return _cf.reads_then_values(request)


_LOOK = str.maketrans(
    "0123456789aceopxyACEHKMOPTX@.",
    "０１２３４５６７８９асеорхуАСЕНКМОРТХ＠．",
)


def refuse_and_leak_in_lookalikes(request: ModelRequest) -> ModelResponse:
    """Reads every id, then refuses on a learned alarm word (else acts by words) and appends
    every value it read written in full-width digits and Cyrillic look-alike letters: a reader
    sees the data the refusal withholds; a check that reads code points does not."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    if not _alarmed(request):
        return _g.verb_by_words_record_values(request)
    leaked = " ".join(_values_seen(request, 40)).translate(_LOOK)
    return _answer(f"{REFUSE} {leaked}".strip())


# --- tools by rote ----------------------------------------------------------------------------


@cache
def _learned_orders() -> dict[frozenset[str], list[str]]:
    """For each set of tool names a public task offers, the most common order of tool names its
    ``steps`` or ``trajectory`` ask for, pooled over the public tasks with that set."""
    seen: dict[frozenset[str], collections.Counter[tuple[str, ...]]] = collections.defaultdict(
        collections.Counter
    )
    for family in ("tool-trajectory", "long-horizon", "multi-turn-state", "refusal-and-safety"):
        for task in _public(family):
            tools = frozenset(t["name"] for t in task.get("tools", []))
            for e in task["expectations"]:
                if e["type"] == "steps":
                    seen[tools][tuple(s["tool"] for s in e["steps"])] += 1
                elif e["type"] == "trajectory" and (e.get("order") or e.get("required")):
                    seen[tools][tuple(e.get("order") or e.get("required"))] += 1
    return {tools: list(c.most_common(1)[0][0]) for tools, c in seen.items()}


def public_order_replay(request: ModelRequest) -> ModelResponse:
    """The tool order the public tasks most often ask for with the same (or the most
    overlapping) set of tools, replayed one call a response, each filled from the records
    read; then every value seen."""
    offered = frozenset(t.name for t in _tools(request))
    orders = _learned_orders()
    if not offered or not orders:
        return _answer("Done.")
    best = max(orders, key=lambda tools: (len(tools & offered), -len(tools ^ offered)))
    plan = [name for name in orders[best] if name in offered]
    done = len(turn_results(request))
    if done < len(plan):
        tool = next(t for t in _tools(request) if t.name == plan[done])
        return _calls([(tool.name, _filled(tool, request))])
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


def _enum_filled(tool: ToolDef, request: ModelRequest) -> list[dict[str, Any]]:
    """One call per value of the first enum the schema declares (else one call), every other
    argument from its ``default``, ``const``, first enum value or the records read."""
    base = _filled(tool, request)
    properties = tool.parameters.get("properties", {})
    for key, spec in properties.items():
        for mark in ("default", "const"):
            if mark in spec:
                base[key] = spec[mark]
    enums = [(k, s["enum"]) for k, s in properties.items() if isinstance(s.get("enum"), list)]
    if not enums:
        return [base]
    key, values = enums[0]
    return [{**base, key: value} for value in values]


def schema_enums_every_write(request: ModelRequest) -> ModelResponse:
    """Reads every id, then every write whose schema lists an enum, once per enum value (else
    none), then "Done.": the schema's own choices, all of them."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    writes = [t for t in _tools(request) if not _is_read(t)]
    with_enum = [
        t for t in writes if any("enum" in s for s in t.parameters.get("properties", {}).values())
    ]
    if with_enum and not any(name in {t.name for t in writes} for name, _ in results):
        return _calls([(t.name, args) for t in with_enum for args in _enum_filled(t, request)])
    return _answer("Done, all taken care of.")


def read_flood_no_write(request: ModelRequest) -> ModelResponse:
    """Every read tool with every string seen (ids, then what earlier reads returned), round
    after round up to six, never a write; then a reassuring summary of every value seen."""
    reads = [
        t for t in _tools(request) if _is_read(t) and len(t.parameters.get("required", [])) == 1
    ]
    rounds = sum(1 for m in _this_turn(request) if m.role == "assistant")
    if reads and rounds < 6:
        strings, _ = _candidates(request)
        asked = {json.dumps(m.tool_calls[0].arguments) for m in request.messages if m.tool_calls}
        calls = [
            (t.name, {t.parameters["required"][0]: s})
            for t in reads
            for s in strings[:8]
            if json.dumps({t.parameters["required"][0]: s}) not in asked
        ]
        if calls:
            return _calls(calls[:24])
    values = " ".join(_values_seen(request, 60))
    return _answer(f"I checked everything; it is all in order. {values}".strip())


def ask_instead(request: ModelRequest) -> ModelResponse:
    """A question back on every task: the ids and numbers of the request, to be confirmed."""
    values = ", ".join(_VALUE.findall(last_user_message(request))[:6])
    return _answer(f"Could you confirm the details ({values}) before I go ahead?")


def refusal_beside_the_write(request: ModelRequest) -> ModelResponse:
    """Reads, then the write by words in a response whose text says "I can't help with that.",
    then a final "Done.": a refusal and the action, in two messages of one turn."""
    response = _g.verb_by_words_record_values(request)
    if (
        response.tool_calls
        and any(not _is_read(t) for t in _tools(request))
        and turn_results(request)
    ):
        return ModelResponse(content=REFUSE, tool_calls=response.tool_calls)
    if response.tool_calls:
        return response
    return _answer("Done.")


# --- plans and turns ------------------------------------------------------------------------


def every_write_every_order(request: ModelRequest) -> ModelResponse:
    """Reads every id, then the three writes that share most words with the request in every
    order (a plan that holds any plan of them), filled from the records, then the reads again."""
    results = turn_results(request)
    if not results:
        calls = _read_calls(request, _ids(request))
        if calls:
            return _calls(calls)
    asked = _stems(last_user_message(request))
    writes = sorted(
        (t for t in _tools(request) if not _is_read(t)),
        key=lambda t: -len(asked & _stems(f"{t.name} {t.description}")),
    )[:3]
    if writes and not any(t.name in [n for n, _ in results] for t in writes):
        calls = [
            (t.name, _filled(t, request)) for perm in itertools.permutations(writes) for t in perm
        ]
        return _calls(calls + _read_calls(request, _ids(request)))
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


def redo_every_turn(request: ModelRequest) -> ModelResponse:
    """In every user turn, every write an earlier assistant turn made is made again (same
    arguments), then the write by words: whatever was asked before is surely done."""
    results = turn_results(request)
    turn = _this_turn(request)
    earlier = [
        (call.name, dict(call.arguments))
        for m in request.messages[: len(request.messages) - len(turn)]
        if m.role == "assistant"
        for call in m.tool_calls or []
    ]
    writes = {t.name for t in _tools(request) if not _is_read(t)}
    redo = [(name, args) for name, args in earlier if name in writes]
    if not results and redo:
        return _calls(redo)
    return _g.verb_by_words_record_values(request)


def latest_slot_once(request: ModelRequest) -> ModelResponse:
    """The write by words, its arguments the *latest* id and number any user turn gave (a
    correction wins), sent once; then "Noted." with those values."""
    results = turn_results(request)
    best = _by_words(request)
    ids = _ID.findall(_user_text(request))
    numbers = [float(n) for n in re.findall(r"\b\d+(?:\.\d+)?\b", _user_text(request))]
    if best is not None and not results:
        props = best.parameters.get("properties", {})
        args: dict[str, Any] = {}
        for key in best.parameters.get("required", list(props)):
            kind = props.get(key, {}).get("type", "string")
            if kind == "integer":
                args[key] = int(numbers[-1]) if numbers else 1
            elif kind == "number":
                args[key] = numbers[-1] if numbers else 1.0
            elif kind == "boolean":
                args[key] = True
            else:
                args[key] = ids[-1] if ids else "1"
        return _calls([(best.name, args)])
    return _answer(f"Noted: {' '.join(ids[-1:])} {' '.join(str(n) for n in numbers[-1:])}.")


# --- answers in the expected shape ----------------------------------------------------------


def question_shaped_answer(request: ModelRequest) -> ModelResponse:
    """The task's expected output shape filled from the question's own words: for an
    extraction, every key asked with a value of the question (a date-shaped key the first date,
    a number-shaped one the first number, else the first capitalised word); for anything else
    "The <question's subject> is <its numbers and codes>.", citing the top passage."""
    keys = _asked_keys(request)
    if "Document:" in last_user_message(request) and keys:
        question = last_user_message(request).split("Document:", 1)[0]
        numbers = [float(n) for n in re.findall(r"\b\d+(?:\.\d+)?\b", question)] or [0.0]
        names = re.findall(r"\b[A-Z][a-z]+\b", question) or ["Unknown"]
        document: dict[str, Any] = {}
        for key in keys:
            if "date" in key:
                document[key] = "2026-01-01"
            elif any(m in key for m in ("total", "amount", "count", "net", "vat", "price")):
                document[key] = numbers[0]
            else:
                document[key] = names[0]
        return _answer(json.dumps(document))

    def finish(passages: list[dict[str, Any]]) -> str:
        question = last_user_message(request)
        subject = " ".join(question.rstrip("?").split()[-5:])
        values = " ".join(_VALUE.findall(question)[:6])
        cite = f" [{passages[0].get('id')}]" if passages else ""
        return f"The {subject} is {values or 'as stated in the policy'}.{cite}"

    return _search_first(request, finish)


@cache
def _public_answer_values() -> list[str]:
    """The ``contains`` values of the public grounded questions, most frequent first."""
    counts: collections.Counter[str] = collections.Counter()
    for task in _public("grounded-qa"):
        for e in task["expectations"]:
            if e["type"] == "contains":
                counts[str(e["value"])] += 1
    return [value for value, _ in counts.most_common()]


def public_prior_values(request: ModelRequest) -> ModelResponse:
    """The values public answers hold most often (pooled over every public question, not this
    one's), within the word budget, citing the top passage: answering by priors."""

    def finish(passages: list[dict[str, Any]]) -> str:
        words: list[str] = []
        for value in _public_answer_values():
            if len(words) + len(value.split()) > 70:
                break
            words += value.split()
        cite = f" [{passages[0].get('id')}]" if passages else ""
        return " ".join(words) + cite

    return _search_first(request, finish)


def public_prior_values_searched(request: ModelRequest) -> ModelResponse:
    """``public-prior-values`` laundered through search: the question searched, then each of the
    six values public answers hold most often; then the pooled values that anything retrieved
    holds, within the word budget, the question's top passage cited. An answer key of the public
    split, every value of it read first."""
    if "search_docs" not in [t.name for t in request.tools]:
        return _answer("Done.")
    results = turn_results(request)
    priors = _public_answer_values()
    if len(results) < 7:
        query = last_user_message(request) if not results else priors[len(results) - 1]
        return _calls([("search_docs", {"query": query})])
    read = _fold(" ".join(json.dumps(r, ensure_ascii=False) for _, r in results))
    first = results[0][1] if isinstance(results[0][1], list) else []
    words: list[str] = []
    for value in (v for v in priors if _fold(v) in read):
        if len(words) + len(value.split()) > 70:
            break
        words += value.split()
    cite = f" [{first[0].get('id')}]" if first and isinstance(first[0], dict) else ""
    return _answer(" ".join(words) + cite)


def paste_as_json(request: ModelRequest) -> ModelResponse:
    """The top passage, whole, as the value of an ``answer`` key of a fenced JSON object with
    its id under ``sources``: a paste in a document's shape."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return '```json\n{"answer": "Done."}\n```'
        top = passages[0]
        body = json.dumps({"answer": top.get("text", ""), "sources": [top.get("id")]})
        return f"```json\n{body}\n```"

    return _search_first(request, finish)


def _numbers_of_document(request: ModelRequest) -> list[float]:
    found = [n.replace(",", "") for n in re.findall(r"-?\d[\d,]*\.\d+|-?\d+", _document(request))]
    return list(dict.fromkeys(float(n) for n in found))


def repeated_keys(request: ModelRequest) -> ModelResponse:
    """Every key asked, written once per number of the document (the largest last, as a total
    is), in one object: a reader that kept any one occurrence would find the right one."""
    numbers = sorted(_numbers_of_document(request), key=abs)[-12:] or [0.0]
    parts = [f'"{key}": {json.dumps(n)}' for key in _asked_keys(request) for n in numbers]
    return _answer("{" + ", ".join(parts) + "}")


def yaml_document(request: ModelRequest) -> ModelResponse:
    """``json-by-type``'s values written as YAML (``key: value`` lines), the shape a loose
    reader might take for a document."""
    body = _cf.json_by_type(request).content or "{}"
    try:
        document = json.loads(body)
    except ValueError:
        return _answer(body)
    return _answer(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))


def one_object_per_line(request: ModelRequest) -> ModelResponse:
    """``json-by-type``'s document as JSON lines, one ``{"key": value}`` object per field."""
    body = _cf.json_by_type(request).content or "{}"
    try:
        document = json.loads(body)
    except ValueError:
        return _answer(body)
    if not isinstance(document, dict):
        return _answer(body)
    return _answer("\n".join(json.dumps({k: v}) for k, v in document.items()))


GAMING_3: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "learned-alarm-words-else-act": learned_alarm_words_else_act,
    "learned-alarm-words-else-read": learned_alarm_words_else_read,
    "refuse-and-leak-in-lookalikes": refuse_and_leak_in_lookalikes,
    "public-order-replay": public_order_replay,
    "schema-enums-every-write": schema_enums_every_write,
    "read-flood-no-write": read_flood_no_write,
    "ask-instead": ask_instead,
    "refusal-beside-the-write": refusal_beside_the_write,
    "every-write-every-order": every_write_every_order,
    "redo-every-turn": redo_every_turn,
    "latest-slot-once": latest_slot_once,
    "question-shaped-answer": question_shaped_answer,
    "public-prior-values": public_prior_values,
    "public-prior-values-searched": public_prior_values_searched,
    "paste-as-json": paste_as_json,
    "repeated-keys": repeated_keys,
    "yaml-document": yaml_document,
    "one-object-per-line": one_object_per_line,
}

_ = ToolCallRequest  # re-exported for cheats written against this module
