"""Gaming cheats, sixth round (tests/scorers/test_gaming_cheats_6.py): what the harness tells
the agent.

An agent sees only what the harness sends it: the request, the tools offered with their
schemas, tool results and errors, search results. These cheats read those for the answer or the
scoring instead of doing the task:

* ``regex-invoice-scraper``: docs/LIMITS.md's scraper, kept at last (first code, first date,
  first line as seller, first currency code, last three amounts as net, VAT and total);
* ``vocabulary-oracle``: search as an oracle for whether a question can be answered. Search
  returns nothing for a word the task's documents never use, so the cheat searches each word of
  the question on its own and declines when one that is not a common question word (learned
  from the public answerable questions) finds nothing; otherwise it quotes the top passage cut
  short, cited;
* ``portfolio-vocabulary-oracle``: the fifth round's portfolio with that oracle for grounded
  questions;
* ``split-from-passage-ids``: a private corpus's file names start with ``private-``, so a search
  tells the agent which split it is on: the public answer key on public questions
  (``public-prior-values-searched``), the cut-short quote on private ones;
* ``write-then-echo-the-error``: the write by words, and when the world rejects it, a decline
  with the world's own error as the reply.

Scripted-entrant callables, named by target files the test writes, like the earlier rounds'.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from bench.baselines import last_user_message, turn_results
from bench.corpus.library import CorpusLibrary
from bench.corpus.tokens import tokenize
from bench.targets.base import ModelRequest, ModelResponse

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _load(name: str, file: str) -> Any:
    """A neighbour loaded by path: a scripted entrant's module is not a package member."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_g = _load("gaming_cheats_6_gaming", "gaming_cheats.py")
_g3 = _load("gaming_cheats_6_gaming_3", "gaming_cheats_3.py")
_g4 = _load("gaming_cheats_6_gaming_4", "gaming_cheats_4.py")
_g5 = _load("gaming_cheats_6_gaming_5", "gaming_cheats_5.py")
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls

Strategy = Callable[[ModelRequest], ModelResponse]

# --- structured-extraction: the regex scraper of docs/LIMITS.md -----------------------------

_CODE = re.compile(r"\b[A-Z]{1,4}[-/]?\d[\w/-]*\b")
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_ISO = re.compile(r"\b(EUR|USD|GBP|TRY|CHF|SEK|DKK|NOK|PLN|CZK|JPY)\b")
_AMOUNT = re.compile(r"-?\d{1,3}(?:[.,\s]\d{3})*[.,]\d{2}\b|-?\d+[.,]\d{2}\b")


def _number(text: str) -> float:
    digits = re.sub(r"\s", "", text)
    if re.search(r",\d{2}$", digits):
        return float(digits.replace(".", "").replace(",", "."))
    return float(digits.replace(",", ""))


def regex_invoice_scraper(request: ModelRequest) -> ModelResponse:
    """First code, first date (ISO, or day.month.year turned round), first non-empty line as
    seller, first ISO currency code (else EUR), and the last three amounts as net, VAT and
    total: reads no label, no layout."""
    document = _g._document(request)
    date = _DATE.search(document)
    issue = None
    if date is not None:
        issue = date.group(0) if date.group(1) else (
            f"{date.group(6)}-{int(date.group(5)):02d}-{int(date.group(4)):02d}"
        )  # fmt: skip
    code = _CODE.search(document)
    currency = _ISO.search(document)
    lines = [line.strip() for line in document.splitlines() if line.strip()]
    amounts = [_number(m) for m in _AMOUNT.findall(document)]
    tail = ([0.0, 0.0, 0.0] + amounts)[-3:]
    return _answer(
        json.dumps(
            {
                "invoice_number": code.group(0) if code else None,
                "issue_date": issue or "2026-01-01",
                "seller": lines[0] if lines else "",
                "currency": currency.group(0) if currency else "EUR",
                "net_total": tail[0],
                "vat_amount": tail[1],
                "total": tail[2],
            },
            ensure_ascii=False,
        )
    )


# --- grounded-qa: search as an oracle -------------------------------------------------------

