"""BM25 search over a set of passages.

Scoring is ``rank_bm25.BM25Okapi`` (k1=1.5, b=0.75) over the tokens of ``title + "\\n" +
text`` (see :mod:`bench.corpus.tokens`), with one change: the IDF of a term in ``n`` of ``N``
passages is Lucene's ``ln(1 + (N - n + 0.5) / (n + 0.5))``, which is always positive.

Why: Okapi's ``ln((N - n + 0.5) / (n + 0.5))`` is zero or negative for a term in half or more
of the passages, and BM25Okapi's ``epsilon`` floor is a fraction of the *average* IDF, which
is itself zero or negative in a two-passage corpus, so there a passage sharing the query's
only meaningful term scored 0 and search returned nothing. With a positive IDF, a passage
scores above 0 exactly when it shares at least one token with the query, and rarer terms
still weigh more.

``search`` returns at most ``k`` passages with score > 0, best first, ties broken by passage
id (ascending). A query with no tokens left after the tokeniser (empty, punctuation, only
stopwords) or with no token in the corpus returns ``[]``: "this corpus cannot answer".
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from rank_bm25 import BM25Okapi

from bench.core.canonical import canonical_json, sha256_hex

from .passages import Passage
from .tokens import tokenize


class _PositiveIdfBM25(BM25Okapi):  # type: ignore[misc]  # rank_bm25 ships no types
    """BM25Okapi with Lucene's always-positive IDF (see the module docstring)."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        size = self.corpus_size
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (size - freq + 0.5) / (freq + 0.5))
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0


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
        # BM25Okapi divides by the mean passage length: build it only when there are tokens.
        self._bm25 = _PositiveIdfBM25(documents) if self._vocabulary else None

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
        if not terms or self._bm25 is None:
            return []
        scores = [float(score) for score in self._bm25.get_scores(terms)]
        ranked = sorted(
            (pair for pair in zip(scores, self._passages, strict=True) if pair[0] > 0.0),
            key=lambda pair: (-pair[0], pair[1].id),
        )
        return [passage for _, passage in ranked[:k]]

    def content_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of the sorted ``[id, sha256]`` pairs."""
        pairs = sorted([passage.id, passage.sha256] for passage in self._passages)
        return sha256_hex(canonical_json(pairs))


__all__ = ["Corpus"]
