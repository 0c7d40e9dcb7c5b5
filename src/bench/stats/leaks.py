"""The n-gram leak check between (and within) splits, docs/TASKSET.md, and near-duplicates.

Texts are normalised (NFKC, lowercase, punctuation stripped, split on whitespace). A pair is
flagged when it shares any 13-gram (the GPT-3 / lm-eval-harness janitor rule); the 8-gram
overlap fraction is reported beside it and ``>= 0.70`` is called contaminated (PaLM). Texts
shorter than 13 words are flagged only on an exact normalised match. N-grams of a shared
instruction template are ignored. Overlap is directional, so a pair is scored both ways and
the larger fraction is kept. A near-duplicate is a pair whose word sets have a Jaccard
similarity of at least ``NEAR_DUPLICATE``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

LEAK_N = 13
REPORT_N = 8
CONTAMINATED = 0.70
NEAR_DUPLICATE = 0.80
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)

Gram = tuple[str, ...]


def normalise(text: str) -> list[str]:
    return _PUNCT.sub(" ", unicodedata.normalize("NFKC", text).lower()).split()


def ngrams(words: Sequence[str], n: int) -> list[Gram]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def overlap(a: str, b: str, n: int, ignore: frozenset[Gram] = frozenset()) -> tuple[int, int]:
    """(how many of ``a``'s n-grams occur in ``b``, how many n-grams ``a`` has): directional."""
    mine = [g for g in ngrams(normalise(a), n) if g not in ignore]
    theirs = set(ngrams(normalise(b), n))
    return sum(1 for g in mine if g in theirs), len(mine)


def template_ngrams(
    texts: Iterable[str], n: int, share: float = 0.5, least: int = 4
) -> frozenset[Gram]:
    """N-grams present in at least ``share`` of ``texts`` (and at least ``least`` of them)."""
    texts = list(texts)
    counts: Counter[Gram] = Counter()
    for text in texts:
        counts.update(set(ngrams(normalise(text), n)))
    floor = max(least, int(share * len(texts) + 0.999))
    return frozenset(g for g, c in counts.items() if c >= floor)


@dataclass(frozen=True)
class Finding:
    kind: str  # "leak" (across splits), "duplicate" (within a split), "near-duplicate"
    first: str
    second: str
    detail: str


def find_leaks(
    items: Sequence[tuple[str, str, str]], template: Iterable[str] = (), least: int = 4
) -> list[Finding]:
    """Findings over ``(id, split, text)`` items, pairs in input order. ``template`` are the
    texts the shared instruction template is learned from (default: the items themselves);
    an exact normalised match is always a finding, template or not."""
    texts = [text for _, _, text in items]
    templates = list(template) or texts
    ignore_long = template_ngrams(templates, LEAK_N, least=least)
    ignore_short = template_ngrams(templates, REPORT_N, least=least)
    words = [normalise(text) for text in texts]
    sets = [set(w) for w in words]
    found: list[Finding] = []
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            (id_a, split_a, a), (id_b, split_b, b) = items[i], items[j]
            kind = "leak" if split_a != split_b else "duplicate"
            if words[i] == words[j]:
                found.append(Finding(kind, id_a, id_b, "exact normalised match"))
                continue
            if min(len(words[i]), len(words[j])) >= LEAK_N:
                shared_ab, total_ab = overlap(a, b, LEAK_N, ignore_long)
                shared_ba, _ = overlap(b, a, LEAK_N, ignore_long)
                if max(shared_ab, shared_ba):
                    s8a, t8a = overlap(a, b, REPORT_N, ignore_short)
                    s8b, t8b = overlap(b, a, REPORT_N, ignore_short)
                    frac = max(s8a / t8a if t8a else 0.0, s8b / t8b if t8b else 0.0)
                    label = "contaminated" if frac >= CONTAMINATED else "below the 70% line"
                    found.append(
                        Finding(
                            kind,
                            id_a,
                            id_b,
                            f"shares {max(shared_ab, shared_ba)} 13-gram(s); 8-gram overlap "
                            f"{frac:.3f} ({label})",
                        )
                    )
                    continue
            union = sets[i] | sets[j]
            if len(union) >= 5:
                jaccard = len(sets[i] & sets[j]) / len(union)
                if jaccard >= NEAR_DUPLICATE:
                    found.append(
                        Finding("near-duplicate", id_a, id_b, f"word Jaccard {jaccard:.2f}")
                    )
    return found


__all__ = [
    "CONTAMINATED",
    "LEAK_N",
    "NEAR_DUPLICATE",
    "REPORT_N",
    "Finding",
    "find_leaks",
    "ngrams",
    "normalise",
    "overlap",
    "template_ngrams",
]
