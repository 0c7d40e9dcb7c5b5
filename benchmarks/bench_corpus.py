"""Retrieval latency: ``bench.corpus.Corpus.search`` (BM25) against a naive scan, same run.

Generates a corpus of about 2,000 passages in memory (Markdown documents split by
``bench.corpus.parse_markdown``; nothing is written to disk), and a fixed set of queries in
four kinds:

* ``rare``: "What is the <name> code?": a name found in one passage, plus "code", in all;
* ``common``: three to five frequent words;
* ``long``: ten to fourteen words, a pasted customer question;
* ``miss``: words that are in no passage (search returns ``[]`` before scoring).

Prints the index build time and per-query microseconds for ``Corpus.search`` and for the
baseline measured in the same run: a term-overlap scan over every passage in pure Python
(score = distinct query terms the passage holds, same tokeniser, same top-k and tie rule).
Attribution rows say where a search's time goes (the tokeniser; the ranking step), and two
rows time what ``Corpus.search`` replaced or grew from: ``rank_bm25``'s ``get_scores``, which
walks every passage once per query term (the scorer until 2026-12-06, now the reference the
index is tested against), and the sketch of an inverted index it was measured from, with how
many queries the sketch ranks identically.
A scaling table repeats the comparison at other corpus sizes.

Prints figures; asserts nothing. Offline; writes nothing.

    .venv/bin/python benchmarks/bench_corpus.py           # ~30 seconds on 2 cores
    .venv/bin/python benchmarks/bench_corpus.py --quick   # smoke run
"""

from __future__ import annotations

import argparse
import gc
import heapq
import math
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from rank_bm25 import BM25Okapi

from bench.corpus import Corpus, Passage, parse_markdown, tokenize

K = 3  # what search_docs asks for by default
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
NAIVE = "baseline: naive scan"
SKETCH = "sketch: inverted index"


# --------------------------------------------------------------------------------------------
# The generated corpus and queries.
# --------------------------------------------------------------------------------------------


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables))


@dataclass(frozen=True)
class Workload:
    passages: tuple[Passage, ...]
    queries: dict[str, list[str]]  # kind -> queries


def generate(passages: int, per_kind: int, seed: int = 20261202) -> Workload:
    """``passages`` passages in documents of 100, with Zipf-distributed filler words."""
    rng = random.Random(seed)
    vocabulary = list(dict.fromkeys(_word(rng, rng.choice((2, 3))) for _ in range(4000)))[:3000]
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf, s = 1
    names: list[str] = []
    taken = set(vocabulary)
    documents: list[tuple[str, str]] = []
    per_doc = 100
    for d in range(math.ceil(passages / per_doc)):
        lines = [f"# Generated document {d}", ""]
        for p in range(min(per_doc, passages - d * per_doc)):
            name = _word(rng, 4)
            while name in taken:
                name = _word(rng, 4)
            taken.add(name)
            names.append(name)
            filler = " ".join(rng.choices(vocabulary, weights, k=rng.randint(40, 120)))
            code = f"{rng.randrange(10**4):04d}"
            lines += [f"## Section {d} {p} {name}", "", f"The {name} code is {code}. {filler}.", ""]
        documents.append((f"doc-{d:03d}.md", "\n".join(lines)))
    parsed = tuple(passage for doc, text in documents for passage in parse_markdown(doc, text))
    frequent = vocabulary[:200]
    queries: dict[str, list[str]] = {
        "rare": [f"What is the {rng.choice(names)} code?" for _ in range(per_kind)],
        "common": [" ".join(rng.sample(frequent, rng.randint(3, 5))) for _ in range(per_kind)],
        "long": [
            " ".join(rng.choices(vocabulary, weights, k=rng.randint(10, 14)))
            for _ in range(per_kind)
        ],
        "miss": [
            " ".join(f"zz{_word(rng, 3)}" for _ in range(rng.randint(2, 4)))
            for _ in range(per_kind)
        ],
    }
    return Workload(parsed, queries)


