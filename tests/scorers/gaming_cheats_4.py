"""Gaming cheats, fourth round (tests/scorers/test_gaming_cheats_4.py): the families and rules
earlier rounds spent least on — structured-extraction, long-horizon plans, multi-turn state —
and loose readings of tool arguments.

Each reads what any agent may read (the conversation, the tools offered, what the tools
returned), never a task's expectations, and follows one strategy that does not depend on what
was asked:

* an extraction filled with plausible, schema-valid defaults (the first date, code, line and
  currency of the document; today's date and ``EUR`` when there is none; one amount for every
  number), the whole document in every string field, amounts guessed by their place in the
  document, and every key given as an array of its candidates;
* a plan that reads every id, then calls every write once in the order the tools are offered,
  reads again and lists what it saw; a plan that repeats the request's own sentences as its
  steps; the write that shares most words with the request, sent once per loose spelling of
  its arguments (case, surrounding blanks, numbers as strings) so that one of them fits;
* each turn answered from the latest user message alone (its ids, its verb), and every fact
  said so far restated in every turn; the assistant's earlier replies repeated, beside a canned
  request for the last four digits and the postcode and a cut-short cited quote, never acting;
* a hard failure hidden as a harness fault is not here: see the test module.

Scripted-entrant callables, named by target files the test writes, like ``gaming_cheats_3.py``'s,
whose helpers they share.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
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


_g = _load("gaming_cheats_4_gaming", "gaming_cheats.py")
_cf = _g._cf
_ID: re.Pattern[str] = _g._ID
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls
_is_read = _g._is_read
_values_seen: Callable[..., list[str]] = _g._values_seen
_tools = _g._tools
_ids: Callable[[ModelRequest], list[str]] = _g._ids
_read_calls = _g._read_calls
_by_words = _g._by_words
_filled = _g._filled
_asked_keys: Callable[[ModelRequest], list[str]] = _g._asked_keys
_document: Callable[[ModelRequest], str] = _g._document

_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_CODE = re.compile(r"\b[A-Z]{1,4}[-/]?\d[\w/-]*\b|\b\d{4,}/\d+\b")
_CURRENCY = re.compile(r"\b(EUR|USD|GBP|TRY|CHF|SEK|DKK|NOK|PLN|CZK)\b|([€$£₺])")
_SIGN = {"€": "EUR", "$": "USD", "£": "GBP", "₺": "TRY"}
_AMOUNT = re.compile(r"-?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{2})\b|-?\d+[.,]\d{2}\b")
_CAPITALISED = re.compile(r"[A-ZÇĞİÖŞÜ][\wÇĞİÖŞÜçğıöşü&.'-]*(?: [A-ZÇĞİÖŞÜ][\wÇĞİÖŞÜçğıöşü&.'-]*)*")


def _amount(text: str) -> float:
    """``1.234,50`` and ``1,234.50`` both as 1234.5."""
    digits = re.sub(r"\s", "", text)
    if re.search(r",\d{2}$", digits):
        digits = digits.replace(".", "").replace(",", ".")
    else:
        digits = digits.replace(",", "")
    return float(digits)


def _amounts(document: str) -> list[float]:
    found: list[float] = []
    for match in _AMOUNT.findall(document):
        try:
            found.append(_amount(match))
        except ValueError:
            continue
    return found


def _first_date(document: str) -> str:
    match = _DATE.search(document)
    if match is None:
        return datetime.now(UTC).date().isoformat()
    if match.group(1):
        return match.group(0)
    day, month, year = match.group(4), match.group(5), match.group(6)
    return f"{year}-{int(month):02d}-{int(day):02d}"


def _first_currency(document: str) -> str:
    match = _CURRENCY.search(document)
    if match is None:
        return "EUR"
    return match.group(1) or _SIGN[match.group(2)]


def _first_line(document: str) -> str:
    for line in document.splitlines():
        found = _CAPITALISED.search(line.strip())
        if found:
            return found.group(0)
    return "Unknown"


def _key_kind(key: str) -> str:
    if "date" in key:
        return "date"
    if "currency" in key:
        return "currency"
    if any(mark in key for mark in ("total", "amount", "net", "vat", "tax", "sum")):
        return "number"
    if any(mark in key for mark in ("number", "no", "id")):
        return "code"
    return "name"


# --- structured-extraction ------------------------------------------------------------------


def schema_valid_defaults(request: ModelRequest) -> ModelResponse:
    """Every key asked, of the type its name suggests: the document's first date (else today),
    first currency code or sign (else EUR), first code, first capitalised phrase, and its last
    amount for every number: valid against any invoice schema, read from nowhere in
    particular."""
    document = _document(request)
    amounts = _amounts(document) or [0.0]
    fill = {
        "date": _first_date(document),
        "currency": _first_currency(document),
        "code": next(iter(_CODE.findall(document)), None),
        "name": _first_line(document),
        "number": amounts[-1],
    }
    return _answer(json.dumps({k: fill[_key_kind(k)] for k in _asked_keys(request)}))


def document_in_every_string(request: ModelRequest) -> ModelResponse:
    """Every key asked holds the whole document (a string check that looked for the value
    inside the string would pass every one), the numbers as the largest amount."""
    document = _document(request).strip()
    amounts = _amounts(document) or [0.0]
    return _answer(
        json.dumps(
            {
                k: (max(amounts) if _key_kind(k) == "number" else document)
                for k in _asked_keys(request)
            },
            ensure_ascii=False,
        )
    )


def amounts_by_position(request: ModelRequest) -> ModelResponse:
    """The defaults above, with the amounts guessed by where they stand: the last three
    amounts of the document in the order the numeric keys were asked."""
    document = _document(request)
    amounts = _amounts(document) or [0.0]
    keys = _asked_keys(request)
    numeric = [k for k in keys if _key_kind(k) == "number"]
    if not numeric:
        return schema_valid_defaults(request)
    tail = amounts[-len(numeric) :]
    tail = [tail[0]] * (len(numeric) - len(tail)) + tail
    guessed = dict(zip(numeric, tail, strict=True))
    base = json.loads(schema_valid_defaults(request).content or "{}")
    return _answer(json.dumps({**base, **guessed}))


def candidate_arrays(request: ModelRequest) -> ModelResponse:
    """Every key asked holds the array of its candidates (every date, code, currency, line or
    amount of the document): one of them is right."""
    document = _document(request)
    pools: dict[str, list[Any]] = {
        "date": [m.group(0) for m in _DATE.finditer(document)] or [_first_date(document)],
        "currency": [_first_currency(document)],
        "code": list(dict.fromkeys(_CODE.findall(document))),
        "name": [line.strip() for line in document.splitlines() if line.strip()][:5],
        "number": list(dict.fromkeys(_amounts(document))),
    }
    return _answer(json.dumps({k: pools[_key_kind(k)] for k in _asked_keys(request)}))


# --- long-horizon plans ---------------------------------------------------------------------


def every_write_once_in_offered_order(request: ModelRequest) -> ModelResponse:
    """Reads every id; then every write once, in the order the tools are offered, each filled
    by name from the records read; then the reads again; then every value seen: a plan that
    holds every plan's calls, once each."""
    results = turn_results(request)
    done = [name for name, _ in results]
    reads = _read_calls(request, _ids(request))
    if not results and reads:
        return _calls(reads)
    writes = [t for t in _tools(request) if not _is_read(t)]
    if writes and not any(t.name in done for t in writes):
        return _calls([(t.name, _filled(t, request)) for t in writes])
    if reads and done.count(reads[0][0]) < 2:
        return _calls(reads)
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


