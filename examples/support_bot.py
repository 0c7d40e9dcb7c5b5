"""The example entrant: a rule-based support agent, with no model behind it.

An entrant turns a ``ModelRequest`` into a ``ModelResponse``; the harness runs the agent loop.
Each call decides one step from the request alone — the messages so far, the offered tools and
their JSON schemas, and the tool results — with no state, randomness, network or clock (dates
written without a year are read in ``YEAR``). It never reads task files, expectations, ids or
the corpus from disk, and has no table keyed by task. It does carry fixed word lists (intent
verbs per tool name, unsafe-request markers, ticket teams, Turkish months, a few dozen English
paraphrases such as pick/choose) that were written while looking at where it failed on the
shipped ``tasks/``; its scores there are therefore an upper bound on what the same rules would
score on new tasks, not a measure of generality.

What ``respond_v1`` does, by family of ``tasks/``:

* **grounded-qa** (and policy questions inside a conversation): one search with the question,
  its paraphrase words and, in a later turn, facts earlier turns' records established (how an
  order was paid, what state a record is in); a follow-up that points back ("was that …") is
  searched a second time together with the message before it. Each retrieved sentence is scored
  by the question's key words it holds (a word matches its own prefix or plural, refund/refunds,
  fee/fees; rarer words weigh more), by the kind of answer asked for (an amount for "how much
  is", a duration for "how long", a time for "when was", a number for "how many") and by staying
  in the document search ranked first. It answers with the best sentence — plus a second one of
  the same passage when that has the kind of answer the first lacks, holds key words the first
  lacks, or scores nearly as well — cut to its most telling clauses when it would repeat nearly
  a whole passage, and cites that one passage. It declines ("I don't know") when a capitalised
  name of the question is unknown to the corpus (it searches for the name alone first), when the
  thing a "which/what X" question asks about is in no retrieved passage, or when the kind of
  answer asked for is in none. It cannot paraphrase, combine passages or reason ("why shouldn't
  I" gets the rule, not the reason), and it answers about half of the unanswerable questions
  anyway (a battery, a compensation voucher, who heads a team: the words are near enough to a
  passage).
* **tool-trajectory, multi-turn-state, long-horizon**: the latest user message is read for
  actions (verbs mapped to the offered write tools, English and Turkish), in the order they are
  written, and for the ids each tool's schema asks for (order and ticket numbers, customer and
  subscriber ids, flats, cards, dates); ids missing from the message come from earlier turns
  (the customer who said "I'm C-…", "the second one", the appointment "at school" the bot listed
  before). Each object is read with the matching read tool before the first write on it, once;
  arguments come from the message, from the read (``tutar``, ``amount`` from ``total``, a
  transaction by its description or "above 5.000 TL", the earliest free slot in the morning or
  afternoon) or from earlier turns; after the writes it reports what happened (with any receipt
  id the tool returned), re-reading the object when asked "again". A message naming a record but
  asking for no action ("ne kadar gelmiş bir bakıver") gets the record read and summarised.
  Only imperative or wish forms count as a request to pay ("öde", "ödemek istiyorum", "çekin"),
  not "ödeme talimatı" or "kendim öderim". Policy it enforces: a bill already paid is not paid
  again; a refund above €150 needs a team lead's
  approval in the Ledger tool (it refuses, and says so); a tool described as for orders "not
  packed yet" is not used on a packed order; an account email changes only when the user gave
  the card's last four digits and the postcode the record holds; a reset link goes only to the
  address on file; a ticket closes only when the user says it is solved. Conditions it
  understands are a few fixed shapes: the more frequent of two subscriptions, the order
  delivered first, "if the skip is not possible … instead", "if its priority is low … if not".
  Anything else conditional, and any request whose verb is not in its lists, it does not act on.
* **refusal-and-safety**: a fixed list of English and Turkish markers of acting for someone
  else or against them (a lawyer, a neighbour, "haberi olmadan", a threat, a note the user says
  is false, "skip the Ledger", another card) plus the policies above; it refuses in the user's
  language in words the published refusal list knows ("I can't help with that", "Bunu
  yapamam"), and otherwise helps like any request to act. A request that is unsafe in words not
  on its list is helped.
* **structured-extraction**: the keys the request names, from the document in the message: the
  number after "invoice/credit note/fatura", the first date (DD/MM unless the document says
  MM/DD; English and Turkish month names), the seller (a "Seller:/Satıcı:" line, else the first
  line up to a dash, dot or comma), the currency (ISO code, TL, €/$/£), and net, VAT and total
  as the amounts where net + VAT = total with the largest total and the VAT amount on a VAT/tax
  line. A layout where that arithmetic does not hold (a total given only in words) defeats it.

``respond_v2`` is ``respond_v1`` with three planted regressions, one ``Build`` switch each:
(a) ``cite``: grounded answers lose their ``[faq.md#refunds]``-style citation;
(b) ``read_before_refund``: it calls ``issue_refund`` without ``get_order`` first, so it never
    sees the order total and also refunds orders above the approval limit;
(c) ``decline_unanswerable``: when no passage covers the question it answers from the nearest
    passage anyway instead of declining (and does not search for unknown names first).

The module is over the style guide's 800-line mark because a scripted target names one file
(``callable: ../support_bot.py:respond_v1``) and the example is meant to be read in one place.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable
from typing import Any, NamedTuple

from bench.core.trace import ToolCallRequest, ToolDef, Usage
from bench.targets.base import ModelRequest, ModelResponse

REFUND_LIMIT_EUR = 150.0  # refund policy, "Refunds that need approval": above this a lead approves
SEARCH_K = 3
YEAR = 2026  # the bot has no clock: dates without a year are read in this year
DECLINE = (
    "I don't know: the documents do not say, and I cannot find it in the passages I retrieved."
)

_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "did", "do", "does", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of",
    "on", "or", "our", "should", "so", "the", "their", "there", "this", "to", "was", "we", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your", "any", "get",
    "i'm", "im", "that", "these", "those", "then", "up", "one", "go", "still", "much", "many",
    "after", "before", "into", "out", "about", "too", "also", "them", "they", "again", "just",
    "am", "been", "being", "some", "all", "no", "not", "than", "like", "us", "m", "s", "t",
})  # fmt: skip
_SCAFFOLDING = frozenset({
    "long", "take", "usually", "use", "need", "tell", "say", "says", "happen", "happens",
    "please", "cite", "policy", "know", "want", "able", "allowed", "point", "way", "now",
    "okay", "ok", "thanks", "right", "quick", "question",
})  # fmt: skip
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "pick": ("choose",), "edit": ("change",), "hold": ("paused",), "valid": ("expire",),
    "warmest": ("temperature",), "hot": ("temperature",), "rid": ("remove",),
    "courier": ("carrier",), "money": ("refund",), "back": ("refund",), "sent": ("shipped",),
    "fast": ("minute",), "often": ("every",), "bag": ("bag",), "look": ("starts",),
    "lost": ("no longer",), "company": ("offices", "business"), "large": ("bulk",),
    "faster": ("express",), "extra": ("costs",), "stream": ("safe",), "amounts": ("amount",),
    "sizes": ("between",), "grey": ("grey",), "hard": ("dh",), "fire": ("fires",),
}  # fmt: skip
_PHRASES: dict[str, tuple[str, ...]] = {
    "send back": ("return",), "send it back": ("return",), "money back": ("refund",),
    "haven't used": ("unused",), "go off": ("alert",), "how fast": ("minute",),
}  # fmt: skip
_STATUS_WORDS = ("status", "where is", "track")
_MONTHS = "january february march april may june july august september october november december"
_TR_MONTHS = "ocak subat mart nisan mayis haziran temmuz agustos eylul ekim kasim aralik"
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twelve": 12}
_ORDER_RE = re.compile(r"\borders?\s*#?\s*(\d{3,})", re.IGNORECASE)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE_RE = re.compile(rf"\b(\d{{1,2}}) ({_MONTHS.replace(' ', '|')}) (\d{{4}})\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
_TURKISH = re.compile(r"[ğışçöüĞİŞÇÖÜ]|\b(?:misin|musun|mısın|lütfen|lutfen|merhaba|slm)\b")


class Build(NamedTuple):
    cite: bool
    read_before_refund: bool
    decline_unanswerable: bool


V1 = Build(cite=True, read_before_refund=True, decline_unanswerable=True)
V2 = Build(cite=False, read_before_refund=False, decline_unanswerable=False)


def respond_v1(request: ModelRequest) -> ModelResponse:
    return respond(request, V1)


def respond_v2(request: ModelRequest) -> ModelResponse:
    return respond(request, V2)


class Call(NamedTuple):
    """A tool call that ran, with what it returned."""

    name: str
    arguments: dict[str, Any]
    result: Any


class Turn(NamedTuple):
    """What one step needs to know about the conversation and the current user turn."""

    number: int  # how many user messages came before the current one
    question: str  # the current (last) user message
    user_texts: tuple[str, ...]  # every user message so far, oldest first
    calls_made: int  # tool calls already made in this turn
    results: dict[str, Any]  # tool name -> parsed result of its latest call in this turn
    tools: frozenset[str]  # names of the tools offered
    calls: tuple[Call, ...] = ()  # the calls of this turn, in order
    history: tuple[Call, ...] = ()  # the calls of earlier turns, in order
    defs: tuple[ToolDef, ...] = ()  # the offered tools, with their schemas
    replies: tuple[str, ...] = ()  # the assistant's earlier answers

    def call(self, name: str, arguments: dict[str, Any]) -> ToolCallRequest:
        return ToolCallRequest(
            id=f"call-{self.number}-{self.calls_made + 1}", name=name, arguments=arguments
        )


Step = str | ToolCallRequest  # the final answer, or the one tool call to make next


def respond(request: ModelRequest, build: Build) -> ModelResponse:
    step = decide(read_turn(request), build)
    content, calls = ("", [step]) if isinstance(step, ToolCallRequest) else (step, [])
    prompt = sum(_word_count(m.content, m.tool_calls) for m in request.messages)
    usage = Usage(
        prompt_tokens=_tokens(prompt), completion_tokens=_tokens(_word_count(content, calls))
    )
    return ModelResponse(content=content, tool_calls=calls, usage=usage)


def read_turn(request: ModelRequest) -> Turn:
    users = [i for i, message in enumerate(request.messages) if message.role == "user"]
    if not users:
        raise ValueError("the request has no user message")
    requested: dict[str, tuple[str, dict[str, Any]]] = {}
    done: list[tuple[int, Call]] = []
    for index, message in enumerate(request.messages):
        for call in message.tool_calls:
            requested[call.id] = (call.name, dict(call.arguments))
        if message.role == "tool" and message.tool_call_id in requested:
            name, arguments = requested[message.tool_call_id]
            done.append((index, Call(name, arguments, _parse(message.content))))
    current = tuple(call for index, call in done if index > users[-1])
    return Turn(
        number=len(users) - 1,
        question=request.messages[users[-1]].content,
        user_texts=tuple(request.messages[i].content for i in users),
        calls_made=len([1 for m in request.messages[users[-1] + 1 :] for _ in m.tool_calls]),
        results={call.name: call.result for call in current},
        tools=frozenset(tool.name for tool in request.tools),
        calls=current,
        history=tuple(call for index, call in done if index < users[-1]),
        defs=tuple(request.tools),
        replies=tuple(
            m.content for m in request.messages[: users[-1]] if m.role == "assistant" and m.content
        ),
    )


def decide(turn: Turn, build: Build) -> Step:
    text = turn.question.lower()
    if "extract" in text or ("json" in text and "çıkar" in text):
        return extract(turn.question)
    order_id = _order_id(turn.user_texts)
    single = len(set(re.findall(r"\b\d{4,5}\b", turn.question))) <= 1
    if "refund" in text and "issue_refund" in turn.tools and _asks(turn.question) and single:
        order_id = _order_id((turn.question,))
        if order_id and not _unsafe(turn.question):
            return refund(turn, order_id, build)
    if turn.tools - {"search_docs"}:
        if _unsafe(turn.question):
            return refusal(turn, "the request is about someone else's account, money or data")
        step = act(turn, build)
        if step is not None:
            return step
    if order_id and "get_order" in turn.tools and any(w in text for w in _STATUS_WORDS):
        return order_status(turn, order_id)
    if "search_docs" in turn.tools:
        return grounded_answer(turn, build)
    if _turkish(turn.question):
        return "Bu isteği anlayamadım; hangi kayıt için ne yapmamı istediğinizi yazar mısınız?"
    return "Could you tell me which order, ticket or account this is about, and what to do?"


# -- refunds (the v1/v2 switch (b) lives here) -------------------------------------------------


def refund(turn: Turn, order_id: str, build: Build) -> Step:
    order: Any = None
    if build.read_before_refund:
        if "get_order" not in turn.results:
            return turn.call("get_order", {"order_id": order_id})
        order = turn.results["get_order"]
        if _error(order):
            return f"I could not look up order {order_id}: {_error(order)}"
        total = _refund_amount(turn.question, order)
        if total > REFUND_LIMIT_EUR:
            return (
                f"I can't do that myself: the refund for order {order_id} is €{total:.2f}, above "
                f"the €{REFUND_LIMIT_EUR:.0f} an agent may refund without approval. A team lead "
                "has to approve it in the Ledger tool first; an approval in chat does not count."
            )
    if "issue_refund" not in turn.results:
        arguments: dict[str, Any] = {"order_id": order_id}
        if "amount" in _properties(turn, "issue_refund"):
            arguments["amount"] = _refund_amount(turn.question, order)
        return turn.call("issue_refund", arguments)
    done = turn.results["issue_refund"]
    if _error(done):
        return f"The refund for order {order_id} did not go through: {_error(done)}"
    amount = done.get("amount") or turn.calls[-1].arguments.get("amount") or 0
    answer = f"Done: I refunded €{float(amount):.2f} for order {order_id}"
    if done.get("refund_id"):
        answer += f" (refund {done['refund_id']})"
    return answer + (
        f". It reaches your original payment method within "
        f"{done.get('eta_business_days', 7)} business days."
        if "eta_business_days" in done or "refund_id" in done
        else "; it goes back to the original payment method."
    )


def _refund_amount(question: str, order: Any) -> float:
    """The order total, a share of it when one of several identical items is returned, or
    (without the order) the amount the message names."""
    if isinstance(order, dict) and "total" in order:
        total = float(order["total"])
        count = 1
        for item in order.get("items", []):
            found = re.search(r"x(\d+)\s*$", str(item))
            count = max(count, int(found.group(1)) if found else 1)
        partial = re.search(r"\b(just|only) (that |the )?one\b|\bone of the\b", question, re.I)
        return round(total / count, 2) if partial and count > 1 else total
    money = re.search(r"(\d+(?:[.,]\d{1,2})?)\s*(?:euros?|eur|€)", question, re.I)
    return float(money.group(1).replace(",", ".")) if money else 0.0


def order_status(turn: Turn, order_id: str) -> Step:
    if "get_order" not in turn.results:
        return turn.call("get_order", {"order_id": order_id})
    order = turn.results["get_order"]
    if _error(order):
        return f"I could not look up order {order_id}: {_error(order)}"
    answer = f"Order {order_id} ({order.get('item', 'your order')}) is {order.get('status')}."
    if order.get("tracking"):
        answer += f" Its tracking number is {order['tracking']}."
    return answer


# -- grounded answers ---------------------------------------------------------------------------

_ANSWER_TYPES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"\bhow much (?:is|does|do|did|will|extra|money)\b|\bcost\b"),
        re.compile(r"[€$£]\s?\d|\d\s?(?:eur|euros?)\b|\d\s?%"),
    ),
    (
        re.compile(r"\bhow (?:long|fast|soon|close|often)\b|\bhow many days\b|\bexpire\b"),
        re.compile(
            r"\b(?:\d+|two|three|four|five|six)[ -](?:minutes?|hours?|days?|weeks?|months?|years?"
            r"|working|business)\b|\bevery\b|\d+ (?:to|and) \d+"
        ),
    ),
    (
        re.compile(r"\bwhat (?:time|date)\b|\bby what (?:time|date)\b|\bwhen (?:was|did|is)\b"),
        re.compile(r"\d{1,2}:\d{2}|\d{1,2} (?:" + _MONTHS.replace(" ", "|") + r")", re.I),
    ),
    (
        re.compile(r"\bphone number\b|\bnumber to call\b|\bcall (?:you|support)\b"),
        re.compile(r"\+?\d[\d ()-]{6,}\d"),
    ),
    (
        re.compile(r"\bhow many\b"),
        re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b"),
    ),
)
_GENERIC_NOUNS = frozenset({
    "date", "time", "level", "part", "parts", "point", "way", "kind", "type", "amount", "amounts",
    "size", "sizes", "position", "happens", "happened", "most", "best", "least", "first", "last",
    "countries", "cities", "days", "months", "colours", "colors", "languages", "options", "is",
    "are", "does", "do", "did", "was", "were",
})  # fmt: skip


def grounded_answer(turn: Turn, build: Build) -> Step:
    question = turn.question
    context = _context_words(turn)
    searches = [call for call in turn.calls if call.name == "search_docs"]
    if not searches:
        # the question, its paraphrase words and what earlier turns' records said (not the
        # earlier messages' words: they pull search towards the previous topic)
        extra = [k for k in key_words(question) + _record_facts(turn) if k not in _words(question)]
        query = question if not extra else f"{question} {' '.join(extra)}"
        return turn.call("search_docs", {"query": query, "k": SEARCH_K})
    found = searches[0].result
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    # A follow-up that points back ("was that ...", "that fee") is searched once more together
    # with the message before it; both searches' passages are candidates.
    followup = f"{turn.user_texts[-2]} {question}" if turn.number > 0 else ""
    if followup and re.search(r"\b(?:that|this|it|those|them)\b", question, re.I):
        again = [c for c in searches[1:] if c.arguments.get("query") == followup]
        if not again:
            return turn.call("search_docs", {"query": followup, "k": SEARCH_K})
        more = again[0].result if isinstance(again[0].result, list) else []
        seen = {p.get("id") for p in passages}
        passages += [p for p in more if isinstance(p, dict) and p.get("id") not in seen]
    keys = key_words(question)
    if not passages:
        return DECLINE if build.decline_unanswerable else "Yes, our standard policy covers that."
    texts = [f"{p.get('title', '')} {p.get('text', '')}" for p in passages]
    everywhere = set().union(*(_hits(keys, t) for t in texts))
    # Before saying the documents do not cover a name the question uses, search for it alone.
    names = [w for w in _names(question) if w not in everywhere]
    probed = {
        str(c.arguments.get("query", "")).lower(): c.result
        for c in searches[1:]
        if c.arguments.get("k") == 1
    }
    for name in names:
        if name not in probed and build.decline_unanswerable:
            return turn.call("search_docs", {"query": name, "k": 1})
    unknown = [name for name in names if probed.get(name) == []]
    # "Which engineer ...": the thing asked about must be in a retrieved passage.
    focus = re.search(
        r"\b(?:which|what)(?:\s+(?:is|are|was|were) the)?\s+(?:type of\s+|kind of\s+)?([a-z]+)",
        question.lower(),
    )
    asked = focus.group(1) if focus else ""
    known = {asked, *_SYNONYMS.get(asked, ())} & everywhere
    if asked in keys and asked not in _GENERIC_NOUNS and not known:
        unknown.append(asked)
    sentences = [
        (rank, position, sentence)
        for rank, passage in enumerate(passages)
        for position, sentence in enumerate(_sentences(str(passage.get("text", ""))))
    ]
    weights = _weights(keys, [sentence for _, _, sentence in sentences])
    repeated = {k: max(1, _words(question).count(k)) for k in keys}
    facts = {w: 2.5 for w in _record_facts(turn)}
    shape = _answer_type(question)
    ranked = []
    for rank, position, sentence in sentences:
        score = sum(weights[k] * repeated.get(k, 1) for k in _hits(keys, sentence))
        score += sum(facts.get(k, 0.3) for k in _hits(context, sentence) if k not in keys)
        score += 0.2 * len(_hits(keys, texts[rank]))
        if _doc_of(passages[rank]) == _doc_of(passages[0]):
            score += 0.3  # the document search ranked first is the question's topic
        if shape is not None and shape.search(sentence.lower()):
            score += 1.5
        ranked.append((score - 0.05 * rank - 0.001 * position, rank, position, sentence))
    ranked.sort(key=lambda item: -item[0])
    score, rank, position, sentence = ranked[0]
    best = passages[rank]
    unanswerable = (
        not keys
        or bool(unknown)
        or (shape is not None and not any(shape.search(t.lower()) for t in texts))
        or score <= 0.0
    )
    if unanswerable and build.decline_unanswerable:
        return DECLINE
    # A second sentence of the same passage: the one that has the kind of answer asked for
    # when the first lacks it, else the one holding key words the first lacks (a two-part
    # question), else the next one when it scores nearly as well.
    own = [item for item in ranked if item[1] == rank and item[2] != position]
    answer = [(position, sentence)]
    if own and len(sentence.split()) < 25:
        lacking = [k for k in keys if k not in _hits(keys, sentence)]
        gains = [sum(weights[k] for k in _hits(lacking, item[3])) for item in own]
        shaped = [
            i for i, item in enumerate(own) if shape is not None and shape.search(item[3].lower())
        ]
        best_gain = max(range(len(own)), key=lambda i: (gains[i], own[i][0]))
        pick = None
        if shaped and shape is not None and not shape.search(sentence.lower()):
            pick = own[shaped[0]]
        elif gains[best_gain] >= 1.0:
            pick = own[best_gain]
        elif own[0][0] >= 0.6 * score:
            pick = own[0]
        if pick is not None:
            answer.append((pick[2], pick[3]))
    text = _unpasted(" ".join(s for _, s in sorted(answer)), str(best.get("text", "")), keys, shape)
    return f"{text} [{best.get('id')}]" if build.cite else text


def _unpasted(answer: str, passage: str, keys: list[str], shape: re.Pattern[str] | None) -> str:
    """The answer, cut to its most telling clauses when it would repeat nearly all of a passage
    of 20 words or more (quoting the answering part is fine, handing back the passage is not)."""
    size = len(re.findall(r"\w+", passage))
    if size < 20 or len(re.findall(r"\w+", answer)) < 0.85 * size:
        return answer
    clauses = [c for c in re.split(r"(?<=[,;:.])\s+|\s+—\s+", answer) if c.strip()]

    def worth(clause: str) -> float:
        typed = 2.0 if shape is not None and shape.search(clause.lower()) else 0.0
        return typed + len(_hits(keys, clause))

    kept = list(clauses)
    while len(kept) > 1 and len(re.findall(r"\w+", " ".join(kept))) >= 0.85 * size:
        kept.remove(min(kept, key=worth))
    text = " ".join(kept).strip(" ,;:")
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _doc_of(passage: dict[str, Any]) -> str:
    return str(passage.get("id", "")).partition("#")[0]


def _names(question: str) -> list[str]:
    """Capitalised words after the first one (places, brands, standards), lower case."""
    found = re.finditer(r"(?<![.?!:] )(?<!^)\b[A-Z][A-Za-z0-9]+", question.strip())
    words = [m.group(0).lower() for m in found]
    return list(dict.fromkeys(w for w in words if w not in _STOPWORDS | _SCAFFOLDING))


def _weights(keys: list[str], sentences: list[str]) -> dict[str, float]:
    """A key word weighs more the fewer retrieved sentences hold it."""
    count = max(len(sentences), 1)
    weights = {}
    for key in keys:
        holding = sum(1 for s in sentences if _hits([key], s))
        weights[key] = math.log(1 + count / holding) if holding else 0.0
    return weights


def _context_words(turn: Turn) -> list[str]:
    """Facts from earlier turns that a follow-up question leans on: how an order was paid, what
    state a record is in, and the key words of the previous user message."""
    if turn.number == 0:
        return []
    words = _record_facts(turn)
    words += [w for w in key_words(turn.user_texts[-2]) if len(w) >= 4 and w.isalpha()]
    return list(dict.fromkeys(w.lower() for w in words))


def _record_facts(turn: Turn) -> list[str]:
    facts = []
    for call in turn.history:
        if isinstance(call.result, dict):
            facts += [
                str(call.result[k]).lower() for k in ("payment", "status") if k in call.result
            ]
    return facts


def _answer_type(question: str) -> re.Pattern[str] | None:
    lowered = question.lower()
    for asked, shape in _ANSWER_TYPES:
        if asked.search(lowered):
            return shape
    return None


def key_words(question: str) -> list[str]:
    """The question's content words, in order, each once, with the words documents tend to
    use for them (pick: choose) added after them."""
    skip = _STOPWORDS | _SCAFFOLDING
    words: list[str] = []
    lowered = question.lower()
    for phrase, meant in _PHRASES.items():
        if phrase in lowered:
            words += meant
    for word in _words(question):
        if word not in skip:
            words += [word, *_SYNONYMS.get(word, ())]
    return list(dict.fromkeys(words))


def _sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _SENTENCE_RE.split(text.strip()) if s.strip()]


# -- acting on records ------------------------------------------------------------------------

# Write intents: a pattern over the folded (lower-case, ASCII) message -> the tool it asks for.
_INTENTS: tuple[tuple[str, str], ...] = (
    (r"\brefund", "issue_refund"),
    (r"\bmoney back\b", "issue_refund"),
    (r"\bcancel", "cancel_order"),
    (r"\bcancel", "cancel_subscription"),
    (r"\bevery \d+ weeks?\b|\binterval\b", "change_interval"),
    (r"\bpause|\bon hold\b", "pause_subscription"),
    (r"\bskip", "skip_delivery"),
    (r"\bescalat|\broute\b|\bright team\b|\bwhichever team\b|\bgo to the\b", "escalate_ticket"),
    (r"\bnote\b", "add_note"),
    (r"\bclose\b", "close_ticket"),
    (r"\breset\b", "send_reset_link"),
    (r"\b(?:change|update)\b.*\bemail\b|\bemail\b.*\b(?:change|update)", "update_email"),
    (r"\bexport\b", "export_customer_data"),
    (r"\botomatik\b|\btalimat", "otomatik_odeme_talimati"),
    (
        r"\btalimat\w* (?:iptal|kaldir)|\b(?:iptal|kaldir)\w*.{0,20}\btalimat",
        "otomatik_odeme_iptal",
    ),
    (r"\btalimat\w*.{0,30}\b(?:iptal|kaldir)", "otomatik_odeme_iptal"),
    # pay: imperative or wish forms only ("ödeme talimatı" is a noun, "öderim" a promise)
    (
        r"\bode(?:mek|r mi|yiver|yin|yelim|meyi|mem|\b)|\bcek(?:in|ebil|ilsin|sin)\b|\bhalle[td]",
        "fatura_ode",
    ),
    (r"\bkayde[td]|\bkaydi\b|\bkayit\b", "odeme_kaydet"),
    (r"\bsms|\bhatirlat|\bbildir", "hatirlatma_gonder"),
    (r"\biade\b|\biade et", "depozito_iade"),
    (r"\btaksit", "taksitlendir"),
    (r"\blimit", "limit_artir"),
    (r"\bal\b|\balin\b|\bal,", "randevu_al"),
    (r"\biptal", "randevu_iptal"),
)
_UNSAFE = (
    "lawyer", "neighbour", "neighbor", "on behalf of", "without replying", "resolution numbers",
    "skip the ledger", "other card", "don't have the card", "dont have the card", "they weren't",
    "save us time", "komsum", "babamin", "haberi olmadan", "ev arkadas", "onun yerine",
    "soylemene gerek yok", "bana iade", "korksun", "atarim", "gibi goster", "diger velilerin",
    "kimin adina", "alacak verecek",
)  # fmt: skip
_TEAMS: dict[str, tuple[str, ...]] = {
    "payments": ("charg", "billing", "payment", "paid", "refund", "invoice", "price"),
    "logistics": ("parcel", "shipping", "delivery", "label", "tracking", "carrier", "moved"),
    "product": ("light", "lid", "cartridge", "filter", "broken", "leak", "reset"),
}
_ID_PATTERNS: dict[str, str] = {
    "order_id": r"\b(\d{5})\b",
    "customer_id": r"\b(C-\d{4})\b",
    "ticket_id": r"\b(T-\d{3,})\b",
    "abone_no": r"\b(\d{7})\b",
    "daire": r"\b([A-Z]-\d{1,3})(?![\d])",
    "kart_son4": r"\b(\d{4})\b",
    "randevu_no": r"\b(R-\d{3})\b",
}


def act(turn: Turn, build: Build) -> Step | None:
    """The next call of the plan the latest message asks for, or its report; None when the
    message asks for no action this bot knows."""
    intents = _intents(turn)
    plan = _Plan(turn, build)
    if not intents:
        return plan.look_up()
    for name in intents:
        step = plan.write(name)
        if step is not None:
            return step
    if plan.done and re.search(r"\bagain\b|\btekrar\b", turn.question, re.I):
        last = plan.done[-1]
        after = turn.calls[turn.calls.index(last) + 1 :]
        for param, value in last.arguments.items():
            reader = _reader(turn, param)
            if reader is not None:
                if not any(c.name == reader for c in after):
                    return turn.call(reader, {param: value})
                break
    return plan.report()


def _intents(turn: Turn) -> list[str]:
    sentences = [s for s in _SENTENCE_RE.split(turn.question) if s.strip()]
    asked = " ".join(s for s in sentences if _asks(s))
    folded = _fold(asked)
    found: list[tuple[int, str]] = []
    for pattern, name in _INTENTS:
        if name not in turn.tools or any(name == n for _, n in found):
            continue
        match = re.search(pattern, folded)
        if match:
            found.append((match.start(), name))
    names = [name for _, name in sorted(found)]
    if "otomatik_odeme_iptal" in names and "otomatik_odeme_talimati" in names:
        names.remove("otomatik_odeme_talimati")
    elif "otomatik_odeme_talimati" in names and "fatura_ode" in names:
        names.remove("fatura_ode")
    if "depozito_iade" in names and "odeme_kaydet" in names and "depozito" in folded:
        names.remove("odeme_kaydet")
    if "cancel_subscription" in names and "pause_subscription" in names:
        names.remove("cancel_subscription")
    if "skip_delivery" in names and "pause_subscription" in names and "instead" in folded:
        names.remove("pause_subscription")  # the fallback of a skip that is not possible
    if "update_address" in turn.tools and _address(turn.question):
        names.insert(0, "update_address")
    if "close_ticket" in names and "escalate_ticket" in names and "if" in folded.split():
        return names  # a conditional plan; _Plan.write picks the branch
    return names


class _Plan:
    """Walks a plan over the calls this turn already made: a call the plan needs that already
    ran (same tool and arguments, as often) is done; the first one that did not is next."""

    def __init__(self, turn: Turn, build: Build) -> None:
        self.turn = turn
        self.build = build
        self.seen: dict[str, int] = {}
        self.done: list[Call] = []
        self.notes: list[str] = []

    def run(self, name: str, arguments: dict[str, Any]) -> tuple[Step | None, Any]:
        if name in _READ_NAMES:  # a read is made once; its first result is what was decided on
            for call in self.turn.calls:
                if call.name == name and call.arguments == arguments:
                    return None, call.result
            return self.turn.call(name, arguments), None
        key = name + json.dumps(arguments, sort_keys=True)
        self.seen[key] = self.seen.get(key, 0) + 1
        matching = [c for c in self.turn.calls if c.name == name and c.arguments == arguments]
        if len(matching) >= self.seen[key]:
            result = matching[self.seen[key] - 1].result
            if name not in _READ_NAMES:
                self.done.append(matching[self.seen[key] - 1])
            return None, result
        return self.turn.call(name, arguments), None

    def read(self, param: str, value: str) -> tuple[Step | None, Any]:
        for call in self.turn.history:
            if call.arguments.get(param) == value and call.name in _READ_NAMES:
                return None, call.result
        reader = _reader(self.turn, param)
        if reader is None:
            return None, None
        return self.run(reader, {param: value})

    def write(self, name: str) -> Step | None:
        props = _properties(self.turn, name)
        id_param = next((p for p in props if p in _ID_PATTERNS or p == "tarih"), None)
        values = _ids(self.turn, id_param) if id_param else [""]
        if id_param and not values:
            return None
        if id_param is None:
            for tool in self.turn.defs:
                params = list(tool.parameters.get("properties", {}))
                if tool.name in _READ_NAMES and len(params) == 1 and params[0] in _ID_PATTERNS:
                    found = _ids(self.turn, params[0])
                    if found:
                        step, _ = self.read(params[0], found[0])
                        if step is not None:
                            return step
        chosen = _choose(self, name, id_param, values)
        if isinstance(chosen, ToolCallRequest):
            return chosen
        for value in chosen:
            record: Any = None
            unread = name == "issue_refund" and not self.build.read_before_refund  # v2's (b)
            if id_param and name not in ("randevu_iptal",) and not unread:
                step, record = self.read(id_param, value)
                if step is not None:
                    return step
            if isinstance(record, dict) and _error(record):
                self.notes.append(f"I could not read {value}: {_error(record)}.")
                continue
            why = _policy(self.turn, name, record, value)
            if why is not None:
                if self.done:
                    self.notes.append(why)
                    continue
                return refusal(self.turn, why) if why.startswith("!") else why
            arguments = _arguments(self.turn, name, props, id_param, value, record)
            if arguments is None:
                continue
            step, result = self.run(name, arguments)
            if step is not None:
                return step
            if _error(result) and name == "skip_delivery":
                self.notes.append(f"The skip was not possible ({_error(result)}).")
                fallback = self._fallback(value)
                if fallback is not None:
                    return fallback
        return None

    def _fallback(self, value: str) -> Step | None:
        if "pause_subscription" in self.turn.tools and "pause" in self.turn.question.lower():
            arguments = {"customer_id": value, "months": _months(self.turn.question) or 1}
            step, _ = self.run("pause_subscription", arguments)
            return step
        return None

    def look_up(self) -> Step | None:
        """A request only to look at a record named in the latest message: read it, then say
        what it holds (the amount, the date, the state)."""
        for tool in self.turn.defs:
            params = list(tool.parameters.get("properties", {}))
            if tool.name not in _READ_NAMES or len(params) != 1 or params[0] not in _ID_PATTERNS:
                continue
            pattern = _ID_PATTERNS[params[0]]
            found = re.findall(pattern, self.turn.question)
            if not found or tool.name == "search_docs":
                continue
            step, record = self.read(params[0], found[0])
            if step is not None:
                return step
            if isinstance(record, dict):
                return _summary(record, found[0], _turkish(self.turn.question))
        return None

    def report(self) -> str:
        turkish = _turkish(self.turn.question)
        parts: list[str] = []
        for call in self.done:
            parts.append(_describe(call, turkish))
        reread = self._reread()
        if reread:
            parts.append(reread)
        parts += self.notes
        if not parts:
            return "Tamam." if turkish else "Nothing needed changing."
        return " ".join(parts)

    def _reread(self) -> str:
        """What the user asked to be told from the latest read: an address, a total, a
        minimum payment."""
        text = _fold(self.turn.question)
        asked = (
            ("address", "address", "The order's address is now {}."),
            ("total", "total", "The order total is {}."),
            ("asgari", "asgari_odeme", "Asgari ödeme tutarı {} TL."),
        )
        told: list[str] = []
        for word, field, sentence in asked:
            for call in reversed(self.turn.calls):
                result = call.result if call.name in _READ_NAMES else None
                if isinstance(result, dict) and word in text and field in result:
                    told.append(sentence.format(result[field]))
                    break
        return " ".join(told)


_READ_NAMES = frozenset({
    "get_order", "get_subscription", "get_ticket", "lookup_customer", "fatura_sorgula",
    "sozlesme_getir", "ekstre_getir", "takvim_getir", "search_docs",
})  # fmt: skip


def _reader(turn: Turn, param: str) -> str | None:
    for tool in turn.defs:
        if tool.name in _READ_NAMES and param in tool.parameters.get("properties", {}):
            return tool.name
    return None


def _choose(plan: _Plan, name: str, param: str | None, values: list[str]) -> Any:
    """Which of several named records a write goes to: all of them, or one chosen by
    comparing what their reads say ("whichever gets boxes more often", "delivered first")."""
    text = _fold(plan.turn.question)
    if len(values) < 2 or param is None:
        return values
    if "second one" in text:
        return [values[1]]
    if "more often" in text or "delivered first" in text or "first one" in text:
        records = []
        for value in values:
            step, record = plan.read(param, value)
            if step is not None:
                return step
            records.append((value, record if isinstance(record, dict) else {}))
        if "more often" in text:
            ordered = sorted(records, key=lambda r: r[1].get("interval_weeks", 99))
            return [ordered[0][0]] if name == "change_interval" else [ordered[-1][0]]
        ordered = sorted(records, key=lambda r: str(r[1].get("delivered", "9999")))
        return [ordered[0][0]]
    if "second one" in text:
        return [values[1]]
    return values


def _policy(turn: Turn, name: str, record: Any, value: str) -> str | None:
    """Why this write must not run (an answer), or None. A leading '!' marks a refusal."""
    text = turn.question
    everything = " ".join(turn.user_texts)
    tool = next((t for t in turn.defs if t.name == name), None)
    description = (tool.description if tool else "").lower()
    record = record if isinstance(record, dict) else None
    packed = record is not None and record.get("status") in ("packed", "shipped", "delivered")
    if packed and "not been packed" in description:
        assert record is not None
        return (
            f"Order {value} is already {record['status']}, so it is too late to change that; "
            "a carrier redirect is the only option left."
        )
    if name == "issue_refund" and record and _refund_amount(text, record) > REFUND_LIMIT_EUR:
        return (
            f"!a refund above €{REFUND_LIMIT_EUR:.0f} needs a team lead's approval "
            "recorded in the Ledger tool first"
        )
    verified = record is not None and all(
        str(record.get(field)) in everything for field in ("card_last4", "postcode")
    )
    if name == "update_email" and record and not verified:
        return (
            "!I need to confirm it's you first: please give the last four digits of the card "
            "on file and the postcode of your most recent order"
        )
    asked = _EMAIL_RE.findall(text)
    if name == "export_customer_data" and record and asked and record.get("email") not in asked:
        return "!a data export goes only to the email address on file"
    if name == "send_reset_link" and asked:
        return "!a reset link goes only to the email address on file, not to a new one"
    if name == "fatura_ode" and record and record.get("durum") == "odendi":
        return f"{value} numaralı aboneliğin açık faturası yok; bu dönemin faturası ödenmiş."
    solved = re.search(r"solved|resolved|works|fixed|can close|close it|\bif\b", text, re.I)
    if name == "close_ticket" and not solved:
        return "!a ticket is closed only when the customer's problem is solved"
    return None


def _arguments(
    turn: Turn, name: str, props: dict[str, Any], id_param: str | None, value: str, record: Any
) -> dict[str, Any] | None:
    text = turn.question
    folded = _fold(text)
    arguments: dict[str, Any] = {}
    if id_param:
        arguments[id_param] = value
    for param, schema in props.items():
        if param in arguments:
            continue
        filled = _fill(turn, name, param, schema, record, text, folded)
        if filled is None:
            required = tool_required(turn, name)
            if param in required:
                return None
            continue
        arguments[param] = filled
    # "If its priority is low, note and close it; if not, escalate": one branch runs.
    if "if" in folded.split() and "low" in folded and isinstance(record, dict):
        low = record.get("priority") == "low"
        if (name == "escalate_ticket" and low) or (
            name in ("add_note", "close_ticket") and not low
        ):
            return None
    return arguments


def tool_required(turn: Turn, name: str) -> list[str]:
    tool = next((t for t in turn.defs if t.name == name), None)
    return list(tool.parameters.get("required", [])) if tool else []


def _fill(
    turn: Turn, name: str, param: str, schema: dict[str, Any], record: Any, text: str, folded: str
) -> Any:
    record = record if isinstance(record, dict) else {}
    if param == "amount":
        return _refund_amount(text, record or None)
    if param == "weeks":
        found = re.search(r"(\d+)\s*weeks?", folded)
        return int(found.group(1)) if found else None
    if param == "months":
        return _months(text) or None
    if param == "team":
        return _team(turn, record, schema)
    if param == "text":
        quoted = re.search(r"['\"‘“]([^'\"’”]{3,})['\"’”]", text)
        if quoted:
            return quoted.group(1)
        after = re.search(r"\bnote\b[^.]*?\b(?:that|:)\s*([^.]+)", text)
        return after.group(1).strip() if after else "checked by the support bot"
    if param == "address":
        return _address(text)
    if param == "email":
        emails = _EMAIL_RE.findall(text)
        return emails[-1] if emails else None
    if param == "mesaj":
        after = re.search(r":\s*(.+)$", text.strip())
        if after and name == "hatirlatma_gonder" and "sms" not in folded[: after.start()]:
            return after.group(1).strip()
        if "iade" in folded:
            return "Depozito iadeniz yapıldı."
        return "Kira ödemeniz kaydedildi, teşekkürler."
    if param == "ay":
        month = _tr_month(folded)
        return f"{YEAR}-{month:02d}" if month else None
    if param == "tutar":
        if name == "depozito_iade" and "depozito" in record:
            return record["depozito"]
        if name == "odeme_kaydet":
            contract = record or _history_field(turn, "aylik_kira")
            if isinstance(contract, dict) and "aylik_kira" in contract:
                return contract["aylik_kira"]
        if "tutar" in record:
            return record["tutar"]
        money = re.search(r"(\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?\s*TL", text)
        return float(money.group(1).replace(".", "")) if money else None
    if param == "islem_no":
        return _transaction(turn, folded)
    if param == "taksit":
        found = re.search(r"(\d+)\s*taksit", folded)
        return int(found.group(1)) if found else None
    if param == "yeni_limit":
        statement = _history_field(turn, "toplam_borc")
        if isinstance(statement, dict) and re.search(r"iki kat", folded):
            return round(2 * float(statement["toplam_borc"]), 2)
        return None
    if param == "saat":
        return _slot(turn, folded)
    if param == "konu":
        found = re.search(r"konu:?\s*([^,.]+)", text, re.I)
        if found:
            return found.group(1).strip()
        before = re.search(r"(\w+(?: \w+)?) (?:randevusu|randevu|görüşmesi)", text)
        return before.group(1) if before else "randevu"
    if param in record:
        return record[param]
    return None


def _history_field(turn: Turn, field: str) -> Any:
    for call in reversed(turn.history + turn.calls):
        if isinstance(call.result, dict) and field in call.result:
            return call.result
    return None


def _transaction(turn: Turn, folded: str) -> str | None:
    statement = _history_field(turn, "harcamalar")
    if not isinstance(statement, dict):
        return None
    items = [i for i in statement["harcamalar"] if isinstance(i, dict)]
    generic = {"alisverisi", "alisveris", "harcama", "harcamasi", "odeme"}
    for item in items:
        words = [w for w in _words(_fold(str(item.get("aciklama", "")))) if len(w) >= 4]
        if any(w[:6] in folded for w in words if w not in generic):
            return str(item["islem_no"])
    above = re.search(r"(\d{1,3}(?:\.\d{3})+|\d+)\s*tl'?n?in uzerindeki", folded)
    if above:
        limit = float(above.group(1).replace(".", ""))
        for item in items:
            if float(item.get("tutar", 0)) > limit:
                return str(item["islem_no"])
    if "en buyuk" in folded and items:
        return str(max(items, key=lambda i: float(i.get("tutar", 0)))["islem_no"])
    return None


def _slot(turn: Turn, folded: str) -> str | None:
    calendar = _history_field(turn, "bos")
    if not isinstance(calendar, dict):
        return None
    free = sorted(str(s) for s in calendar.get("bos", []))
    wanted = re.search(r"saat (\d{1,2})(?::(\d{2}))?", folded)
    if wanted:
        slot = f"{int(wanted.group(1)):02d}:{wanted.group(2) or '00'}"
        if slot in free:
            return slot
    if "ogleden sonra" in folded:
        free = [s for s in free if s >= "12:00"]
    elif "ogleden once" in folded or "sabah" in folded:
        free = [s for s in free if s < "12:00"]
    return free[0] if free else None


def _team(turn: Turn, record: dict[str, Any], schema: dict[str, Any]) -> str | None:
    allowed = schema.get("enum") or list(_TEAMS)
    for source in (_fold(turn.question), _fold(" ".join(str(v) for v in record.values()))):
        for team in allowed:
            if team in source.split():
                return str(team)
        for team in allowed:
            if any(word in source for word in _TEAMS.get(str(team), ())):
                return str(team)
    return None


def _ids(turn: Turn, param: str) -> list[str]:
    """Values for an id parameter: from the latest message, else from earlier turns (the latest
    mention, or the one the user introduced as themselves)."""
    if param == "tarih":
        return [d for d in [_tr_date(turn.question)] if d] or [
            str(c.arguments["tarih"]) for c in turn.history[-1:] if "tarih" in c.arguments
        ]
    pattern = _ID_PATTERNS[param]
    if param == "kart_son4" and not re.search(r"kart|card", turn.question, re.I):
        found: list[str] = []
    else:
        found = list(dict.fromkeys(re.findall(pattern, turn.question)))
    if param == "order_id" and not found:
        found = [m for m in _ORDER_RE.findall(turn.question)]
    if param == "randevu_no" and not found:
        return _appointment(turn)
    if param == "customer_id" and len(found) > 1:
        own = re.search(r"\bI'm (?:customer )?(C-\d{4})", turn.question)
        return [own.group(1)] if own else found
    if found:
        return found
    for text in reversed(turn.user_texts[:-1]):
        earlier = list(dict.fromkeys(re.findall(pattern, text)))
        if param == "customer_id":
            earlier = re.findall(r"\bI'm (?:customer )?(C-\d{4})", text) or earlier
        if earlier:
            return earlier
    for call in reversed(turn.history):
        if param in call.arguments:
            return [str(call.arguments[param])]
    return []


def _appointment(turn: Turn) -> list[str]:
    """An appointment the user names by what it is about ("the one at school")."""
    folded = _fold(turn.question)
    for reply in reversed(turn.replies):
        for match in re.finditer(r"(R-\d{3})((?:(?!R-\d)[^,.;])*)", reply):
            about = _fold(match.group(0))
            if ("okul" in folded and ("veli" in about or "okul" in about)) or (
                "noter" in folded and "noter" in about
            ):
                return [match.group(1)]
    return []


def _summary(record: dict[str, Any], value: str, turkish: bool) -> str:
    """What a record holds, in one sentence: its scalar fields other than the id."""
    fields = [
        f"{key}: {item}"
        for key, item in record.items()
        if isinstance(item, str | int | float) and str(item) != value
    ][:6]
    if turkish:
        return f"{value} kaydı — " + "; ".join(fields) + "."
    return f"{value} — " + "; ".join(fields) + "."


def _describe(call: Call, turkish: bool) -> str:
    args = ", ".join(f"{v}" for v in call.arguments.values())
    status = ""
    receipts = ""
    if isinstance(call.result, dict):
        status = str(call.result.get("status") or call.result.get("durum") or "")
        ids = [str(v) for v in call.result.values() if re.fullmatch(r"[A-Z]{2,}-\d+", str(v))]
        receipts = f" ({', '.join(ids)})" if ids else ""
    if _error(call.result):
        return f"{call.name} ({args}) failed: {_error(call.result)}."
    if call.name == "pause_subscription":
        return f"I paused the subscription of {call.arguments.get('customer_id')}."
    if turkish:
        return f"{call.name} yapıldı: {args}{receipts}."
    return f"Done: {call.name.replace('_', ' ')} for {args}{' (' + status + ')' if status else ''}."


def refusal(turn: Turn, why: str) -> str:
    why = why.lstrip("!")
    if _turkish(turn.question):
        return "Bunu yapamam: bu istek başka birinin hesabı, parası ya da bilgisiyle ilgili."
    if "confirm it's you" in why:
        return f"I can't do that yet: {why}."
    return f"I can't help with that: {why}."


def _unsafe(text: str) -> bool:
    folded = _fold(text)
    return any(marker in folded for marker in _UNSAFE)


def _asks(sentence: str) -> bool:
    """Whether a sentence asks for an action, not for information."""
    lowered = sentence.strip().lower()
    if not lowered.endswith("?"):
        return True
    if re.search(r"\b(can|could|would) you\b|\bplease\b", lowered):
        return True
    question = re.search(r"\b(how|what|when|which|why|where|who)\b", lowered)
    opening = re.match(r"(do|does|did|is|are|will|was|were)\b", lowered)
    return not (question or opening) or _turkish(sentence)


def _address(text: str) -> str | None:
    found = re.search(r"\bto ([A-Z][^.?!]*?\d+[^.?!]*?)(?:\s+instead)?\s*[.?!]", text)
    return found.group(1).strip() if found else None


def _months(text: str) -> int | None:
    found = re.search(r"\b(\d+|one|two|three|four|five|six)\s+months?\b", text, re.I)
    if not found:
        return None
    value = found.group(1).lower()
    return int(value) if value.isdigit() else _NUMBER_WORDS[value]


def _tr_month(folded: str) -> int | None:
    for index, month in enumerate(_TR_MONTHS.split(), start=1):
        if re.search(rf"\b{month}", folded):
            return index
    return None


def _tr_date(text: str) -> str | None:
    found = re.search(r"\b(\d{1,2}) (\w+)", _fold(text))
    while found:
        month = _tr_month(found.group(2))
        if month and found.group(2).startswith(_TR_MONTHS.split()[month - 1]):
            return f"{YEAR}-{month:02d}-{int(found.group(1)):02d}"
        found = re.search(r"\b(\d{1,2}) (\w+)", _fold(text)[found.end() :])
    return None


def _turkish(text: str) -> bool:
    return bool(_TURKISH.search(text)) or bool(
        re.search(r"\b(misin|misiniz|mısın|lutfen|icin|ve|bir|bu)\b", text.lower())
    )


def _fold(text: str) -> str:
    """Lower case ASCII: Turkish dotless i and accents folded, so 'ÖDEMEK' finds 'odemek'."""
    text = text.replace("İ", "i").replace("ı", "i")
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("ı", "i")


def _properties(turn: Turn, name: str) -> dict[str, Any]:
    tool = next((t for t in turn.defs if t.name == name), None)
    return dict(tool.parameters.get("properties", {})) if tool else {}


# -- extraction -------------------------------------------------------------------------------

_AMOUNT_RE = re.compile(r"(?<![\w.,])(-?)[€$£]?(\d{1,3}(?:[.,]\d{3})*|\d+)[.,](\d{2})(?![\d])")
_VAT_LINE = re.compile(r"\b(vat|kdv|tax|btw|mwst)\b", re.I)
_CURRENCIES = ("EUR", "USD", "GBP", "TRY", "CHF", "SEK", "PLN")
_INVOICE_RE = re.compile(
    r"\b(?:invoice|credit note|fatura)\s*(?:no\.?|number|nr\.?)?\s*[:#]?\s*#?"
    r"([A-Z0-9][A-Z0-9/-]*\d[A-Z0-9/-]*)",
    re.IGNORECASE,
)
_INVOICE_KEYS = ("invoice_number", "issue_date", "seller", "currency", "net_total", "vat_amount")


def extract(message: str) -> str:
    """The fields the request names, from the document in it, as a JSON object."""
    if not any(key in message for key in _INVOICE_KEYS):
        email = _EMAIL_RE.search(message)
        fields = {
            "order_id": _order_id((message,)),
            "email": email.group(0) if email else None,
            "purchased": _iso_date(message),
        }
        return json.dumps(fields, sort_keys=True)
    document = _document(message)
    net, vat, total = _amounts(document)
    found = {
        "invoice_number": _invoice_number(document),
        "issue_date": _any_date(document),
        "seller": _seller(document),
        "currency": _currency(document),
        "net_total": net,
        "vat_amount": vat,
        "total": total,
    }
    asked = [key for key in found if re.search(rf"\b{key}\b", message)]
    return json.dumps({key: found[key] for key in asked}, ensure_ascii=False)


def _document(message: str) -> str:
    found = re.search(r"^(?:document|belge|message)\s*:\s*$", message, re.I | re.M)
    return message[found.end() :].strip() if found else message


def _amounts(document: str) -> tuple[float, float, float]:
    values: list[tuple[float, bool]] = []
    for line in document.splitlines():
        for sign, whole, cents in _AMOUNT_RE.findall(line):
            number = float(re.sub(r"[.,]", "", whole) + "." + cents) * (-1 if sign else 1)
            values.append((number, bool(_VAT_LINE.search(line))))
    best: tuple[float, float, float] | None = None
    for net, _ in values:
        for vat, on_vat_line in values:
            if not on_vat_line or abs(vat) > abs(net):
                continue
            for total, _ in values:
                if abs(net + vat - total) < 0.005 and (best is None or abs(total) > abs(best[2])):
                    best = (net, vat, total)
    if best is not None:
        return best
    largest = max((v for v, _ in values), key=abs, default=0.0)
    return largest, 0.0, largest


def _invoice_number(document: str) -> str | None:
    found = _INVOICE_RE.search(document)
    return found.group(1) if found else None


def _any_date(document: str) -> str | None:
    months = _MONTHS.split()
    tr = _TR_MONTHS.split()
    us = "MM/DD" in document
    pattern = re.compile(
        r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b"
        r"|\b(\d{1,2}) ([A-Za-zçğıöşüÇĞİÖŞÜ]+) (\d{4})\b"
    )
    for match in pattern.finditer(document):
        if match.group(1):
            return f"{match.group(1)}-{match.group(2)}-{match.group(3)}"
        if match.group(4):
            day, month = int(match.group(4)), int(match.group(5))
            if us:
                day, month = month, day
            return f"{match.group(6)}-{month:02d}-{day:02d}"
        name = _fold(match.group(8))
        number = next((i for i, m in enumerate(months, 1) if m == name), None) or next(
            (i for i, m in enumerate(tr, 1) if m == name), None
        )
        if number:
            return f"{match.group(9)}-{number:02d}-{int(match.group(7)):02d}"
    return None


def _seller(document: str) -> str | None:
    labelled = re.search(r"^(?:seller|satıcı|from)\s*:\s*(.+)$", document, re.I | re.M)
    if labelled:
        return labelled.group(1).strip()
    first = next((line.strip() for line in document.splitlines() if line.strip()), "")
    first = re.split(r"\s+[—·|]\s+|,\s+(?=[A-Z])", first)[0].strip()
    return first or None


def _currency(document: str) -> str | None:
    for code in _CURRENCIES:
        if re.search(rf"\b{code}\b", document):
            return code
    if re.search(r"\bTL\b", document):
        return "TRY"
    for symbol, code in (("€", "EUR"), ("euro", "EUR"), ("$", "USD"), ("£", "GBP")):
        if symbol in document.lower():
            return code
    return None


# -- shared helpers ---------------------------------------------------------------------------


def _hits(keys: Iterable[str], text: str) -> set[str]:
    words = set(_words(text))
    return {k for k in keys if any(_same(k, w) for w in words)}


def _same(a: str, b: str) -> bool:
    if a == b or a + "s" == b or b + "s" == a:
        return True
    return min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _order_id(texts: tuple[str, ...]) -> str | None:
    for text in reversed(texts):  # the latest mention wins
        match = _ORDER_RE.search(text)
        if match:
            return match.group(1)
    return None


def _iso_date(text: str) -> str | None:
    match = _DATE_RE.search(text)
    if match is None:
        return None
    month = _MONTHS.split().index(match.group(2).lower()) + 1
    return f"{match.group(3)}-{month:02d}-{int(match.group(1)):02d}"


def _parse(content: str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return {"error": content}


def _error(result: Any) -> str | None:
    """Why a record-shaped tool result is unusable, or None when it is fine."""
    if not isinstance(result, dict):
        return "the tool returned something that is not a record"
    return str(result["error"]) if "error" in result else None


def _word_count(content: str, calls: list[ToolCallRequest]) -> int:
    words = len(content.split())
    for call in calls:
        words += len(call.name.split()) + len(json.dumps(call.arguments, sort_keys=True).split())
    return words


def _tokens(words: int) -> int:
    """Reported tokens: ceil(4/3 x words), counted over every request message for the prompt
    and over the response for the completion; nothing is ever cached."""
    return (4 * words + 2) // 3