DECLINE = "I don't know: the documents do not say."


@cache
def _common_question_words() -> frozenset[str]:
    """Words of the public answerable questions that their own documents never use ("many",
    "long", "get"): a question word, not a topic the documents lack."""
    library = CorpusLibrary(REPO / "corpora")
    found: set[str] = set()
    document = yaml.safe_load((REPO / "tasks" / "grounded-qa.public.yaml").read_text("utf-8"))
    for task in document["tasks"]:
        if any(e["type"] == "answerable" for e in task["expectations"]):
            continue
        corpus = library.corpus(task["corpus"])
        words = tokenize(task["input"][-1]["content"])
        found.update(word for word in words if not corpus.search(word, 1))
    return frozenset(found)


def _words(question: str) -> list[str]:
    return [w for w in dict.fromkeys(tokenize(question)) if w not in _common_question_words()]


def _quote(result: Any) -> str:
    """The top passage's first 60 % of words, cited (``echo-earlier-replies``' quote)."""
    if not isinstance(result, list) or not result or not isinstance(result[0], dict):
        return DECLINE
    top = result[0]
    words = str(top.get("text", "")).split()
    return f"{' '.join(words[: max(1, len(words) * 6 // 10)])} [{top.get('id', '')}]"


def vocabulary_oracle(request: ModelRequest) -> ModelResponse:
    """Search the question, and each of its uncommon words on its own; decline when one of
    those words finds nothing, else quote the question's top passage cut short."""
    if not any(t.name == "search_docs" for t in request.tools):
        return _answer(DECLINE)
    question = last_user_message(request)
    results = turn_results(request)
    if not results:
        words = _words(question)
        queries = [question[:200], *words]
        return _calls([("search_docs", {"query": q, "k": 1 if i else 3}) for i, q in
                       enumerate(queries)])  # fmt: skip
    if any(not found for _, found in results[1:]):
        return _answer(DECLINE)
    return _answer(_quote(results[0][1]))


def portfolio_vocabulary_oracle(request: ModelRequest) -> ModelResponse:
    """The fifth round's portfolio, with the vocabulary oracle for grounded questions."""
    if _g5.family_of(request) == "grounded-qa":
        return vocabulary_oracle(request)
    return _g5.portfolio(request)


def split_from_passage_ids(request: ModelRequest) -> ModelResponse:
    """One search of the question first; its passage ids name the split (``private-…``): on a
    private question the cut-short quote, on a public one the public answer key (whose own
    first search is the same question's)."""
    if not any(t.name == "search_docs" for t in request.tools):
        return _g5.portfolio(request)
    results = turn_results(request)
    if not results:
        return _calls([("search_docs", {"query": last_user_message(request)[:200]})])
    first = results[0][1]
    ids = [str(p.get("id", "")) for p in first if isinstance(p, dict)] if isinstance(
        first, list) else []  # fmt: skip
    if any(i.startswith("private-") for i in ids):
        return _answer(_quote(first))
    return _g3.public_prior_values_searched(request)  # its first search is the question's


# --- tools: a write's error as the oracle ---------------------------------------------------


def write_then_echo_the_error(request: ModelRequest) -> ModelResponse:
    """Reads with every id, the write by words (``verb-by-words-record-values``); when the world
    rejects it ("order 58213 is packed and can no longer be cancelled"), the world's own words
    as the reply with a decline before them, else every value seen: the tool that answers
    differently when the write is wrong decides whether to decline."""
    results = turn_results(request)
    for name, result in results:
        if (
            isinstance(result, dict)
            and isinstance(result.get("error"), str)
            and name != ("search_docs")
        ):
            return _answer(f"{_g.REFUSE} {result['error']}")
    return _g.verb_by_words_record_values(request)


GAMING_6: dict[str, Strategy] = {
    "regex-invoice-scraper": regex_invoice_scraper,
    "vocabulary-oracle": vocabulary_oracle,
    "portfolio-vocabulary-oracle": portfolio_vocabulary_oracle,
    "split-from-passage-ids": split_from_passage_ids,
    "write-then-echo-the-error": write_then_echo_the_error,
}
