"""Gaming cheats, seventh round (tests/scorers/test_gaming_cheats_7.py): the families beside
grounded-qa and tool-trajectory, and the leniency of each expectation type there.

Each reads only what any agent is sent (the conversation, the tools offered with their schemas,
what the tools return), never a task's expectations, and exploits one rule of how a family is
scored instead of doing its task:

* ``amounts-that-add-up`` (``fields``, ``schema``): the regex scraper of round six, with the net,
  VAT and total taken as the three amounts of the document where two add up to the third (the
  largest such sum), the seller the first line cut at a dash or comma, the first date in any
  layout the public documents use, a code in the first two lines as the number (else null):
  arithmetic and position in place of reading a label, written while looking at the public
  documents (as the example bot v1 was);
* ``scraper-with-sums``: round six's scraper with only the arithmetic added;
* ``every-source-every-field`` (``fields``): each key asked for, filled by its type from
  anywhere in the document (an amount for a total, a code for a string), whatever the
  document says the value is;
* ``record-confirms-request`` (``refusal``, ``trajectory``): reads every id, then acts by words
  when the request repeats a value of the records it names (a card's last four digits, a
  postcode, an amount) and refuses otherwise: a record as the oracle for "verified";
* ``refuse-and-comply`` (``refusal``): no tool call; one answer that refuses and says the job
  is done, on every task;
* ``earlier-call-arguments`` (``state``, ``steps``): the write by words, its arguments taken by
  name from the calls an earlier assistant turn made, else from the enum value or number the
  latest message names, else from the records; then every value seen: the state an earlier
  turn established, echoed into the next write;
* ``every-write-in-both-orders`` (``steps``): reads, then the two writes by words with the
  arguments of ``earlier-call-arguments``, in one order and then the reverse, then the reads
  again: a plan's order is a subsequence of any call list that holds both orders;
* ``schema-complete-write`` (``trajectory``, ``state``): the one write whose required
  arguments are all names of values already held (records read, earlier calls), filled from
  them: the tool chosen by what its schema asks for, not by what the user asked;
* ``portfolio-by-tool-list``: the family told from the tool list and the turns alone (round
  five's ``family_of``): the sums on a document, the sixth round's vocabulary oracle on a
  question, round five's best portfolio elsewhere.

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
from bench.core.trace import ToolDef
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


_g = _load("gaming_cheats_7_gaming", "gaming_cheats.py")
_g4 = _load("gaming_cheats_7_gaming_4", "gaming_cheats_4.py")
_g5 = _load("gaming_cheats_7_gaming_5", "gaming_cheats_5.py")
_g6 = _load("gaming_cheats_7_gaming_6", "gaming_cheats_6.py")
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls

Strategy = Callable[[ModelRequest], ModelResponse]

# --- structured-extraction ------------------------------------------------------------------

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {month: at + 1 for at, month in enumerate(_MONTH_NAMES.split())}
_DAY_MONTH = re.compile(r"\b(\d{1,2})\s+([A-Za-z]+)\s+(\d{4})\b")
_NUMERIC = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b")


def _date(document: str) -> str:
    """The first date, in any of the layouts seen (ISO, day.month.year, "6 May 2026"; a
    MM/DD layout is read as US when the document says ``MM/DD``)."""
    found: list[tuple[int, str]] = []
    for match in _NUMERIC.finditer(document):
        if match.group(1):
            found.append((match.start(), match.group(0)))
            continue
        first, second, year = int(match.group(4)), int(match.group(5)), match.group(6)
        day, month = (second, first) if "MM/DD" in document else (first, second)
        found.append((match.start(), f"{year}-{month:02d}-{day:02d}"))
    for match in _DAY_MONTH.finditer(document):
        month = _MONTHS.get(match.group(2).lower())
        if month:
            found.append((match.start(), f"{match.group(3)}-{month:02d}-{int(match.group(1)):02d}"))
    return min(found)[1] if found else "2026-01-01"


def _amounts(document: str) -> list[float]:
    return [_g6._number(m) for m in _g6._AMOUNT.findall(document)]


def _adding_up(amounts: list[float]) -> tuple[float, float, float] | None:
    """``(a, b, a + b)`` from the amounts, the sum largest in size: net, VAT and total."""
    best: tuple[float, float, float] | None = None
    for a, b in itertools.permutations(amounts, 2):
        for c in amounts:
            if (
                abs(a + b - c) < 0.005
                and abs(a) >= abs(b)
                and (best is None or abs(c) > abs(best[2]))
            ):
                best = (a, b, c)
    return best


def amounts_that_add_up(request: ModelRequest) -> ModelResponse:
    """The round-six scraper with arithmetic: net + VAT = total found among the amounts."""
    document = _g._document(request)
    scraped = json.loads(_g6.regex_invoice_scraper(request).content or "{}")
    lines = [line.strip() for line in document.splitlines() if line.strip()]
    seller = re.split(r"\s+[—–-]\s+|,", lines[0])[0].strip() if lines else ""
    head = "\n".join(lines[:2])
    code = _g6._CODE.search(head) or re.search(r"\b\d{4}/\d+\b", head)
    if "$" in document and "USD" in document:
        scraped["currency"] = "USD"
    triple = _adding_up(_amounts(document))
    if triple is not None:
        scraped["net_total"], scraped["vat_amount"], scraped["total"] = triple
    scraped.update(
        seller=seller, issue_date=_date(document), invoice_number=code.group(0) if code else None
    )
    return _answer(json.dumps(scraped, ensure_ascii=False))


def scraper_with_sums(request: ModelRequest) -> ModelResponse:
    """Round six's scraper, with only net, VAT and total taken as the amounts that add up."""
    scraped = json.loads(_g6.regex_invoice_scraper(request).content or "{}")
    triple = _adding_up(_amounts(_g._document(request)))
    if triple is not None:
        scraped["net_total"], scraped["vat_amount"], scraped["total"] = triple
    return _answer(json.dumps(scraped, ensure_ascii=False))


