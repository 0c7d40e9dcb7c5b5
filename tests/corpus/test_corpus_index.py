"""BM25 search: ordering, ties, 'cannot answer', tiny corpora, hashes."""

from __future__ import annotations

import pytest
from rank_bm25 import BM25Okapi

from bench.core.canonical import canonical_json, sha256_hex
from bench.corpus import Corpus, Passage, parse_markdown, tokenize

STORE = """# Store help
## Refunds
Refunds are paid to the original card within five business days.
## Shipping
Orders ship within two days. Shipping is free over fifty dollars.
## Returns
Return any item within thirty days for a refund.
"""
WARRANTY = "## Warranty\nThe warranty covers defects for two years.\n"


@pytest.fixture
def store() -> Corpus:
    return Corpus(parse_markdown("store.md", STORE) + parse_markdown("warranty.md", WARRANTY))


def ids(passages: list[Passage]) -> list[str]:
    return [p.id for p in passages]


def test_search_ranks_exactly(store: Corpus) -> None:
    # One match each, equal IDF, tf 1: the shorter passage (returns, 7 tokens) wins.
    assert ids(store.search("refund card")) == ["store.md#returns", "store.md#refunds"]
    # No stemming: "refunds" is not "refund".
    assert ids(store.search("refunds card")) == ["store.md#refunds"]
    # "days" is in three passages, "two" in two: shipping has both; the default k is 3.
    assert ids(store.search("two days")) == [
        "store.md#shipping",
        "warranty.md#warranty",
        "store.md#returns",
    ]
    assert ids(store.search("warranty defects")) == ["warranty.md#warranty"]


def test_k_caps_the_results(store: Corpus) -> None:
    assert ids(store.search("two days", k=1)) == ["store.md#shipping"]
    assert ids(store.search("two days", k=20)) == [
        "store.md#shipping",
        "warranty.md#warranty",
        "store.md#returns",
        "store.md#refunds",
    ]


def test_k_below_one_is_a_programming_error(store: Corpus) -> None:
    with pytest.raises(ValueError, match="k must be at least 1, not 0"):
        store.search("refund", k=0)


@pytest.mark.parametrize(
    "query", ["", "   ", "?!", "what is the", "How do I do this?", "zebra quantum"]
)
def test_queries_that_cannot_match_return_nothing(store: Corpus, query: str) -> None:
    assert store.search(query) == []


def test_only_passages_sharing_a_token_are_returned(store: Corpus) -> None:
    assert ids(store.search("original", k=20)) == ["store.md#refunds"]


def test_ties_are_broken_by_id_whatever_the_input_order() -> None:
    same = "## Same\nIdentical words here."
    forward = Corpus(parse_markdown("b.md", same) + parse_markdown("a.md", same))
    backward = Corpus(parse_markdown("a.md", same) + parse_markdown("b.md", same))
    for corpus in (forward, backward):
        assert ids(corpus.search("identical words")) == ["a.md#same", "b.md#same"]
        assert ids(corpus.search("identical", k=1)) == ["a.md#same"]


TWO = "## Refunds\nMoney back.\n## Shipping\nFree delivery.\n"


def test_plain_okapi_scores_nothing_in_a_two_passage_corpus() -> None:
    # Why the IDF is replaced: a term in 1 of 2 passages has Okapi IDF ln(1.5/1.5) = 0, and
    # the epsilon floor (a fraction of a non-positive average IDF) does not lift it.
    docs = [tokenize(f"{p.title}\n{p.text}") for p in parse_markdown("d.md", TWO)]
    assert [float(s) for s in BM25Okapi(docs).get_scores(["refunds"])] == [0.0, 0.0]


def test_two_passages_term_in_one() -> None:
    corpus = Corpus(parse_markdown("d.md", TWO))
    assert ids(corpus.search("refunds")) == ["d.md#refunds"]
    assert ids(corpus.search("free shipping")) == ["d.md#shipping"]


def test_two_passages_term_in_both() -> None:
    corpus = Corpus(
        parse_markdown("d.md", "## Cancel\nCancel an order.\n## Track\nTrack an order.")
    )
    assert ids(corpus.search("order")) == ["d.md#cancel", "d.md#track"]
    assert ids(corpus.search("track my order")) == ["d.md#track", "d.md#cancel"]


def test_three_passages_term_in_two() -> None:
    text = (
        "## Refund policy\nA refund takes five days.\n"
        "## Refund by mail\nMail it.\n"
        "## Shipping\nFree."
    )
    corpus = Corpus(parse_markdown("d.md", text))
    assert ids(corpus.search("refund")) == ["d.md#refund-policy", "d.md#refund-by-mail"]
    assert ids(corpus.search("refund mail")) == ["d.md#refund-by-mail", "d.md#refund-policy"]


def test_empty_corpus_and_stopword_only_passages() -> None:
    assert Corpus([]).search("anything") == []
    stopwords_only = Corpus(parse_markdown("d.md", "## The\nIt is what it is."))
    assert stopwords_only.search("what is it") == []
    assert stopwords_only.search("refund") == []


def test_get_ids_and_len(store: Corpus) -> None:
    assert store.passage_ids == frozenset(
        {"store.md#refunds", "store.md#shipping", "store.md#returns", "warranty.md#warranty"}
    )
    assert len(store) == 4
    refunds = store.get("store.md#refunds")
    assert refunds is not None and refunds.title == "Refunds"
    assert store.get("store.md#nope") is None


def test_duplicate_passage_ids_are_refused() -> None:
    passage = Passage.create("d.md", "a", "A", "x")
    with pytest.raises(ValueError, match="duplicate passage id 'd.md#a'"):
        Corpus([passage, passage])


def test_content_hash_definition(store: Corpus) -> None:
    pairs = sorted([p.id, p.sha256] for p in store.passages)
    assert store.content_hash() == sha256_hex(canonical_json(pairs))


def test_content_hash_moves_with_text_only() -> None:
    base = Corpus(parse_markdown("d.md", TWO))
    reordered = Corpus(list(reversed(parse_markdown("d.md", TWO))))
    reparsed = Corpus(parse_markdown("d.md", "# New title\nPreamble.\n" + TWO + "\n\n"))
    edited = Corpus(parse_markdown("d.md", TWO.replace("Money back.", "Money back!")))
    renamed = Corpus(parse_markdown("e.md", TWO))
    assert base.content_hash() == reordered.content_hash() == reparsed.content_hash()
    assert edited.content_hash() != base.content_hash()
    assert renamed.content_hash() != base.content_hash()
    assert len(base.content_hash()) == 64