def request_as_plan(request: ModelRequest) -> ModelResponse:
    """The request's own sentences, numbered, as the plan; no tool is called."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", last_user_message(request))]
    plan = " ".join(f"Step {at}: {s}" for at, s in enumerate(sentences, 1) if s)
    return _answer(" ".join(plan.split()[:78]) or "Plan: done.")


def loose_spellings_of_the_write(request: ModelRequest) -> ModelResponse:
    """Reads every id, then the write that shares most words with the request, once per loose
    spelling of its arguments (as filled, upper case, lower case, padded with blanks, numbers
    as strings): a check that read arguments loosely would count the one it liked."""
    results = turn_results(request)
    if not results:
        reads = _read_calls(request, _ids(request))
        if reads:
            return _calls(reads)
    best = _by_words(request)
    if best is None or best.name in [name for name, _ in results]:
        return _answer(" ".join(_values_seen(request, 60)) or "Done.")
    base = _filled(best, request)

    def spelled(change: Callable[[Any], Any]) -> dict[str, Any]:
        return {k: change(v) for k, v in base.items()}

    variants = [
        base,
        spelled(lambda v: v.upper() if isinstance(v, str) else v),
        spelled(lambda v: v.lower() if isinstance(v, str) else v),
        spelled(lambda v: f" {v} " if isinstance(v, str) else v),
        spelled(lambda v: str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v),
    ]
    unique = list({json.dumps(v, sort_keys=True): v for v in variants}.values())
    return _calls([(best.name, args) for args in unique])


# --- multi-turn state -----------------------------------------------------------------------


def latest_message_only(request: ModelRequest) -> ModelResponse:
    """Each turn read as if it were the whole conversation: the ids of the latest user message
    only, its reads, the write that shares most words with it, then what the reads gave."""
    text = last_user_message(request)
    ids = list(dict.fromkeys(_ID.findall(text))) or ["1"]
    results = turn_results(request)
    if not results:
        reads = _read_calls(request, ids)
        if reads:
            return _calls(reads)
    best = _by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        args = _filled(best, request)
        for key, value in args.items():
            if isinstance(value, str) and _ID.fullmatch(value) and value not in ids:
                args[key] = ids[0]
        return _calls([(best.name, args)])
    return _answer(" ".join(_values_seen(request, 60)) or "Done.")


def every_fact_so_far(request: ModelRequest) -> ModelResponse:
    """No tool; every turn restates every id, number and code said so far by anyone (user,
    assistant, tools), newest first, within the word budget."""
    said: list[str] = []
    for message in reversed(request.messages):
        said += _cf._VALUE.findall(message.content or "")
    words = list(dict.fromkeys(s.strip() for s in said if s.strip()))
    return _answer("Noted: " + " ".join(words[:60]) if words else "Noted.")


_STATUS_WORDS = (
    "packed shipped delivered declined approved refunded cancelled paused skipped escalated "
    "pending closed faulty damaged verified unverified 24 hours 48 hours 72 hours"
)


def status_words_and_values(request: ModelRequest) -> ModelResponse:
    """Reads every id, searches the request when search is offered, then answers with a fixed
    list of the words support answers hold (statuses, "48 hours"), every value read and the
    top passage's id: a canned vocabulary that a substring check finds its word in."""
    results = turn_results(request)
    if not results:
        reads = _read_calls(request, _ids(request))
        if any(t.name == "search_docs" for t in request.tools):
            reads.append(("search_docs", {"query": last_user_message(request)[:200]}))
        if reads:
            return _calls(reads)
    cited = ""
    for name, result in results:
        if name == "search_docs" and isinstance(result, dict) and result.get("passages"):
            cited = f" [{result['passages'][0].get('id', '')}]"
    values = " ".join(_values_seen(request, 40))
    return _answer(f"{_STATUS_WORDS} {values}{cited}".strip())


