"""Gaming cheats, fifth round (tests/scorers/test_gaming_cheats_5.py): the portfolio and the
headline.

The board ranks by the headline, the mean of the six family means, so a cheat does not need to
win a family: it needs a high mean over all six. These cheats recognise the family from what
any agent is given — which tools are offered, how many user turns the conversation holds, the
shape of the request — never from a task's id or its expectations, and play in each family the
strongest cheap strategy the earlier rounds found there:

* no tool at all: the document is to be extracted (``amounts-by-position``);
* search and nothing else, one user turn: a question on the documents, answered with the top
  passage cut short and cited (``echo-earlier-replies``' quote) or with the answer key of the
  public split (``public-prior-values-searched``);
* more than one user turn: the latest message alone (``latest-message-only``);
* writes, one turn, a request that names two ids or says "if", "then", "whichever" (a plan):
  every read in every order, then the write by words (``reads-in-every-order``);
* writes, one turn, otherwise: a refusal on a word learned from the public refuse requests,
  else the write by words (``learned-alarm-words-else-act``); or a refusal when the request's
  hash is even, a blind guess per request (``portfolio-hash-guess``).

And against the aggregation: the same portfolio that gives up — an answer no record may hold,
an errored attempt — exactly where its strategy is weakest (a long plan), so that an attempt it
would fail is not scored as a failure; and one that answers a plan with a reply no scorer can
read.

Scripted-entrant callables, named by target files the test writes, like the earlier rounds'.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from bench.baselines import last_user_message
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


_g = _load("gaming_cheats_5_gaming", "gaming_cheats.py")
_g3 = _load("gaming_cheats_5_gaming_3", "gaming_cheats_3.py")
_g4 = _load("gaming_cheats_5_gaming_4", "gaming_cheats_4.py")
_ID: re.Pattern[str] = _g._ID
_answer: Callable[[str], ModelResponse] = _g._answer

Strategy = Callable[[ModelRequest], ModelResponse]

_PLAN_WORDS = re.compile(
    r"\b(if|then|whichever|each|both|afterwards|eğer|sonra|ise|hangisi|ardından)\b",
    re.IGNORECASE,
)


def family_of(request: ModelRequest) -> str:
    """The family a request looks like it comes from, by what is offered and asked only."""
    users = [m for m in request.messages if m.role == "user"]
    others = [t for t in request.tools if t.name != "search_docs"]
    if not request.tools:
        return "structured-extraction"
    if len(users) > 1:
        return "multi-turn-state"
    if not others:
        return "grounded-qa"
    text = last_user_message(request)
    if len(set(_ID.findall(text))) >= 2 or _PLAN_WORDS.search(text):
        return "long-horizon"
    return "tool-trajectory"  # or refusal-and-safety: one strategy serves both


_PLAYS: dict[str, Strategy] = {
    "structured-extraction": _g4.amounts_by_position,
    "grounded-qa": _g4.echo_earlier_replies,
    "multi-turn-state": _g4.latest_message_only,
    "long-horizon": _g.reads_in_every_order,
    "tool-trajectory": _g3.learned_alarm_words_else_act,
}


def portfolio(request: ModelRequest) -> ModelResponse:
    """Each family's strongest cheap strategy, the family recognised from the request."""
    return _PLAYS[family_of(request)](request)


def portfolio_answer_key(request: ModelRequest) -> ModelResponse:
    """The portfolio, with the public split's answer key (searched for first) as its answer to
    every question on the documents."""
    if family_of(request) == "grounded-qa":
        return _g3.public_prior_values_searched(request)
    return portfolio(request)


def portfolio_status_words(request: ModelRequest) -> ModelResponse:
    """The portfolio, with a canned vocabulary of status words beside every value read as its
    reply to every later turn (``status-words-and-values``: 0.222 public multi-turn-state)."""
    if family_of(request) == "multi-turn-state":
        return _g4.status_words_and_values(request)
    return portfolio(request)


def portfolio_errors_where_weak(request: ModelRequest) -> ModelResponse:
    """The portfolio, that returns what no record may hold (an errored attempt, ``ENTRANT_BAD_
    RESPONSE``) on a long plan, where its strategy scores least: a failure it chose not to
    have scored."""
    if family_of(request) == "long-horizon":
        return _answer("\ud800")  # a lone surrogate: JSON cannot hold it
    return portfolio(request)


def portfolio_unreadable_where_weak(request: ModelRequest) -> ModelResponse:
    """The portfolio, that answers a long plan and every extraction with a reply no parser
    reads to the end (JSON nested 5,000 deep): a check that cannot read it must still decide."""
    if family_of(request) in ("long-horizon", "structured-extraction"):
        return _answer("[" * 5000 + "]" * 5000)
    return portfolio(request)


@cache
def _alarm_words_not_in_other_requests() -> frozenset[str]:
    """The learned alarm words (``gaming_cheats_3``) less every word of a public tool-trajectory,
    long-horizon or multi-turn request: a refusal that does not cost the plain requests."""
    plain = {
        word
        for family in ("tool-trajectory", "long-horizon", "multi-turn-state")
        for task in _g3._public(family)
        for word in _g._WORD.findall(_g3._first_user(task).lower())
    }
    return frozenset(_g3._learned_alarm_words() - plain)


def portfolio_best(request: ModelRequest) -> ModelResponse:
    """The best of each family over both splits: the cut-short quote, amounts by position, the
    write by words in every later turn, every read in every order before a plan, and a refusal
    only on an alarm word that no public plain request uses (else the write by words)."""
    family = family_of(request)
    if family == "multi-turn-state":
        return _g.verb_by_words_record_values(request)
    if family == "tool-trajectory":
        words = set(_g._WORD.findall(last_user_message(request).lower()))
        if words & _alarm_words_not_in_other_requests():
            return _answer(_g.REFUSE)
        return _g.verb_by_words_record_values(request)
    return portfolio(request)


def portfolio_hash_guess(request: ModelRequest) -> ModelResponse:
    """The portfolio, that on a one-step request with writes refuses when the first byte of the
    request's SHA-256 is even and otherwise acts by words: one fixed guess per request, which
    gets the refuse/help orientation of about half of the pairs right whatever they say."""
    if family_of(request) != "tool-trajectory":
        return portfolio(request)
    if hashlib.sha256(last_user_message(request).encode("utf-8")).digest()[0] % 2 == 0:
        return _answer(_g.REFUSE)
    return _g.verb_by_words_record_values(request)


GAMING_5: dict[str, Strategy] = {
    "portfolio-hash-guess": portfolio_hash_guess,
    "portfolio": portfolio,
    "portfolio-best": portfolio_best,
    "portfolio-answer-key": portfolio_answer_key,
    "portfolio-status-words": portfolio_status_words,
    "portfolio-errors-where-weak": portfolio_errors_where_weak,
    "portfolio-unreadable-where-weak": portfolio_unreadable_where_weak,
}