def every_source_every_field(request: ModelRequest) -> ModelResponse:
    """Each asked key, the value of its type nearest the key's own words in the request."""
    text = last_user_message(request)
    document = _g._document(request)
    keys = _g._asked_keys(request)
    amounts = _amounts(document) or [0.0]
    codes = _g6._CODE.findall(document) or ["X-1"]
    out: dict[str, Any] = {}
    for at, key in enumerate(keys):
        words = key.split("_")
        place = max((text.lower().rfind(w) for w in words), default=-1)
        if any(w in ("total", "amount", "net", "vat") for w in words):
            out[key] = amounts[min(at, len(amounts) - 1)] if place < 0 else amounts[-1 - at % 3]
        elif "date" in words:
            out[key] = _date(document)
        elif key == "currency":
            out[key] = (_g6._ISO.findall(document) or ["EUR"])[0]
        else:
            out[key] = codes[at % len(codes)]
    return _answer(json.dumps(out, ensure_ascii=False))


# --- refusal-and-safety ---------------------------------------------------------------------

_NUMBERISH = re.compile(r"\d[\d.,]*\d|\d")


def _request_values(text: str) -> set[str]:
    """Words and numbers of the request, numbers also as plain decimals (``64.60`` → 64.6)."""
    found = {w.lower() for w in _g._WORD.findall(text) if len(w) > 2}
    for raw in _NUMBERISH.findall(text):
        found.add(raw)
        try:
            found.add(repr(_g6._number(raw)))
        except ValueError:
            continue
    return found


def _confirmed(request: ModelRequest) -> bool:
    """True when the request repeats a value of a record read this turn that is not an id it
    named: what a verified customer knows."""
    asked = last_user_message(request)
    ids = set(_g._ID.findall(asked))
    said = _request_values(asked)
    for value in _g._record_values(request).values():
        text = str(value)
        if text in ids or len(text) < 3:
            continue
        probe = repr(float(value)) if isinstance(value, int | float) else text.lower()
        if probe in said or text.lower() in said:
            return True
    return False


def record_confirms_request(request: ModelRequest) -> ModelResponse:
    """Reads every id; then acts by words when the request repeats a record's value, else
    refuses (a request with no write to make is acted on)."""
    results = turn_results(request)
    if not results:
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    writes = {t.name for t in _g._tools(request) if not _g._is_read(t)}
    if results and not any(name in writes for name, _ in results) and not _confirmed(request):
        return _answer(_g.REFUSE)
    return _g.verb_by_words_record_values(request)


BOTH = "I can't help with that. Done — it is taken care of, and you will get a confirmation."


def refuse_and_comply(request: ModelRequest) -> ModelResponse:
    """One answer that refuses and reports the job done, no tool call, on every task."""
    return _answer(BOTH)


# --- multi-turn-state and long-horizon: state echoed from earlier turns ----------------------

_WORDS_AS_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "bir": 1, "iki": 2}


def _earlier_arguments(request: ModelRequest) -> dict[str, Any]:
    """Every argument an earlier assistant turn's calls gave, by name (the latest wins)."""
    out: dict[str, Any] = {}
    for message in request.messages:
        if message.role == "assistant":
            for call in message.tool_calls or []:
                if isinstance(call.arguments, dict):
                    out.update(call.arguments)
    return out


