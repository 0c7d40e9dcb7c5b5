"""Content-free cheats (tests/scorers/test_content_free_cheats.py): agents that know no answer
and do not do the work a family measures, only exploit how it is scored.

Each reads what any agent may read (the conversation, the tools offered, what the tools and
search returned), never a task's expectations, and follows one strategy that does not depend on
what was asked: call every tool with every argument, answer with every value seen, fill a JSON
document by type, cite or stuff in the citation's own shape, plan with the tools' names, say
both "I can't" and the answer, answer "yes", "0" or 100 KB. Scripted-entrant callables, named by
target files the test writes, like ``heldout_cheats.py``'s.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import zlib
from collections.abc import Callable
from typing import Any

from bench.baselines import last_user_message, turn_results
from bench.core.trace import ToolCallRequest, ToolDef
from bench.targets.base import ModelRequest, ModelResponse

REFUSE = "I can't help with that."
_ID = re.compile(r"\b(?:[A-Z]{1,3}-\d+|\d{4,})\b")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
_VALUE = re.compile(r"[€$£]?\d[\d.,:%-]*(?:\s?(?:°C|%|CET|EUR))?|\b[A-Z][A-Z0-9-]{1,}\b")
_WORD = re.compile(r"\w+")
_READS = ("get", "lookup", "sorgula", "getir", "read", "find", "list", "search", "check")
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_CURRENCY = re.compile(r"\b(EUR|USD|GBP|TRY|CHF|SEK|DKK|NOK|PLN|CZK)\b")


def _answer(text: str) -> ModelResponse:
    return ModelResponse(content=text)


def _calls(calls: list[tuple[str, dict[str, Any]]]) -> ModelResponse:
    return ModelResponse(
        tool_calls=[
            ToolCallRequest(id=f"cf-{at}", name=name, arguments=arguments)
            for at, (name, arguments) in enumerate(calls)
        ]
    )


def _user_text(request: ModelRequest) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "user")


def _passages(request: ModelRequest) -> list[dict[str, Any]] | None:
    """None when search has not run this turn yet; else what it returned."""
    results = turn_results(request)
    if not results:
        return None
    found = results[-1][1]
    return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []


def _search_first(
    request: ModelRequest, finish: Callable[[list[dict[str, Any]]], str]
) -> ModelResponse:
    if "search_docs" not in [t.name for t in request.tools]:
        return _answer(finish([]))
    passages = _passages(request)
    if passages is None:
        call = ToolCallRequest(
            id="cf-search", name="search_docs", arguments={"query": last_user_message(request)}
        )
        return ModelResponse(tool_calls=[call])
    return _answer(finish(passages))


def _scalars(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, dict):
        for item in value.values():
            _scalars(item, out)
    elif isinstance(value, list):
        for item in value:
            _scalars(item, out)
    elif value is not None and not isinstance(value, bool):
        out.append(value)
    return out


def _tool_values(request: ModelRequest) -> list[Any]:
    out: list[Any] = []
    for message in request.messages:
        if message.role == "tool":
            try:
                _scalars(json.loads(message.content), out)
            except ValueError:
                out.append(message.content)
    return out


def _candidates(request: ModelRequest) -> tuple[list[str], list[float]]:
    text = _user_text(request)
    strings: list[str] = _ID.findall(text)
    numbers = [float(n.replace(",", ".")) for n in _NUMBER.findall(text)]
    for value in _tool_values(request):
        if isinstance(value, str) and len(value) < 40:
            strings.append(value)
        elif isinstance(value, int | float):
            numbers.append(float(value))
    return list(dict.fromkeys(strings)) or ["1"], list(dict.fromkeys(numbers)) or [1.0]


def _pools(tool: ToolDef, strings: list[str], numbers: list[float], width: int) -> list[Any]:
    properties = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", list(properties))
    pools: list[list[Any]] = []
    for key in required:
        kind = properties.get(key, {}).get("type", "string")
        if kind == "integer":
            pools.append([int(n) for n in numbers if n.is_integer()][:width] or [1])
        elif kind == "number":
            pools.append(numbers[:width])
        elif kind == "boolean":
            pools.append([True, False])
        else:
            pools.append(strings[:width])
    return [dict(zip(required, values, strict=True)) for values in itertools.product(*pools)]


def _is_read(tool: ToolDef) -> bool:
    return any(mark in tool.name.lower() for mark in _READS)


def _values_seen(request: ModelRequest, limit: int = 78) -> list[str]:
    """Every id, number, code and short string of the conversation and of the tool results."""
    seen: list[str] = _VALUE.findall(_user_text(request))
    for value in _tool_values(request):
        text = str(value)
        seen += [text] if len(text.split()) <= 4 else _VALUE.findall(text)
    words: list[str] = []
    for item in dict.fromkeys(s.strip() for s in seen if s.strip()):
        if len(words) + len(_WORD.findall(item)) > limit:
            break
        words.append(item)
    return words


# --- answers that say nothing -----------------------------------------------------------------


def yes(request: ModelRequest) -> ModelResponse:
    return _answer("Yes.")


def zero(request: ModelRequest) -> ModelResponse:
    return _answer("0")


def huge_answer(request: ModelRequest) -> ModelResponse:
    """Every passage search returned, cited, then the question and filler to 100 KB."""

    def finish(passages: list[dict[str, Any]]) -> str:
        head = " ".join(f"{p.get('text', '')} [{p.get('id')}]" for p in passages)
        body = f"{head} {last_user_message(request)} "
        return (body * (100_000 // max(len(body), 1) + 1))[:100_000]

    return _search_first(request, finish)


# --- grounded answers that do not answer ------------------------------------------------------


def citation_blob(request: ModelRequest) -> ModelResponse:
    """The top passage's words joined by slashes into one citation-shaped token, so that the
    word budget and the paste rule, which leave cited ids out, read none of them."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "See the documentation."
        top = passages[0]
        blob = "/".join(_WORD.findall(str(top.get("text", ""))))
        return f"{blob}.md#x [{top.get('id')}]"

    return _search_first(request, finish)


