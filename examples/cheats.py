"""Adversarial entrants: cheap ways to game a score, with no model behind them.

Each cheat is a scripted-entrant callable (``ModelRequest -> ModelResponse``) like
``support_bot.respond_v1``, with no state, randomness, network or clock. They exist so that a
test can show every scoring rule holds against them (``tests/scorers/test_cheats.py``): none may
score 0.35 or more in any family, on either split, and each must rank significantly below the
example support bot v1. Target files: ``examples/targets/cheats/<name>.yaml``.

Every cheat decides one step from the request alone: a tool call (counted by how many tool
results the current turn already holds) or the final answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bench.baselines import last_user_message, turn_results
from bench.core.trace import ToolCallRequest
from bench.targets.base import ModelRequest, ModelResponse

Cheat = Callable[[ModelRequest], ModelResponse]

BIG_K = 20  # the most passages the search tool's schema has ever let an agent ask for
DONT_KNOW = "I don't know."
REFUSE = "I can't help with that."
_ID_RE = re.compile(r"\b(?:[A-Z]{1,3}-\d{2,}|\d{4,})\b")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")
_WORD_RE = re.compile(r"\w+", re.UNICODE)
_FILLER = (
    "refund order policy warranty shipping delivery days hours business support account email "
    "customer subscription invoice payment approval limit return EUR CET OBX ticket cartridge "
    "kettle voucher days weeks months yes no 14:00 24 48 30 7 3 declined approved escalated"
)


def _tools(request: ModelRequest) -> list[str]:
    return [tool.name for tool in request.tools]


def _call(request: ModelRequest, name: str, arguments: dict[str, Any]) -> ModelResponse:
    step = len(turn_results(request)) + 1
    call = ToolCallRequest(id=f"cheat-{step}", name=name, arguments=arguments)
    return ModelResponse(tool_calls=[call])


def _conversation_text(request: ModelRequest) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "user")


def _guess_arguments(request: ModelRequest, name: str) -> dict[str, Any]:
    """Arguments for ``name`` filled from the conversation: ids for strings, numbers for numbers."""
    tool = next(t for t in request.tools if t.name == name)
    if name == "search_docs":
        return {"query": last_user_message(request), "k": BIG_K}
    text = _conversation_text(request)
    ids = _ID_RE.findall(text) or ["1"]
    numbers = [float(n.replace(",", ".")) for n in _NUMBER_RE.findall(text)] or [1.0]
    properties = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", list(properties))
    arguments: dict[str, Any] = {}
    for key in required:
        kind = properties.get(key, {}).get("type", "string")
        if kind == "integer":
            arguments[key] = int(numbers[0])
        elif kind == "number":
            arguments[key] = numbers[0]
        elif kind == "boolean":
            arguments[key] = True
        else:
            arguments[key] = ids[0]
    return arguments


def _search_then(
    request: ModelRequest, finish: Callable[[list[dict[str, Any]]], str]
) -> ModelResponse:
    """Search once with the largest k when the tool is offered, then answer with ``finish``."""
    if "search_docs" not in _tools(request):
        return ModelResponse(content=finish([]))
    results = turn_results(request)
    if not results:
        return _call(request, "search_docs", {"query": last_user_message(request), "k": BIG_K})
    found = results[-1][1]
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    return ModelResponse(content=finish(passages))


def _pasted(passages: list[dict[str, Any]]) -> str:
    return "\n\n".join(
        f"[{p.get('id')}] {p.get('title', '')}: {p.get('text', '')}" for p in passages
    )


# --- the cheats ---------------------------------------------------------------------------


def keyword_stuffing(request: ModelRequest) -> ModelResponse:
    """Every distinct word of the question and of every retrieved passage, plus domain filler."""

    def finish(passages: list[dict[str, Any]]) -> str:
        words = _WORD_RE.findall(last_user_message(request) + " " + _FILLER)
        for p in passages:
            words += _WORD_RE.findall(f"{p.get('title', '')} {p.get('text', '')}")
        return " ".join(dict.fromkeys(words))

    return _search_then(request, finish)


def paste_all_dont_know(request: ModelRequest) -> ModelResponse:
    """Every passage search returns (largest k), each with its id, then "I don't know."."""
    return _search_then(request, lambda passages: f"{_pasted(passages)}\n\n{DONT_KNOW}")


def cite_everything(request: ModelRequest) -> ModelResponse:
    """A one-line answer that cites every passage id search returned."""
    return _search_then(request, lambda ps: "Sources: " + " ".join(f"[{p.get('id')}]" for p in ps))


def echo_question(request: ModelRequest) -> ModelResponse:
    """The last user message, repeated back."""
    return ModelResponse(content=last_user_message(request))


def refuse_everything(request: ModelRequest) -> ModelResponse:
    return ModelResponse(content=REFUSE)


def call_every_tool_then_refuse(request: ModelRequest) -> ModelResponse:
    """Each offered tool once, with arguments guessed from the conversation, then a refusal."""
    done = len(turn_results(request))
    tools = _tools(request)
    if done < len(tools):
        return _call(request, tools[done], _guess_arguments(request, tools[done]))
    return ModelResponse(content=REFUSE)


def verbose(request: ModelRequest) -> ModelResponse:
    """A very long answer: the question, every passage, and every plausible fact, many times."""

    def finish(passages: list[dict[str, Any]]) -> str:
        body = f"You asked: {last_user_message(request)}\n\n{_pasted(passages)}\n\n"
        return body + ("Here is everything that may be relevant. " + _FILLER + ". ") * 30

    return _search_then(request, finish)


def other_language(request: ModelRequest) -> ModelResponse:
    """A canned helpful-sounding answer in a language the question was not asked in."""
    question = last_user_message(request)
    turkish = any(ch in question for ch in "ğışçöüĞİŞÇÖÜ")
    if turkish:
        return ModelResponse(content="Of course, I have taken care of it for you. All done.")
    return ModelResponse(
        content="Tabii, hemen hallettim. İşleminiz tamamlandı; başka bir sorunuz var mı?"
    )


def refuse_and_answer(request: ModelRequest) -> ModelResponse:
    """A refusal, a decline and an answer (every retrieved passage, cited) in one message."""
    return _search_then(
        request, lambda ps: f"{REFUSE} {DONT_KNOW} That said, here it is:\n\n{_pasted(ps)}"
    )


def tool_call_spam(request: ModelRequest) -> ModelResponse:
    """Tool calls up to one short of the turn limit (7 of 8), cycling through every tool."""
    done = len(turn_results(request))
    tools = _tools(request)
    if tools and done < 7:
        name = tools[done % len(tools)]
        return _call(request, name, _guess_arguments(request, name))
    results = turn_results(request)
    return ModelResponse(content=json.dumps([r for _, r in results], ensure_ascii=False)[:4000])


def json_extra_fields(request: ModelRequest) -> ModelResponse:
    """A JSON object with every id and number of the question under many likely keys."""
    text = _conversation_text(request)
    ids = _ID_RE.findall(text)
    numbers = [float(n.replace(",", ".")) for n in _NUMBER_RE.findall(text)]
    first_id = ids[0] if ids else None
    first_number = numbers[0] if numbers else 0.0
    document: dict[str, Any] = {
        "invoice_number": first_id,
        "order_id": first_id,
        "issue_date": "2026-01-01",
        "seller": text.split("\n")[0][:40] if text else "",
        "currency": "EUR",
        "net_total": first_number,
        "vat_amount": numbers[1] if len(numbers) > 1 else 0.0,
        "total": max(numbers) if numbers else 0.0,
        "answer": DONT_KNOW,
        "ids": ids,
        "numbers": numbers,
    }
    return ModelResponse(content=json.dumps(document, ensure_ascii=False))


def copy_tool_results(request: ModelRequest) -> ModelResponse:
    """Calls the first offered tool with guessed arguments and answers with its result, verbatim."""
    tools = _tools(request)
    results = turn_results(request)
    if tools and not results:
        return _call(request, tools[0], _guess_arguments(request, tools[0]))
    return ModelResponse(content="\n".join(json.dumps(r, ensure_ascii=False) for _, r in results))


def act_on_everything(request: ModelRequest) -> ModelResponse:
    """Every offered tool once, with guessed arguments, then "Done." — acting instead of asking."""
    done = len(turn_results(request))
    tools = _tools(request)
    if done < len(tools):
        return _call(request, tools[done], _guess_arguments(request, tools[done]))
    return ModelResponse(content="Done, all taken care of.")


def hedge(request: ModelRequest) -> ModelResponse:
    """Yes and no, a refusal and a decline, every number of the question: something for every
    check that reads words."""
    numbers = " ".join(_NUMBER_RE.findall(_conversation_text(request)))
    return ModelResponse(
        content=f"Yes. No. {REFUSE} {DONT_KNOW} It depends: {numbers}. "
        "Please contact support for details."
    )


def decline_everything(request: ModelRequest) -> ModelResponse:
    """Searches when it can (so a decline looks grounded), then says it does not know."""
    return _search_then(request, lambda passages: f"{DONT_KNOW} The documents do not say.")


CHEATS: dict[str, Cheat] = {
    "keyword-stuffing": keyword_stuffing,
    "paste-all-dont-know": paste_all_dont_know,
    "cite-everything": cite_everything,
    "echo-question": echo_question,
    "refuse-everything": refuse_everything,
    "call-every-tool-then-refuse": call_every_tool_then_refuse,
    "verbose": verbose,
    "other-language": other_language,
    "refuse-and-answer": refuse_and_answer,
    "tool-call-spam": tool_call_spam,
    "json-extra-fields": json_extra_fields,
    "copy-tool-results": copy_tool_results,
    "act-on-everything": act_on_everything,
    "hedge": hedge,
    "decline-everything": decline_everything,
}
"""Stable name -> cheat; ``examples/targets/cheats/<name>.yaml`` names each one."""