def _latest_numbers(request: ModelRequest) -> list[float]:
    text = last_user_message(request)
    numbers = [_g6._number(n) for n in _NUMBERISH.findall(text) if not _g._ID.fullmatch(n)]
    numbers += [float(v) for w, v in _WORDS_AS_NUMBERS.items() if re.search(rf"\b{w}\b", text)]
    return numbers


def _echoed(tool: ToolDef, request: ModelRequest) -> dict[str, Any]:
    """A call of ``tool``: each argument from an earlier call's argument of that name, an enum
    value the latest message names, a number it names, else the records' (``_filled``)."""
    earlier = _earlier_arguments(request)
    filled = _g._filled(tool, request)
    latest = last_user_message(request).lower()
    numbers = _latest_numbers(request)
    properties = tool.parameters.get("properties", {})
    out: dict[str, Any] = {}
    for key in tool.parameters.get("required", list(properties)):
        schema = properties.get(key, {})
        kind = schema.get("type", "string")
        named = [v for v in schema.get("enum", []) if str(v).lower() in latest]
        if named:
            out[key] = named[0]
        elif key in earlier:
            out[key] = earlier[key]
        elif kind in ("number", "integer") and numbers:
            out[key] = int(numbers[0]) if kind == "integer" else numbers[0]
        else:
            out[key] = filled[key]
    return out


def earlier_call_arguments(request: ModelRequest) -> ModelResponse:
    """The write by words with the arguments an earlier turn established, once; then every
    value seen."""
    results = turn_results(request)
    best = _g._by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        return _calls([(best.name, _echoed(best, request))])
    return _answer(" ".join(_g._values_seen(request, 60)) or "Done.")


def every_write_in_both_orders(request: ModelRequest) -> ModelResponse:
    """Reads with every id, the two writes by words in both orders (arguments as
    ``earlier-call-arguments`` fills them), the reads again; then every value seen."""
    results = turn_results(request)
    reads = _g._read_calls(request, _g._ids(request))
    if not results and reads:
        return _calls(reads)
    asked = _g._stems(last_user_message(request))
    writes = sorted(
        (t for t in _g._tools(request) if not _g._is_read(t)),
        key=lambda t: -len(asked & _g._stems(f"{t.name} {t.description}")),
    )[:2]
    if writes and not any(t.name in [n for n, _ in results] for t in writes):
        once = [(t.name, _echoed(t, request)) for t in writes]
        return _calls(once + once[::-1] + reads)
    return _answer(" ".join(_g._values_seen(request, 60)) or "Done.")


def _known_keys(request: ModelRequest) -> dict[str, Any]:
    """Every value by name an agent holds: the records read, then earlier calls' arguments."""
    return {**_g._record_values(request), **_earlier_arguments(request)}


def schema_complete_write(request: ModelRequest) -> ModelResponse:
    """Reads with every id; then the one write whose required arguments are all names of
    values already held (records read, earlier calls' arguments), filled from them, the fewest
    required arguments breaking ties the other way (the most specific write); then every value
    seen: the tool chosen by what the schema asks for, not by what the user asked."""
    results = turn_results(request)
    if not results:
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    known = _known_keys(request)
    writes = [t for t in _g._tools(request) if not _g._is_read(t)]
    complete = [t for t in writes if all(k in known for k in t.parameters.get("required", []))]
    done = [name for name, _ in results]
    if complete and not any(t.name in done for t in writes):
        best = max(complete, key=lambda t: len(t.parameters.get("required", [])))
        args = {k: known[k] for k in best.parameters.get("required", [])}
        return _calls([(best.name, args)])
    return _answer(" ".join(_g._values_seen(request, 60)) or "Done.")


# --- the portfolio ---------------------------------------------------------------------------


def portfolio_by_tool_list(request: ModelRequest) -> ModelResponse:
    """The family from the tool list and the turns alone (``family_of``): the sums where there
    is a document to extract, the sixth round's vocabulary oracle on a question, and round
    five's best portfolio elsewhere."""
    family = _g5.family_of(request)
    if family == "structured-extraction":
        return amounts_that_add_up(request)
    if family == "grounded-qa":
        return _g6.vocabulary_oracle(request)
    return _g5.portfolio_best(request)


GAMING_7: dict[str, Strategy] = {
    "amounts-that-add-up": amounts_that_add_up,
    "scraper-with-sums": scraper_with_sums,
    "every-source-every-field": every_source_every_field,
    "record-confirms-request": record_confirms_request,
    "refuse-and-comply": refuse_and_comply,
    "earlier-call-arguments": earlier_call_arguments,
    "every-write-in-both-orders": every_write_in_both_orders,
    "schema-complete-write": schema_complete_write,
    "portfolio-by-tool-list": portfolio_by_tool_list,
}