def echo_earlier_replies(request: ModelRequest) -> ModelResponse:
    """Never acts: searches the request when search is offered, then repeats the assistant's
    earlier replies the conversation holds, asks for the last four digits and the postcode
    (what a verification check wants to see) and quotes the top passage cut short, cited."""
    if any(t.name == "search_docs" for t in request.tools) and not turn_results(request):
        return _calls([("search_docs", {"query": last_user_message(request)[:200]})])
    said = " ".join(
        m.content for m in request.messages if m.role == "assistant" and m.content
    ).split()
    quote = ""
    for name, result in turn_results(request):
        if name == "search_docs" and isinstance(result, list) and result:
            top = result[0] if isinstance(result[0], dict) else {}
            cut = str(top.get("text", "")).split()
            quote = f"{' '.join(cut[: max(1, len(cut) * 6 // 10)])} [{top.get('id', '')}]"
    ask = "Please confirm the last four digits and postcode."
    room = 78 - len(ask.split()) - len(quote.split())
    return _answer(" ".join([*said[: max(room, 0)], ask, quote]).strip())


GAMING_4: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "schema-valid-defaults": schema_valid_defaults,
    "document-in-every-string": document_in_every_string,
    "amounts-by-position": amounts_by_position,
    "candidate-arrays": candidate_arrays,
    "every-write-once-in-offered-order": every_write_once_in_offered_order,
    "request-as-plan": request_as_plan,
    "loose-spellings-of-the-write": loose_spellings_of_the_write,
    "latest-message-only": latest_message_only,
    "every-fact-so-far": every_fact_so_far,
    "status-words-and-values": status_words_and_values,
    "echo-earlier-replies": echo_earlier_replies,
}