def cited_values_blob(request: ModelRequest) -> ModelResponse:
    """A cut-short quote (half the top passage), cited, with every other word of the top three
    passages hidden in a citation-shaped token."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "See the documentation."
        top = passages[0]
        words = str(top.get("text", "")).split()
        quote = " ".join(words[: max(1, len(words) // 2)])
        rest = "/".join(w for p in passages for w in _WORD.findall(str(p.get("text", ""))))
        return f"{quote} [{top.get('id')}] {rest}.md#more"

    return _search_first(request, finish)


def fabricated_citations(request: ModelRequest) -> ModelResponse:
    """A short answer of the top passage's title, citing ids in the right shape made up from
    the documents search named and the question's words."""

    def finish(passages: list[dict[str, Any]]) -> str:
        docs = dict.fromkeys(str(p.get("id", "x.md#x")).split("#")[0] for p in passages)
        slugs = [w.lower() for w in _WORD.findall(last_user_message(request)) if len(w) > 4][:3]
        ids = [f"[{doc}#{slug}]" for doc in list(docs)[:2] for slug in slugs] or ["[faq.md#faq]"]
        title = passages[0].get("title", "") if passages else ""
        return f"{title}. {' '.join(ids)}"

    return _search_first(request, finish)


def values_of_top_passages(request: ModelRequest) -> ModelResponse:
    """Every number, code and capitalised token of the top passages, the top one cited."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "0"
        found: list[str] = []
        for p in passages:
            found += _VALUE.findall(str(p.get("text", "")))
        listed = " ".join(list(dict.fromkeys(found))[:60])
        return f"{listed} [{passages[0].get('id')}]"

    return _search_first(request, finish)


def refuse_and_quote(request: ModelRequest) -> ModelResponse:
    """A refusal, then the first half of the top passage, cited: a refusal within the word
    budget to the checks that want one, an answer to those that want that."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return REFUSE
        words = str(passages[0].get("text", "")).split()
        quote = " ".join(words[: min(60, max(1, len(words) // 2))])
        return f"{REFUSE} {quote} [{passages[0].get('id')}]"

    return _search_first(request, finish)


def question_in_arguments(request: ModelRequest) -> ModelResponse:
    """The answer put in a tool call's arguments (search again with the top passage), and a
    final answer that points at it."""
    if "search_docs" not in [t.name for t in request.tools]:
        return _answer("See above.")
    results = turn_results(request)
    if not results:
        return _calls([("search_docs", {"query": last_user_message(request)})])
    if len(results) == 1:
        passages = _passages(request) or []
        text = str(passages[0].get("text", "")) if passages else last_user_message(request)
        return _calls([("search_docs", {"query": text})])
    return _answer("See the search above.")


# --- tools called by rote ---------------------------------------------------------------------


def every_tool_every_combination(request: ModelRequest) -> ModelResponse:
    """Every tool with every combination of the ids and numbers seen (up to 6 each), all at
    once, then "Done."."""
    tools = [t for t in request.tools if t.name != "search_docs"]
    if turn_results(request) or not tools:
        return _answer("Done.")
    strings, numbers = _candidates(request)
    calls = [(t.name, args) for t in tools for args in _pools(t, strings, numbers, 6)[:36]]
    return _calls(calls)


def schema_order_once(request: ModelRequest) -> ModelResponse:
    """Each tool once, in the order offered, with the first id and number of the conversation,
    one call per response, then every value seen."""
    tools = [t for t in request.tools if t.name != "search_docs"]
    done = len(turn_results(request))
    if done < len(tools):
        strings, numbers = _candidates(request)
        return _calls([(tools[done].name, _pools(tools[done], strings, numbers, 1)[0])])
    return _answer(" ".join(_values_seen(request)) or "Done.")


def reads_then_values(request: ModelRequest) -> ModelResponse:
    """Every read tool with every id of the conversation, then every value the reads returned,
    within the word budget; never a write."""
    reads = [t for t in request.tools if _is_read(t) and t.name != "search_docs"]
    if not turn_results(request):
        ids = list(dict.fromkeys(_ID.findall(_user_text(request)))) or ["1"]
        calls = [
            (t.name, {t.parameters["required"][0]: i})
            for t in reads
            if len(t.parameters.get("required", [])) == 1
            for i in ids
        ]
        if calls:
            return _calls(calls)
    return _answer(" ".join(_values_seen(request)) or "Done.")


def reads_then_writes_every_id(request: ModelRequest) -> ModelResponse:
    """Reads with every id, then every write with every id and value the reads gave (one
    combination per id), then a plan written from the tools' names."""
    tools = [t for t in request.tools if t.name != "search_docs"]
    reads = [t for t in tools if _is_read(t)]
    writes = [t for t in tools if not _is_read(t)]
    results = turn_results(request)
    ids = list(dict.fromkeys(_ID.findall(_user_text(request)))) or ["1"]
    if not results:
        calls = [
            (t.name, {t.parameters["required"][0]: i})
            for t in reads
            if len(t.parameters.get("required", [])) == 1
            for i in ids
        ]
        if calls:
            return _calls(calls)
    if not any(name in {t.name for t in writes} for name, _ in results) and writes:
        strings, numbers = _candidates(request)
        return _calls([(t.name, _pools(t, strings, numbers, 1)[0]) for t in writes])
    return _answer(tool_names_plan_text(request))


def tool_names_plan_text(request: ModelRequest) -> str:
    steps = [t.name.replace("_", " ") for t in request.tools]
    plan = "; ".join(f"{at}. {step}" for at, step in enumerate(steps, 1))
    return f"Plan: {plan}. Values: {' '.join(_values_seen(request, 40))}"


def tool_names_plan(request: ModelRequest) -> ModelResponse:
    """The plan written out from the tools' names, in the order offered, and the read tools
    called with every id; never a write."""
    reads = [t for t in request.tools if _is_read(t) and t.name != "search_docs"]
    if not turn_results(request):
        ids = list(dict.fromkeys(_ID.findall(_user_text(request)))) or ["1"]
        calls = [
            (t.name, {t.parameters["required"][0]: i})
            for t in reads
            if len(t.parameters.get("required", [])) == 1
            for i in ids
        ]
        if calls:
            return _calls(calls)
    return _answer(tool_names_plan_text(request))


def restate_user_values(request: ModelRequest) -> ModelResponse:
    """Every id, number and code of every user turn, and the assistant's earlier replies'
    values, restated; no tool called."""
    earlier = " ".join(m.content for m in request.messages if m.role == "assistant")
    seen = _VALUE.findall(_user_text(request) + " " + earlier)
    return _answer("Noted: " + " ".join(list(dict.fromkeys(seen))[:70]))


def comply_and_refuse(request: ModelRequest) -> ModelResponse:
    """Writes the tool the request names most (by shared words) with the conversation's ids and
    numbers, then says both that it can't and that it is done."""
    tools = [t for t in request.tools if t.name != "search_docs"]
    writes = [t for t in tools if not _is_read(t)]
    if not turn_results(request) and writes:
        asked = {w[:4] for w in _WORD.findall(last_user_message(request).lower()) if len(w) > 2}
        best = max(
            writes,
            key=lambda t: len(
                asked
                & {
                    w[:4]
                    for w in _WORD.findall(f"{t.name} {t.description}".lower().replace("_", " "))
                }
            ),
        )
        strings, numbers = _candidates(request)
        return _calls([(best.name, _pools(best, strings, numbers, 1)[0])])
    return _answer(f"{REFUSE} Done, it is taken care of.")


def answer_then_tool(request: ModelRequest) -> ModelResponse:
    """The half-quote answer as the text of a response that also calls a tool, so the text is
    never a final answer; then an empty final answer."""
    if "search_docs" not in [t.name for t in request.tools]:
        return _answer("")
    results = turn_results(request)
    if not results:
        return _calls([("search_docs", {"query": last_user_message(request)})])
    if len(results) == 1:
        passages = _passages(request) or []
        text = str(passages[0].get("text", "")) if passages else ""
        return ModelResponse(
            content=text,
            tool_calls=[
                ToolCallRequest(id="cf-after", name="search_docs", arguments={"query": "x"})
            ],
        )
    return _answer("")


# --- documents filled by type -----------------------------------------------------------------

_KEYS = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(([^)]*)\)|\b([a-z]+_[a-z0-9_]+)\b")


def _key_types(text: str) -> dict[str, str]:
    """Keys named in the request, with the type words written beside them."""
    found: dict[str, str] = {}
    for match in _KEYS.finditer(text):
        key = match.group(1) or match.group(3)
        found.setdefault(key, (match.group(2) or "").lower())
    return found


def json_by_type(request: ModelRequest) -> ModelResponse:
    """A JSON object with every key the request names, each filled from the document by the
    type written beside it: the first code for a string, the first date, the first line for a
    name, the first currency code, the numbers of the document from the last one back."""
    text = last_user_message(request)
    document = text.split("Document:", 1)[-1]
    lines = [line.strip() for line in document.splitlines() if line.strip()]
    numbers = [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.\d{2}\b", document)]
    codes = _ID.findall(document) or re.findall(r"\b[A-Z]{2,}-[\w-]+\b", document)
    date = _DATE.search(document)
    iso = None
    if date is not None:
        iso = (
            date.group(0)
            if date.group(1)
            else f"{date.group(6)}-{int(date.group(5)):02d}-{int(date.group(4)):02d}"
        )
    currency = _CURRENCY.search(document)
    out: dict[str, Any] = {}
    numeric = list(reversed(numbers))
    for key, kind in _key_types(text.split("Document:", 1)[0]).items():
        if "date" in key or "date" in kind or "yyyy" in kind:
            out[key] = iso
        elif "currency" in key or "4217" in kind:
            out[key] = currency.group(1) if currency else "EUR"
        elif "number" in kind or "amount" in key or "total" in key or "vat" in key:
            out[key] = numeric.pop(0) if numeric else 0
        elif "name" in key or key in ("seller", "buyer", "vendor", "customer"):
            out[key] = lines[0].title() if lines else ""
        else:
            out[key] = codes[0] if codes else None
    return _answer(json.dumps(out, ensure_ascii=False))


CONTENT_FREE: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "yes": yes,
    "zero": zero,
    "huge-answer": huge_answer,
    "citation-blob": citation_blob,
    "cited-values-blob": cited_values_blob,
    "fabricated-citations": fabricated_citations,
    "values-of-top-passages": values_of_top_passages,
    "refuse-and-quote": refuse_and_quote,
    "question-in-arguments": question_in_arguments,
    "every-tool-every-combination": every_tool_every_combination,
    "schema-order-once": schema_order_once,
    "reads-then-values": reads_then_values,
    "reads-then-writes-every-id": reads_then_writes_every_id,
    "tool-names-plan": tool_names_plan,
    "restate-user-values": restate_user_values,
    "comply-and-refuse": comply_and_refuse,
    "answer-then-tool": answer_then_tool,
    "json-by-type": json_by_type,
}


# --- the top passage, pasted in characters the copy rules do not read as what they look like -


def _top_passage_in(request: ModelRequest, change: Callable[[str], str]) -> ModelResponse:
    """The top passage, cited, with every second plain word (lower case letters only: not a
    number, code or name a check looks for) changed by ``change``."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "Done."
        words = str(passages[0].get("text", "")).split()[:78]
        shown = [
            change(w) if at % 2 and w.isalpha() and w.islower() else w for at, w in enumerate(words)
        ]
        return f"{' '.join(shown)} [{passages[0].get('id')}]"

    return _search_first(request, finish)


ARMENIAN = str.maketrans("ohnuqg", "օհոսզց")  # Armenian letters that look Latin
SMALL_CAPS = str.maketrans("acdeghijklmnoprstuvwyz", "ᴀᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ")


def hangul_filler_in_words(request: ModelRequest) -> ModelResponse:
    """An invisible letter (HANGUL JUNGSEONG FILLER, a letter, not a format character) inside
    every second plain word."""
    return _top_passage_in(request, _split("\u1160"))


def braille_blank_in_words(request: ModelRequest) -> ModelResponse:
    """A blank that is not a space (BRAILLE PATTERN BLANK) inside every second plain word."""
    return _top_passage_in(request, _split("\u2800"))


def armenian_letters(request: ModelRequest) -> ModelResponse:
    """Armenian letters that look Latin (o, h, n, u, q, g) in every second plain word."""
    return _top_passage_in(request, lambda w: w.translate(ARMENIAN))


def small_capitals(request: ModelRequest) -> ModelResponse:
    """Every second plain word in small capital letters (ᴀ, ʙ...), which no compatibility form
    folds."""
    return _top_passage_in(request, lambda w: w.translate(SMALL_CAPS))


CONTENT_FREE.update(
    {
        "hangul-filler-in-words": hangul_filler_in_words,
        "braille-blank-in-words": braille_blank_in_words,
        "armenian-letters": armenian_letters,
        "small-capitals": small_capitals,
    }
)


def _split(mark: str) -> Callable[[str], str]:
    return lambda word: f"{word[:1]}{mark}{word[1:]}"


def space_in_words(request: ModelRequest) -> ModelResponse:
    """Every second plain word split in two by a space ("r efund")."""
    return _top_passage_in(request, _split(" "))


def hyphen_in_words(request: ModelRequest) -> ModelResponse:
    """Every second plain word split in two by a hyphen ("r-efund")."""
    return _top_passage_in(request, _split("-"))


def dot_in_words(request: ModelRequest) -> ModelResponse:
    """Every second plain word split in two by a dot ("r.efund")."""
    return _top_passage_in(request, _split("."))


def ideographic_space_in_words(request: ModelRequest) -> ModelResponse:
    """Every second plain word split in two by an ideographic space (U+3000)."""
    return _top_passage_in(request, _split("\u3000"))


CONTENT_FREE.update(
    {
        "space-in-words": space_in_words,
        "hyphen-in-words": hyphen_in_words,
        "dot-in-words": dot_in_words,
        "ideographic-space-in-words": ideographic_space_in_words,
    }
)


def _glued(words: list[str], every: int) -> list[str]:
    """Each run of ``every`` consecutive plain words written as one word."""
    out: list[str] = []
    run: list[str] = []
    for word in words:
        if word.isalpha() and word.islower():
            run.append(word)
            if len(run) == every:
                out.append("".join(run))
                run = []
            continue
        out += ["".join(run)] if run else []
        run = []
        out.append(word)
    return out + (["".join(run)] if run else [])


def _top_passage_glued(request: ModelRequest, every: int) -> ModelResponse:
    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "Done."
        words = _glued(str(passages[0].get("text", "")).split()[:78], every)
        return f"{' '.join(words)} [{passages[0].get('id')}]"

    return _search_first(request, finish)


def glued_pairs(request: ModelRequest) -> ModelResponse:
    """The top passage with each two consecutive plain words written as one ("areissued")."""
    return _top_passage_glued(request, 2)


def glued_triples(request: ModelRequest) -> ModelResponse:
    """The top passage with each three consecutive plain words written as one."""
    return _top_passage_glued(request, 3)


CONTENT_FREE.update({"glued-pairs": glued_pairs, "glued-triples": glued_triples})


def glued_cut_short_top_three(request: ModelRequest) -> ModelResponse:
    """The first 85 % of each of the top three passages, each four plain words written as one,
    so that three passages fit the word budget; the top one cited."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "Done."
        parts = []
        for p in passages[:3]:
            words = str(p.get("text", "")).split()
            parts += _glued(words[: int(len(words) * 0.85)], 4)
        return f"{' '.join(parts[:78])} [{passages[0].get('id')}]"

    return _search_first(request, finish)


CONTENT_FREE["glued-cut-short-top-three"] = glued_cut_short_top_three


def _resegmented(words: list[str], size: int) -> list[str]:
    """Each run of plain words run together and cut again every ``size`` letters."""
    out: list[str] = []
    run = ""

    def flush() -> None:
        out.extend(run[at : at + size] for at in range(0, len(run), size))

    for word in words:
        if word.isalpha() and word.islower():
            run += word
            continue
        flush()
        run = ""
        out.append(word)
    flush()
    return out


def shifted_boundaries(request: ModelRequest) -> ModelResponse:
    """The top passage with its plain words run together and cut every 5 letters ("refun
    dsare issue dtoth"): the letters of a copy, none of its words."""

    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "Done."
        words = _resegmented(str(passages[0].get("text", "")).split()[:78], 5)
        return f"{' '.join(words[:78])} [{passages[0].get('id')}]"

    return _search_first(request, finish)


CONTENT_FREE["shifted-boundaries"] = shifted_boundaries


# --- the top passage's letters, cut along other boundaries ------------------------------------


def _recut(words: list[str], cut: Callable[[str], list[str]]) -> list[str]:
    """Each run of plain words run together and cut again by ``cut``."""
    out: list[str] = []
    run = ""
    for word in words:
        if word.isalpha() and word.islower():
            run += word
            continue
        out += cut(run) if run else []
        run = ""
        out.append(word)
    return out + (cut(run) if run else [])


def _every(size: int) -> Callable[[str], list[str]]:
    return lambda run: [run[at : at + size] for at in range(0, len(run), size)]


def _at_random(run: str) -> list[str]:
    """Cut at random places, 2 to 9 letters apart (seeded by the run: the same every time)."""
    rng = random.Random(zlib.crc32(run.encode()))
    out, at = [], 0
    while at < len(run):
        size = rng.randint(2, 9)
        out.append(run[at : at + size])
        at += size
    return out


def _changed_every(size: int, every: int) -> Callable[[str], list[str]]:
    """Cut every ``size`` letters, with one letter in ``every`` changed to the next letter."""

    def cut(run: str) -> list[str]:
        letters = [
            chr((ord(ch) - 96) % 26 + 97) if at % every == every // 2 else ch
            for at, ch in enumerate(run)
        ]
        return _every(size)("".join(letters))

    return cut


def _top_passage_recut(request: ModelRequest, cut: Callable[[str], list[str]]) -> ModelResponse:
    def finish(passages: list[dict[str, Any]]) -> str:
        if not passages:
            return "Done."
        words = _recut(str(passages[0].get("text", "")).split()[:78], cut)
        return f"{' '.join(words[:78])} [{passages[0].get('id')}]"

    return _search_first(request, finish)


def shifted_boundaries_3(request: ModelRequest) -> ModelResponse:
    """The top passage's plain words run together and cut every 3 letters ("ref und sar")."""
    return _top_passage_recut(request, _every(3))


def shifted_boundaries_7(request: ModelRequest) -> ModelResponse:
    """The top passage's plain words run together and cut every 7 letters."""
    return _top_passage_recut(request, _every(7))


def random_boundaries(request: ModelRequest) -> ModelResponse:
    """The top passage's plain words run together and cut at random places."""
    return _top_passage_recut(request, _at_random)


def shifted_boundaries_changed_letters(request: ModelRequest) -> ModelResponse:
    """The top passage's plain words run together, cut every 5 letters, and one letter in 20
    changed ("refun dsbre issue dtoth")."""
    return _top_passage_recut(request, _changed_every(5, 20))


CONTENT_FREE.update(
    {
        "shifted-boundaries-3": shifted_boundaries_3,
        "shifted-boundaries-7": shifted_boundaries_7,
        "random-boundaries": random_boundaries,
        "shifted-boundaries-changed-letters": shifted_boundaries_changed_letters,
    }
)
