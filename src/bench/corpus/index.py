"""BM25 search over a set of passages.

Scoring is BM25 as ``rank_bm25.BM25Okapi`` computes it (k1=1.5, b=0.75) over the tokens of
``title + "\\n" + text`` (see :mod:`bench.corpus.tokens`), with one change: the IDF of a term
in ``n`` of ``N`` passages is Lucene's ``ln(1 + (N - n + 0.5) / (n + 0.5))``, which is always
positive.

Why: Okapi's ``ln((N - n + 0.5) / (n + 0.5))`` is zero or negative for a term in half or more
of the passages, and BM25Okapi's ``epsilon`` floor is a fraction of the *average* IDF, which
is itself zero or negative in a two-passage corpus, so there a passage sharing the query's
only meaningful term scored 0 and search returned nothing. With a positive IDF, a passage
scores above 0 exactly when it shares at least one token with the query, and rarer terms
still weigh more.

The index is an inverted one in plain Python (no numpy in a run until its summary, issue 19):
each term's postings hold ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl))`` per
passage, the very operations, in the same order, that ``BM25Okapi.get_scores`` does on its
arrays, so every score is bit-for-bit rank_bm25's (a test holds them equal). A passage without
the term gets ``+0.0`` there, which changes no sum, so only postings are visited.

``search`` returns at most ``k`` passages with score > 0, best first, ties broken by passage
id (ascending). A query with no tokens left after the tokeniser (empty, punctuation, only
stopwords) or with no token in the corpus returns ``[]``: "this corpus cannot answer".
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable

from bench.core.canonical import canonical_json, sha256_hex

from .passages import Passage
from .tokens import tokenize

K1 = 1.5
B = 0.75


class _Index:
    """Postings and IDF of BM25 with a positive IDF (see the module docstring)."""

    def __init__(self, documents: list[list[str]]) -> None:
        size = len(documents)
        average = sum(len(tokens) for tokens in documents) / size
        postings: dict[str, list[tuple[int, float]]] = {}
        for index, tokens in enumerate(documents):
            norm = K1 * (1 - B + B * len(tokens) / average)
            for term, freq in Counter(tokens).items():
                postings.setdefault(term, []).append((index, freq * (K1 + 1) / (freq + norm)))
        self.idf = {
            term: math.log(1.0 + (size - len(rows) + 0.5) / (len(rows) + 0.5))
            for term, rows in postings.items()
        }
        self.postings = postings

    def scores(self, terms: list[str]) -> dict[int, float]:
        """Passage index -> score, for the passages holding at least one of ``terms`` (each
        repeat of a term counts again, as in rank_bm25)."""
        scores: dict[int, float] = {}
        for term in terms:
            idf = self.idf.get(term)
            if idf is None:
                continue
            for index, weight in self.postings[term]:
                scores[index] = scores.get(index, 0.0) + idf * weight
        return scores


class Corpus:
    """Passages from one or more documents, searchable with BM25."""

    def __init__(self, passages: Iterable[Passage]) -> None:
        self._passages: tuple[Passage, ...] = tuple(passages)
        self._by_id: dict[str, Passage] = {}
        for passage in self._passages:
            if passage.id in self._by_id:
                raise ValueError(f"duplicate passage id '{passage.id}'")
            self._by_id[passage.id] = passage
        documents = [tokenize(f"{p.title}\n{p.text}") for p in self._passages]
        self._vocabulary = frozenset(token for tokens in documents for token in tokens)
        # BM25 divides by the mean passage length: build it only when there are tokens.
        self._index = _Index(documents) if self._vocabulary else None

    @property
    def passages(self) -> tuple[Passage, ...]:
        return self._passages

    @property
    def passage_ids(self) -> frozenset[str]:
        return frozenset(self._by_id)

    def __len__(self) -> int:
        return len(self._passages)

    def get(self, passage_id: str) -> Passage | None:
        return self._by_id.get(passage_id)

    def search(self, query: str, k: int = 3) -> list[Passage]:
        """The top ``k`` passages with score > 0, ties by id; ``[]`` if nothing can match."""
        if k < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        terms = [token for token in tokenize(query) if token in self._vocabulary]
        if not terms or self._index is None:
            return []
        ranked = heapq.nsmallest(
            k,
            (
                (-score, self._passages[index].id, index)
                for index, score in self._index.scores(terms).items()
                if score > 0.0
            ),
        )
        return [self._passages[index] for _, _, index in ranked]

    def content_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of the sorted ``[id, sha256]`` pairs."""
        pairs = sorted([passage.id, passage.sha256] for passage in self._passages)
        return sha256_hex(canonical_json(pairs))


__all__ = ["Corpus"]
