"""``longest_shared_run`` (the whole-answer rule's paste check, in scoring and in verify's
re-scoring) gives what the table of every pair of positions gave, in time linear in the
source: the table took 80 x a tool result's length (benchmarks/bench_secret_shapes.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.scorers.answers import longest_shared_run


def _table(answer: list[str], source: list[str]) -> int:
    """The former way: the longest common run ending at each pair of positions."""
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


# Few distinct words, so long shared runs, repeats and near misses all occur.
words = st.lists(st.sampled_from(["a", "b", "c", "the", "é"]), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(words, words)
def test_the_automaton_agrees_with_the_table(answer: list[str], source: list[str]) -> None:
    assert longest_shared_run(answer, source) == _table(answer, source)
    assert longest_shared_run(source, answer) == _table(answer, source)


def test_known_runs() -> None:
    assert longest_shared_run([], ["a"]) == longest_shared_run(["a"], []) == 0
    assert longest_shared_run(["x", "a", "b", "c", "y"], ["a", "b", "c", "a", "b", "c", "d"]) == 3
    assert longest_shared_run(["a", "b", "a", "b", "a"], ["b", "a", "b", "a", "b"]) == 4
    assert longest_shared_run(["one", "two"], ["three", "four"]) == 0
    # a long repetitive source: all 80 answer words, in one pass over the source
    assert longest_shared_run(["a"] * 80, ["a"] * 200_000) == 80
    assert longest_shared_run(["a"] * 80, ["a", "b"] * 100_000) == 1
