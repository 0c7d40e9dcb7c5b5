"""The example entrant: a rule-based support "model" for Brightkettle, a fictional kettle shop.

An entrant turns a ``ModelRequest`` into a ``ModelResponse``; the harness runs the agent loop.
Each call decides one step from the request alone (one tool call, or the final answer for the
current user turn), with no state, randomness, network or clock.

``respond_v2`` is ``respond_v1`` with three planted regressions, one ``Build`` switch each:
(a) ``cite``: grounded answers lose their ``[faq.md#refunds]``-style citation;
(b) ``read_before_refund``: it calls ``issue_refund`` without ``get_order`` first, so it never
    sees the order total and also refunds orders above the approval limit;
(c) ``decline_unanswerable``: when no passage covers the question it answers from the nearest
    passage anyway instead of declining.

When v1 declines: a question's key words are its words minus stopwords and scaffolding ("how",
"long", "take", ...). v1 answers only if one retrieved passage (title and text) holds every key
word, two words matching when equal or when one is a prefix of the other and the shorter has at
least four letters (refund/refunds, recall/recalled); otherwise it says it does not know.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from bench.core.trace import ToolCallRequest, Usage
from bench.targets.base import ModelRequest, ModelResponse

REFUND_LIMIT_EUR = 150.0  # policy.md, "Refund limits": above this an agent needs approval
SEARCH_K = 3
DECLINE = (
    "I don't know: the documents do not say, and I cannot find it in the passages I retrieved."
)

_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "did", "do", "does", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of",
    "on", "or", "our", "should", "so", "the", "their", "there", "this", "to", "was", "we", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
})  # fmt: skip
_SCAFFOLDING = frozenset({"long", "many", "much", "take", "usually", "use", "need", "tell"})
_STATUS_WORDS = ("status", "where is", "track")
_MONTHS = "january february march april may june july august september october november december"
_ORDER_RE = re.compile(r"\border\s*#?\s*(\d{3,})", re.IGNORECASE)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE_RE = re.compile(rf"\b(\d{{1,2}}) ({_MONTHS.replace(' ', '|')}) (\d{{4}})\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")


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


class Turn(NamedTuple):
    """What one step needs to know about the current user turn."""

    number: int  # how many user messages came before the current one
    question: str  # the current (last) user message
    user_texts: tuple[str, ...]  # every user message so far, oldest first
    calls_made: int  # tool calls already made in this turn
    results: dict[str, Any]  # tool name -> parsed result of its latest call in this turn
    tools: frozenset[str]  # names of the tools offered

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
    names: dict[str, str] = {}
    results: dict[str, Any] = {}
    for message in request.messages[users[-1] + 1 :]:
        for call in message.tool_calls:
            names[call.id] = call.name
        if message.role == "tool" and message.tool_call_id in names:
            results[names[message.tool_call_id]] = _parse(message.content)
    return Turn(
        number=len(users) - 1,
        question=request.messages[users[-1]].content,
        user_texts=tuple(request.messages[i].content for i in users),
        calls_made=len(names),
        results=results,
        tools=frozenset(tool.name for tool in request.tools),
    )


def decide(turn: Turn, build: Build) -> Step:
    text = turn.question.lower()
    if "extract" in text:
        return extract(turn.question)
    order_id = _order_id(turn.user_texts)
    if "refund" in text and order_id and "issue_refund" in turn.tools:
        return refund(turn, order_id, build)
    if order_id and "get_order" in turn.tools and any(w in text for w in _STATUS_WORDS):
        return order_status(turn, order_id)
    if "search_docs" in turn.tools:
        return grounded_answer(turn, build)
    return "I can't help with that here: I have no tool or document for it."


def refund(turn: Turn, order_id: str, build: Build) -> Step:
    if build.read_before_refund:
        if "get_order" not in turn.results:
            return turn.call("get_order", {"order_id": order_id})
        order = turn.results["get_order"]
        if _error(order):
            return f"I could not look up order {order_id}: {_error(order)}"
        total = float(order.get("total", 0))
        if total > REFUND_LIMIT_EUR:
            return (
                f"I can't do that myself: order {order_id} totals €{total:.2f}, above "
                f"the €{REFUND_LIMIT_EUR:.0f} an agent may refund without approval. A team lead "
                "has to approve it in the Ledger tool first; an approval in chat does not count."
            )
    if "issue_refund" not in turn.results:
        return turn.call("issue_refund", {"order_id": order_id})
    done = turn.results["issue_refund"]
    if _error(done):
        return f"The refund for order {order_id} did not go through: {_error(done)}"
    return (
        f"Done: I refunded €{float(done.get('amount', 0)):.2f} for order {order_id} "
        f"(refund {done.get('refund_id', 'pending')}). It reaches your original payment method "
        f"within {done.get('eta_business_days', 7)} business days."
    )


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


def grounded_answer(turn: Turn, build: Build) -> Step:
    if "search_docs" not in turn.results:
        return turn.call("search_docs", {"query": turn.question, "k": SEARCH_K})
    found = turn.results["search_docs"]
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    keys = key_words(turn.question)
    if not passages:
        return DECLINE if build.decline_unanswerable else "Yes, our standard policy covers that."
    hits = [len(_hits(keys, f"{p.get('title', '')} {p.get('text', '')}")) for p in passages]
    best = passages[hits.index(max(hits))]  # most key words; retrieval order breaks ties
    covers = bool(keys) and max(hits) == len(keys)
    if not covers and build.decline_unanswerable:
        return DECLINE
    answer = covering_sentences(str(best.get("text", "")), keys)
    return f"{answer} [{best.get('id')}]" if build.cite else answer


def key_words(question: str) -> list[str]:
    """The question's content words, in order, each once."""
    skip = _STOPWORDS | _SCAFFOLDING
    return list(dict.fromkeys(w for w in _words(question) if w not in skip))


def covering_sentences(text: str, keys: list[str]) -> str:
    """Sentences picked greedily until they hold every key word they can, in text order."""
    sentences = [" ".join(s.split()) for s in _SENTENCE_RE.split(text.strip()) if s.strip()]
    missing = set(keys)
    chosen: set[int] = set()
    while missing and sentences:
        gains = [len(_hits(missing, s)) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: (gains[i], -i))
        if gains[best] == 0:
            break
        chosen.add(best)
        missing -= _hits(missing, sentences[best])
    return " ".join(sentences[i] for i in sorted(chosen or {0})) if sentences else ""


def extract(message: str) -> str:
    """The order number, email and purchase date of a pasted message, as a JSON object."""
    email = _EMAIL_RE.search(message)
    fields = {
        "order_id": _order_id((message,)),
        "email": email.group(0) if email else None,
        "purchased": _iso_date(message),
    }
    return json.dumps(fields, sort_keys=True)


def _hits(keys: Iterable[str], text: str) -> set[str]:
    words = set(_words(text))
    return {k for k in keys if any(_same(k, w) for w in words)}


def _same(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


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
