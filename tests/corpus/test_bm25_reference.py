"""The plain-Python index scores bit-for-bit what ``rank_bm25.BM25Okapi`` (with the positive
IDF) scores, so moving off rank_bm25 and numpy changed no search result (issue 19)."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from bench.corpus import Corpus, parse_markdown, tokenize
from bench.corpus.index import _Index


class _Reference(BM25Okapi):  # type: ignore[misc]
    """The index search used until 2026-12-06: BM25Okapi with Lucene's positive IDF."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        size = self.corpus_size
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (size - freq + 0.5) / (freq + 0.5))


WORDS = st.sampled_from([f"w{i}" for i in range(12)])
DOCUMENTS = st.lists(st.lists(WORDS, min_size=1, max_size=40), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(documents=DOCUMENTS, query=st.lists(WORDS, min_size=1, max_size=8))
def test_scores_are_rank_bm25s_to_the_bit(documents: list[list[str]], query: list[str]) -> None:
    vocabulary = {word for document in documents for word in document}
    terms = [word for word in query if word in vocabulary]
    ours = _Index(documents).scores(terms)
    theirs = [float(score) for score in _Reference(documents).get_scores(terms)]
    for index, score in enumerate(theirs):
        mine = ours.get(index, 0.0)
        assert mine.hex() == score.hex(), (index, mine, score)
    # a passage is in ``ours`` exactly when it shares a term, and then scores above 0
    assert set(ours) == {i for i, document in enumerate(documents) if set(document) & set(terms)}
    assert all(score > 0.0 for score in ours.values())


def test_the_shipped_corpora_rank_as_rank_bm25_ranks() -> None:
    root = Path(__file__).resolve().parents[2] / "corpora"
    passages = [
        passage
        for path in sorted(root.glob("*.md"))
        for passage in parse_markdown(path.name, path.read_text(encoding="utf-8"))
    ]
    corpus = Corpus(passages)
    documents = [tokenize(f"{p.title}\n{p.text}") for p in passages]
    reference = _Reference(documents)
    checked = 0
    for passage in passages:
        known = [
            t
            for t in tokenize(f"{passage.title} {passage.text[:120]}")
            if t in corpus_words(documents)
        ]
        if not known:
            continue
        scores = [float(s) for s in reference.get_scores(known)]
        expected = sorted(
            (pair for pair in zip(scores, passages, strict=True) if pair[0] > 0.0),
            key=lambda pair: (-pair[0], pair[1].id),
        )
        assert [p.id for p in corpus.search(" ".join(known), k=5)] == [
            p.id for _, p in expected[:5]
        ]
        checked += 1
    assert checked >= 20


def corpus_words(documents: list[list[str]]) -> set[str]:
    return {word for document in documents for word in document}


def test_search_imports_no_numpy() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from bench.corpus import Corpus, parse_markdown\n"
        "c = Corpus(parse_markdown('d.md', '## Refunds\\nMoney back.\\n## Ship\\nFree.\\n'))\n"
        "assert [p.id for p in c.search('refunds money')] == ['d.md#refunds']\n"
        "print(sorted(m for m in ('numpy', 'rank_bm25') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
