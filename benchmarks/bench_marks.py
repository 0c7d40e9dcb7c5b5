"""Runs of combining marks: what normalizing them costs, and what the check that bounds them costs.

    .venv/bin/python benchmarks/bench_marks.py [--runs 4000 16000 64000] [--chars 16000000]

``unicodedata.normalize`` (CPython) puts each run of non-starters in canonical order by
insertion, so ``bench.scorers.answers.fold`` (every answer, every text check) took time that
grows with the square of the run: 64,000 + 64,000 marks out of order, 256 KB of answer in a
5 KB gzip, held ``bench verify`` for 34 s; 128,000 + 128,000 for 5 minutes. Records now hold
at most 30 marks in a row (``LIMIT_COMBINING``, ``bench.verify.jsonsafe``). Prints CPU seconds
of ``fold`` on one run of each size (quadratic: 16x per 4x), then, on ``--chars`` characters of
text that passes the check (runs of 30 marks out of order), ``fold`` and ``mark_run`` (linear).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from bench.scorers.answers import fold
from bench.verify.jsonsafe import MAX_MARKS, mark_run

ACUTE, BELOW = "\u0301", "\u0316"  # combining classes 230 and 220: every pair out of order


def cpu(fn: Callable[[str], object], text: str) -> float:
    start = time.process_time()
    fn(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[4000, 16000, 64000])
    parser.add_argument("--chars", type=int, default=16_000_000)
    args = parser.parse_args()
    print("one run of marks      chars    fold (s)   mark_run (s)")
    for size in args.runs:
        text = "a" + ACUTE * (size // 2) + BELOW * (size // 2)
        print(f"{size:>16,} {len(text):>10,} {cpu(fold, text):>10.3f} {cpu(mark_run, text):>12.4f}")
    half = MAX_MARKS // 2
    unit = "a" + ACUTE * half + BELOW * (MAX_MARKS - half)
    text = unit * (args.chars // len(unit))
    assert mark_run(text) is None
    print(f"\naccepted text, runs of {MAX_MARKS} out of order: {len(text):,} chars")
    print(f"  fold      {cpu(fold, text):.3f} s")
    print(f"  mark_run  {cpu(mark_run, text):.3f} s")
    plain = "Refunds take 14 days from the delivery date. " * (args.chars // 45)
    print(f"ascii text: {len(plain):,} chars")
    print(f"  fold      {cpu(fold, plain):.3f} s")
    print(f"  mark_run  {cpu(mark_run, plain):.3f} s")


if __name__ == "__main__":
    main()
