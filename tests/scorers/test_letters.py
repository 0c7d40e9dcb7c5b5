"""``answers.realigned``: a copy with its word boundaries moved — its letters run together and
cut every 3, 5 or 7 letters, at random places, between real boundaries, with a letter changed
or dropped now and then — is read along the source's boundaries as the copy it is, by the paste
rule, the echo rule and the word budget; a quote, and an answer that shares common words with a
passage, are read as they are (tests/scorers/test_content_free_cheats.py has the cheats)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.trace import Message, ToolCall, Trace
from bench.scorers.answers import (
    JOINED_LETTERS,
    LETTER_RUN,
    WORD_BUDGET,
    as_copied,
    budget_words,
    problem,
    realigned,
    tokens,
)

PASSAGE = (
    "Refunds are issued to the original payment method within 5 to 10 business days after the "
    "returned item has been received and inspected by our warehouse team in Utrecht."
)
SOURCE = tokens(PASSAGE)
LETTERS = "".join(SOURCE)
PASTE = "the answer repeats 100% of a tool result or user message word for word"
ECHO = "100% of the answer is a user message or tool result, copied word for word"


def _searched(answer: str, *passages: str) -> Trace:
    result = [
        {"id": f"faq.md#p{at}", "text": text} for at, text in enumerate(passages or [PASSAGE])
    ]
    return Trace(
        answers=[answer],
        tool_calls=[ToolCall(id="s", name="search_docs", result=result)],
        retrieved=[item["id"] for item in result],
    )


def _every(letters: str, size: int) -> str:
    return " ".join(letters[at : at + size] for at in range(0, len(letters), size))


def _at_random(letters: str, seed: int) -> str:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(letters)), len(letters) // 5))
    return " ".join(letters[a:b] for a, b in zip([0, *cuts], [*cuts, len(letters)], strict=True))


def _changed(letters: str, every: int, run: int = 1) -> str:
    """``run`` letters in a row changed to the next letter, every ``every`` letters."""
    return "".join(
        chr((ord(ch) - 96) % 26 + 97)
        if ch.isalpha() and every // 2 <= at % every < every // 2 + run
        else ch
        for at, ch in enumerate(letters)
    )


def _dropped(letters: str, every: int) -> str:
    return "".join(ch for at, ch in enumerate(letters) if at % every != every // 2)


def _mixed(words: list[str]) -> str:
    """A word as it is, then three words run together and cut every 5 letters, in turn."""
    out, at = [], 0
    while at < len(words):
        out.append(words[at])
        out.append(_every("".join(words[at + 1 : at + 4]), 5))
        at += 4
    return " ".join(out)


MOVED = {
    "every 3": _every(LETTERS, 3),
    "every 5": _every(LETTERS, 5),
    "every 7": _every(LETTERS, 7),
    "random cuts": _at_random(LETTERS, 1),
    "other random cuts": _at_random(LETTERS, 2),
    "every 5, a letter changed in 20": _every(_changed(LETTERS, 20), 5),
    "every 5, a letter dropped in 20": _every(_dropped(LETTERS, 20), 5),
    "every 6, two letters dropped in 30": _every(_dropped(_dropped(LETTERS, 30), 29), 6),
    "every 5, two letters in a row changed in 25": _every(_changed(LETTERS, 25, 2), 5),
    "every 4, by hyphens and braille blanks": "-\u2800".join(_every(LETTERS, 4).split()),
    "one word": LETTERS,
    "moved cuts beside real ones": _mixed(PASSAGE.split()),
}


@pytest.mark.parametrize("form", sorted(MOVED))
def test_a_paste_with_its_boundaries_moved_is_a_paste(form: str) -> None:
    answer = MOVED[form] + " [faq.md#p0]"
    assert problem(answer, _searched(answer)) == PASTE


@pytest.mark.parametrize("form", ["every 3", "every 5", "every 7", "random cuts", "one word"])
def test_the_letters_are_read_as_the_source_words(form: str) -> None:
    assert realigned(tokens(MOVED[form]), SOURCE) == SOURCE
    assert as_copied(tokens(MOVED[form]), SOURCE) == SOURCE


def test_an_echo_with_its_boundaries_moved_is_an_echo() -> None:
    said = "Please cancel order 58213 and refund it to my card today, I changed my mind"
    answer = _every("".join(tokens(said)), 5)
    trace = Trace(answers=[answer], messages=[Message(role="user", content=said)])
    assert problem(answer, trace) == ECHO


def test_letters_cut_anywhere_count_as_the_words_they_spell() -> None:
    """Three passages of 40 words, the first 32 of each (80 %: no paste) run together and cut
    every 12 letters: 58 "words" under the budget, 96 words of the passages."""
    passages = [
        " ".join(f"{stem}{n}" for n in "abcdefghijklmnopqrstuvwxyzabcdefghijklmn")
        for stem in ("ref", "ship", "warr")
    ]
    answer = " ".join(_every("".join(text.split()[:32]), 12) for text in passages)
    assert len(answer.split()) < WORD_BUDGET
    assert problem(answer, _searched(answer, *passages)) == (
        "the answer is 96 words, over the budget of 80"
    )


QUOTES = [
    "Refunds are issued to the original payment method within 5 to 10 business days.",
    "Your refund goes back to the original payment method within 5 to 10 business days after "
    "we receive and inspect the returned item [faq.md#p0].",
    "Refunds are issued to your card within 5 to 10 business days after the returned item has "
    "been received.",
    "The returned item is received and inspected by our warehouse team in Utrecht first.",
    "Refunds are issued to the original payment-method within 5 to 10 business days.",
]


@pytest.mark.parametrize("quote", QUOTES)
def test_a_quote_is_read_as_it_is(quote: str) -> None:
    """A quote shares long runs of letters with the passage because it keeps its words: it is
    read word for word, as the word rules read it, and is no paste."""
    assert realigned(tokens(quote), SOURCE) == tokens(quote)
    assert problem(quote, _searched(quote)) is None


def test_common_words_are_read_as_they_are() -> None:
    answer = "The order number is 12345 and the order was shipped on the 3rd of May"
    source = tokens("your order number is shown on the order page; the order was shipped")
    assert realigned(tokens(answer), source) == tokens(answer)
    # under LETTER_RUN letters in common: nothing is read along the source's boundaries
    assert realigned(["ordern", "umberis"], source) == ["ordern", "umberis"]
    assert len("ordernumberis") < LETTER_RUN


def test_a_word_longer_than_a_support_answer_has_counts_per_its_letters() -> None:
    assert budget_words(["a" * JOINED_LETTERS, "b"]) == 2
    assert budget_words(["a" * (JOINED_LETTERS + 1)]) == 2
    word = "x" * (JOINED_LETTERS * 100)
    assert problem(word, _searched(word)) == "the answer is 100 words, over the budget of 80"


def test_repetitive_letters_are_read_in_one_pass() -> None:
    """An answer of 80 words of 64 letters against a source of 200,000 one-letter words: each
    source word is looked up once and each stretch covers the source letters it reads."""
    answer = ["a" * JOINED_LETTERS] * WORD_BUDGET
    read = realigned(answer, ["a"] * 200_000)
    assert len(read) == WORD_BUDGET * JOINED_LETTERS
    assert realigned(["ab" * 32] * 80, ["ab"] * 200_000) == ["ab"] * (80 * 32)


LETTER = st.sampled_from("abc")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(LETTER, min_size=1, max_size=9), max_size=20), st.data())
def test_words_are_replaced_only_by_source_words_spelling_them(
    source: list[str], data: st.DataObject
) -> None:
    """Cut anywhere, a source's letters are read as source words; an answer word is never
    changed into anything but consecutive source words."""
    letters = "".join(source)
    cuts = data.draw(st.lists(st.integers(1, max(1, len(letters) - 1)), max_size=30))
    edges = sorted({0, len(letters), *[c for c in cuts if 0 < c < len(letters)]})
    answer = [letters[a:b] for a, b in zip(edges, edges[1:], strict=False)]
    read = realigned(answer, source)
    if len(letters) >= LETTER_RUN + 8 and answer:
        assert "".join(read) == letters
    kept = [word for word in read if word not in answer]
    assert all(word in source for word in kept)
