"""The fixed tokeniser and stopword list."""

from __future__ import annotations

import pytest

from bench.core.canonical import fingerprint
from bench.corpus import STOPWORDS, tokenize


def test_tokenize_exact() -> None:
    assert tokenize("Don't refund the ＦＩＬＥ v2.1 café_au-lait, ﬁne?") == [
        "refund",
        "file",
        "v2",
        "1",
        "café",
        "au",
        "lait",
        "fine",
    ]


def test_tokenize_keeps_digits_and_duplicates() -> None:
    assert tokenize("Order 1042 and order 1042") == ["order", "1042", "order", "1042"]


@pytest.mark.parametrize("text", ["", "   ", "?!,.", "What is it?", "How do I do this for them"])
def test_nothing_left(text: str) -> None:
    assert tokenize(text) == []


def test_stopword_list_is_fixed() -> None:
    # The list is part of the benchmark: changing it must be a deliberate, visible act.
    assert len(STOPWORDS) == 146
    assert fingerprint(sorted(STOPWORDS), length=64) == (
        "f33cb7c2e2eadd58cdc17de869ca539c2951a42c03a5d789b5f82c681842d9e0"
    )


def test_every_stopword_is_a_single_lowercase_token() -> None:
    for word in STOPWORDS:
        assert word == word.lower() and word.isalnum(), word
        assert tokenize(word.upper()) == [], word