def _document(passage: Passage) -> list[str]:
    """The tokens Corpus indexes for a passage (see bench.corpus.index)."""
    return tokenize(f"{passage.title}\n{passage.text}")


# --------------------------------------------------------------------------------------------
# The baseline and the sketch.
# --------------------------------------------------------------------------------------------


class NaiveScan:
    """Term overlap over every passage, pure Python: the baseline."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self._rows = [(frozenset(_document(p)), p) for p in passages]

    def search(self, query: str, k: int = K) -> list[Passage]:
        terms = set(tokenize(query))
        if not terms:
            return []
        scored = []
        for tokens, passage in self._rows:
            score = len(terms & tokens)
            if score:
                scored.append((-score, passage.id, passage))
        scored.sort(key=lambda row: (row[0], row[1]))
        return [passage for _, _, passage in scored[:k]]


class InvertedBM25:
    """A sketch: the same BM25 as ``Corpus`` (k1 1.5, b 0.75, Lucene's positive IDF, ties by
    id), computed from postings so a query touches only the passages that hold its terms."""

    def __init__(self, passages: Sequence[Passage], k1: float = 1.5, b: float = 0.75) -> None:
        self._passages = tuple(passages)
        documents = [_document(p) for p in self._passages]
        size = len(documents)
        average = sum(len(d) for d in documents) / size
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for index, tokens in enumerate(documents):
            norm = k1 * (1 - b + b * len(tokens) / average)
            for term, freq in Counter(tokens).items():
                postings[term].append((index, freq * (k1 + 1) / (freq + norm)))
        self._idf = {
            term: math.log(1.0 + (size - len(rows) + 0.5) / (len(rows) + 0.5))
            for term, rows in postings.items()
        }
        self._postings = dict(postings)

    def search(self, query: str, k: int = K) -> list[Passage]:
        scores: dict[int, float] = defaultdict(float)
        for term in tokenize(query):  # repeated terms count again, as in rank_bm25
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index, weight in self._postings[term]:
                scores[index] += idf * weight
        ranked = sorted(
            (-score, self._passages[i].id, i) for i, score in scores.items() if score > 0.0
        )
        return [self._passages[i] for _, _, i in ranked[:k]]


# --------------------------------------------------------------------------------------------
# Timing.
# --------------------------------------------------------------------------------------------


def _clock() -> float:
    gc.collect()
    return time.perf_counter()


def interleaved(
    contenders: Sequence[tuple[str, Callable[[str], object]]], queries: list[str]
) -> dict[str, list[float]]:
    """Microseconds of each call, one timer per call; for each query every contender runs in
    turn, so a burst of noise on this shared machine hits them alike."""
    times: dict[str, list[float]] = {name: [] for name, _ in contenders}
    gc.collect()
    for query in queries:
        for name, search in contenders:
            began = time.perf_counter()
            search(query)
            times[name].append(1e6 * (time.perf_counter() - began))
    return times


def build_seconds(builds: dict[str, Callable[[], object]], times: int) -> dict[str, list[float]]:
    """Seconds per build, the builds taken in turn ``times`` times (noise hits them alike)."""
    out: dict[str, list[float]] = {name: [] for name in builds}
    for _ in range(times):
        for name, build in builds.items():
            began = _clock()
            build()
            out[name].append(time.perf_counter() - began)
    return out


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def _spread(values: list[float], digits: int = 1) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{mid:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def _build_row(label: str, seconds: list[float]) -> None:
    print(f"  {label:<52} {_spread([1000 * s for s in seconds]):>24}")


def scores_alone(okapi: BM25Okapi, terms: list[str]) -> Any:
    """``get_scores`` as Corpus.search calls it (not at all for a query with no known term)."""
    return okapi.get_scores(terms) if terms else None


def rank_like_corpus(scores: Any, passages: Sequence[Passage]) -> list[Passage]:
    """The ranking step of ``Corpus.search``, copied: float() each score, keep > 0, sort all.
    ``scores`` is None when the query has no known term (Corpus.search returns before this)."""
    if scores is None:
        return []
    floats = [float(score) for score in scores]
    ranked = sorted(
        (pair for pair in zip(floats, passages, strict=True) if pair[0] > 0.0),
        key=lambda pair: (-pair[0], pair[1].id),
    )
    return [passage for _, passage in ranked[:K]]


def rank_top_k(scores: Any, passages: Sequence[Passage]) -> list[Passage]:
    """The same top k with ``heapq.nsmallest`` over the positive scores, for comparison."""
    if scores is None:
        return []
    floats = scores.tolist()
    best = heapq.nsmallest(K, ((-s, passages[i].id, i) for i, s in enumerate(floats) if s > 0.0))
    return [passages[i] for _, _, i in best]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="BM25 search latency against a naive scan")
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100, help="queries of each kind")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the query set")
    parser.add_argument(
        "--sizes", default="250,500,1000,2000,4000", help="corpus sizes of the scaling table"
    )
    parser.add_argument("--quick", action="store_true", help="fewer queries and rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.queries, args.rounds, args.sizes = 20, 2, "500,2000"

    work = generate(args.passages, args.queries)
    passages = work.passages
    print("bench_corpus: BM25 search (bench.corpus.Corpus) against a naive scan, same run")
    print(
        f"  machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
    )
    tokens = [_document(p) for p in passages]
    mean_len = statistics.mean(len(t) for t in tokens)
    vocabulary = len({t for doc in tokens for t in doc})
    print(
        f"  corpus: {len(passages)} passages, {mean_len:.0f} tokens each on average, "
        f"{vocabulary} distinct tokens; {args.queries} queries of each kind, k={K}; "
        f"{args.rounds} rounds, median (min-max) of the round medians"
    )

    # Index build: BM25 index vs the baseline's preparation (tokenise every passage into a set).
    builds = max(5, args.rounds)
    built = build_seconds(
        {
            "corpus": lambda: Corpus(passages),
            "naive": lambda: NaiveScan(passages),
            "tokenise": lambda: [_document(p) for p in passages],
            "sketch": lambda: InvertedBM25(passages),
        },
        builds,
    )
    corpus_build, naive_build = built["corpus"], built["naive"]
    tokenise_build, sketch_build = built["tokenise"], built["sketch"]
    print()
    print(f"index build, ms (median (min-max) of {builds})")
    _build_row("Corpus(passages) (tokenise + postings)", corpus_build)
    _build_row("baseline: NaiveScan (tokenise into sets)", naive_build)
    _build_row("    of which tokenise every passage", tokenise_build)
    _build_row("sketch: InvertedBM25 (tokenise + postings)", sketch_build)
    build_ratio = [c / n for c, n in zip(corpus_build, naive_build, strict=True)]
    print(f"  Corpus build / baseline build: {statistics.median(build_ratio):.2f}x (in turn)")

    corpus = Corpus(passages)
    naive = NaiveScan(passages)
    sketch = InvertedBM25(passages)
    okapi = BM25Okapi(tokens)  # the same index shape Corpus builds, to time get_scores alone
    # Warm up every path once.
    for kind_queries in work.queries.values():
        for query in kind_queries[:5]:
            corpus.search(query, K), naive.search(query), sketch.search(query)

    known = frozenset(t for doc in tokens for t in doc)

    def terms(query: str) -> list[str]:
        """The query terms Corpus.search scores: tokens the corpus has."""
        return [t for t in tokenize(query) if t in known]

    scores: dict[str, Any] = {}
    for queries in work.queries.values():
        for query in queries:
            found = terms(query)
            scores[query] = okapi.get_scores(found) if found else None
    contenders: list[tuple[str, Callable[[str], object]]] = [
        ("Corpus.search", partial(corpus.search, k=K)),
        (NAIVE, naive.search),
        ("  tokenize(query) alone", tokenize),
        ("  rank_bm25 get_scores alone (former scorer)", lambda q: scores_alone(okapi, terms(q))),
        ("  ranking step alone (full sort)", lambda q: rank_like_corpus(scores[q], passages)),
        ("  [ranking with heapq.nsmallest]", lambda q: rank_top_k(scores[q], passages)),
        (SKETCH, sketch.search),
    ]
    # stats[kind][name][statistic] = one value per round (us)
    stats: dict[str, dict[str, dict[str, list[float]]]] = {
        kind: {name: defaultdict(list) for name, _ in contenders} for kind in work.queries
    }
    for _ in range(args.rounds):
        for kind, queries in work.queries.items():
            for name, times in interleaved(contenders, queries).items():
                stats[kind][name]["median"].append(statistics.median(times))
                stats[kind][name]["mean"].append(statistics.mean(times))
                stats[kind][name]["p95"].append(_p95(times))

    def ratio(kind: str, name: str, other: str) -> float:
        """Median over rounds of the ratio of the two medians measured in that round."""
        pairs = zip(stats[kind][name]["median"], stats[kind][other]["median"], strict=True)
        return statistics.median(a / b for a, b in pairs)

    print()
    print(
        "search, us per query: median over the kind's queries, as median (min-max) over "
        "rounds; mean and p95 over the queries"
    )
    for kind in work.queries:
        print(f"  {kind} queries, e.g. {work.queries[kind][0]!r}")
        for name, _ in contenders:
            line = stats[kind][name]
            print(
                f"    {name:<34} {_spread(line['median']):>26}   "
                f"mean {statistics.median(line['mean']):8.1f}   "
                f"p95 {statistics.median(line['p95']):8.1f}"
            )
        print(
            f"    ratio Corpus.search / naive scan: {ratio(kind, 'Corpus.search', NAIVE):.3g}x; "
            f"Corpus.search / sketch: {ratio(kind, 'Corpus.search', SKETCH):.3g}x"
        )

    all_queries = [q for queries in work.queries.values() for q in queries]
    same = sum(
        [p.id for p in corpus.search(q, K)] == [p.id for p in sketch.search(q)] for q in all_queries
    )
    overlap = sum(
        bool({p.id for p in corpus.search(q, K)} & {p.id for p in naive.search(q)})
        for q in all_queries
    )
    print()
    print(
        f"  agreement: the sketch returns Corpus.search's exact top {K} for {same}/"
        f"{len(all_queries)} queries; the naive scan shares at least one top-{K} passage "
        f"with it for {overlap}/{len(all_queries)} (it is a speed floor, not a ranker)"
    )

    sizes = [int(size) for size in args.sizes.split(",") if size]
    if sizes:
        print()
        print("scaling: 'common' queries, median us per query (one round), build ms (one build)")
        print(
            f"  {'passages':>8} {'build ms':>9} {'Corpus.search':>14} {'naive scan':>11} "
            f"{'ratio':>6} {'sketch':>8}"
        )
        for size in sizes:
            scaled = generate(size, args.queries, seed=size)
            began = _clock()
            scaled_corpus = Corpus(scaled.passages)
            build = 1000 * (time.perf_counter() - began)
            row: list[tuple[str, Callable[[str], object]]] = [
                ("corpus", partial(scaled_corpus.search, k=K)),
                ("naive", NaiveScan(scaled.passages).search),
                ("sketch", InvertedBM25(scaled.passages).search),
            ]
            timed = interleaved(row, scaled.queries["common"])
            bm25, scan, post = (statistics.median(timed[name]) for name, _ in row)
            print(
                f"  {len(scaled.passages):>8} {build:9.1f} {bm25:14.1f} {scan:11.1f} "
                f"{bm25 / scan:6.2f} {post:8.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
