"""Secret shapes, citations, pastes and fences on adversarial text: former against linear.

    .venv/bin/python benchmarks/bench_secret_shapes.py [--sizes 5000 20000 80000]

Texts: runs of ``eyJ-`` (every position a JWT start) and of letters (every position a URL
scheme start), and ordinary prose. Prints CPU seconds for the former regex and for
``bench.core.secrets.secret_shape`` (all eleven shapes), and the ratio of each to a baseline
measured in the same run: one ``str.count`` over the text. Quadratic growth shows as a time
that grows 16x when the text grows 4x.
"""

from __future__ import annotations

import argparse
import re
import time

from bench.core.secrets import secret_shape
from bench.scorers.answers import CITATION_PATTERN, citation_spans, longest_shared_run
from bench.scorers.document import fenced_body

FORMER = {
    "jwt": re.compile(
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    ),
    "url": re.compile(r"(?i)[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@"),
}


def cpu(fn, text: str) -> float:  # type: ignore[no-untyped-def]
    start = time.process_time()
    fn(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000, 80000])
    args = parser.parse_args()
    print("text              chars   baseline    former regex (kind)    secret_shape (all)")
    for n in args.sizes:
        texts = {
            "eyJ- repeated": ("eyJ-" * (n // 4 + 1))[:n],
            "letters": ("a" * n),
            "prose": ("the quick brown fox jumps over the lazy dog " * (n // 44 + 1))[:n],
        }
        for name, text in texts.items():
            base = min(cpu(lambda t: t.count("x"), text) for _ in range(5)) or 1e-7
            kind = "jwt" if name.startswith("eyJ") else "url"
            former = cpu(FORMER[kind].search, text)
            now = min(cpu(secret_shape, text) for _ in range(3))
            print(f"{name:16} {n:7d}   {base * 1e3:7.3f} ms  {former:9.3f} s ({kind}, "
                  f"{former / base:9.0f}x)   {now * 1e3:8.3f} ms ({now / base:6.0f}x)")  # fmt: skip
    citations(args.sizes)
    pastes(args.sizes)
    fences(args.sizes)


def citations(sizes: list[int]) -> None:
    print("\ncitations in an answer of letters (no .md#): CITATION_PATTERN.findall against "
          "citation_spans")  # fmt: skip
    for n in sizes:
        text = "a" * n
        base = min(cpu(lambda t: t.count("x"), text) for _ in range(5)) or 1e-7
        former = cpu(CITATION_PATTERN.findall, text)
        now = min(cpu(citation_spans, text) for _ in range(3))
        print(f"   {n:7d} chars: former {former:8.3f} s ({former / base:9.0f}x), "
              f"now {now * 1e3:7.3f} ms ({now / base:5.0f}x)")  # fmt: skip


def _table(answer: list[str], source: list[str]) -> int:
    """The former ``longest_shared_run``: every pair of positions."""
    best = 0
    previous = [0] * (len(source) + 1)
    for word in answer:
        current = [0] * (len(source) + 1)
        for j, other in enumerate(source, start=1):
            if word == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _cpu_of(fn, *args) -> float:  # type: ignore[no-untyped-def]
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def pastes(sizes: list[int]) -> None:
    print("\nthe paste check: an answer of 80 words (the budget) against a tool result of N "
          "words, all one word: the former table against longest_shared_run")  # fmt: skip
    answer = ["a"] * 80
    for n in sizes:
        source = ["a"] * n
        base = min(cpu(lambda t: t.count("x"), " ".join(source)) for _ in range(5)) or 1e-7
        start = time.process_time()
        former = _table(answer, source)
        was = time.process_time() - start
        now = min(_cpu_of(longest_shared_run, answer, source) for _ in range(3))
        assert former == longest_shared_run(answer, source) == 80
        print(f"   {n:7d} words: former {was:8.3f} s ({was / base:9.0f}x), "
              f"now {now * 1e3:7.3f} ms ({now / base:5.0f}x)")  # fmt: skip


FORMER_FENCE = re.compile(
    r"```[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?[ \t]*```", re.IGNORECASE | re.DOTALL
)


def fences(sizes: list[int]) -> None:
    print("\na JSON answer in a fence, N blanks after the opening backticks: the former regex "
          "against fenced_body")  # fmt: skip
    for n in sizes:
        text = "```" + " " * n + "x\n{}\n```"
        base = min(cpu(lambda t: t.count("x"), text) for _ in range(5)) or 1e-7
        former = cpu(FORMER_FENCE.fullmatch, text)
        now = min(cpu(fenced_body, text) for _ in range(3))
        print(f"   {n:7d} blanks: former {former:8.3f} s ({former / base:9.0f}x), "
              f"now {now * 1e3:7.3f} ms ({now / base:5.0f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
