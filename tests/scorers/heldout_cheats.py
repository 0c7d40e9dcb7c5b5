"""Held-out cheats: pastes of the top passage in disguise (tests/scorers/test_cheats_heldout.py).

Each searches once, then answers with the top passage, cited, disguised so that no three of its
words in a row are the passage's (the copy measure before 2026-12-06 looked for such runs), while
the numbers, codes and capitalised names the text checks look for stay as they were: every
second or third plain word changed, a word added after every second one, neighbouring words
swapped, or lookalike letters, zero-width spaces or full-width letters in every other word.
They scored up to 0.45 in public grounded-qa (docs/SCORING.md, "What counts as copied").

Scripted-entrant callables like ``examples/cheats.py``'s, named by target files the test writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.baselines import last_user_message, turn_results
from bench.core.trace import ToolCallRequest
from bench.targets.base import ModelRequest, ModelResponse

FILLERS = ("thing", "stuff", "bit", "item", "piece", "part")
LOOKALIKE = str.maketrans("aeopcxy", "аеорсху")  # Cyrillic letters that look Latin
FULL_WIDTH = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "abcdefghijklmnopqrstuvwxyz"})


def _plain(word: str) -> bool:
    """A lower-case word: not a number, code or name, so not what a text check looks for."""
    return word.isalpha() and word.islower()


def _top_passage(
    request: ModelRequest, disguise: Callable[[list[str]], list[str]]
) -> ModelResponse:
    """Search with the question, then the top passage's words, disguised, and its id."""
    if "search_docs" not in [tool.name for tool in request.tools]:
        return ModelResponse(content="Done.")
    results = turn_results(request)
    if not results:
        call = ToolCallRequest(
            id="heldout-1", name="search_docs", arguments={"query": last_user_message(request)}
        )
        return ModelResponse(tool_calls=[call])
    found: Any = results[-1][1]
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    if not passages:
        return ModelResponse(content="Done.")
    top = passages[0]
    disguised = disguise(str(top.get("text", "")).split())[:78]
    return ModelResponse(content=f"{' '.join(disguised)} [{top.get('id')}]")


def _every(k: int, change: Callable[[int, str], str]) -> Callable[[list[str]], list[str]]:
    def disguise(words: list[str]) -> list[str]:
        return [change(at, w) if at % k == k - 1 and _plain(w) else w for at, w in enumerate(words)]

    return disguise


def _added_after_every_second(words: list[str]) -> list[str]:
    out: list[str] = []
    for at, word in enumerate(words):
        out.append(word)
        if at % 2 and not any(ch.isdigit() for ch in word):
            out.append(FILLERS[at % len(FILLERS)])
    return out


def _swapped_pairs(words: list[str]) -> list[str]:
    out: list[str] = []
    for at in range(0, len(words) - 1, 2):
        out += [words[at + 1], words[at]]
    return out + words[len(words) - len(words) % 2 :]


def changed_every_second(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(2, lambda at, w: FILLERS[at % len(FILLERS)]))


def changed_every_third(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(3, lambda at, w: FILLERS[at % len(FILLERS)]))


def number_for_every_second(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(2, lambda at, w: str(at)))


def added_after_every_second(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _added_after_every_second)


def swapped_pairs(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _swapped_pairs)


def lookalike_letters(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(2, lambda at, w: w.translate(LOOKALIKE)))


def zero_width_spaces(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(2, lambda at, w: f"{w[:1]}\u200b{w[1:]}"))


def full_width_letters(request: ModelRequest) -> ModelResponse:
    return _top_passage(request, _every(2, lambda at, w: w.translate(FULL_WIDTH)))


HELDOUT: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "changed-every-second": changed_every_second,
    "changed-every-third": changed_every_third,
    "number-for-every-second": number_for_every_second,
    "added-after-every-second": added_after_every_second,
    "swapped-pairs": swapped_pairs,
    "lookalike-letters": lookalike_letters,
    "zero-width-spaces": zero_width_spaces,
    "full-width-letters": full_width_letters,
}
