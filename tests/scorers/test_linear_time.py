"""Scorers that read an agent's text do it in linear time, with the former answers
(benchmarks/bench_secret_shapes.py times both):

* ``longest_shared_run`` (the whole-answer rule's former paste check) gives what the table of
  every pair of positions gave; the table took 80 x a tool result's length;
* ``held_runs`` and ``held_set`` (the paste and echo checks now, in scoring and in verify's
  re-scoring) find what trying every triple of source positions finds, in one pass;
* ``fenced_body`` (a JSON answer in a fenced block) gives the former regex's body; the regex
  took 34 s on 80,000 blanks after the opening backticks."""

from __future__ import annotations

import re
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.scorers.answers import ANSWER_SKIP, SKIP, held_runs, held_set, longest_shared_run
from bench.scorers.document import fenced_body

FORMER_FENCE = re.compile(
    r"```[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?[ \t]*```", re.IGNORECASE | re.DOTALL
)


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
words = st.lists(st.sampled_from(["a", "b", "c", "the", "é", "1", "2"]), max_size=40)


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


def _number(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _triples(
    answer: list[str], source: list[str], answer_skip: int = ANSWER_SKIP
) -> set[tuple[tuple[str, ...], int, int]]:
    """By definition: every three source positions in order, with at most ``SKIP`` words
    between two of them, whose words are three answer words in order with at most
    ``answer_skip`` answer words between two of them; where the answer skipped a number, the
    source skipped none."""
    found = set()
    for a, b, c in combinations(range(len(answer)), 3):
        if b - a > answer_skip + 1 or c - b > answer_skip + 1:
            continue
        for i, j, k in combinations(range(len(source)), 3):
            if j - i > SKIP + 1 or k - j > SKIP + 1:
                continue
            if (source[i], source[j], source[k]) != (answer[a], answer[b], answer[c]):
                continue
            if any(
                any(map(_number, answer[x + 1 : y])) and any(map(_number, source[u + 1 : v]))
                for (x, y), (u, v) in (((a, b), (i, j)), ((b, c), (j, k)))
            ):
                continue
            found.add(((source[i], source[j], source[k]), i, k))
    return found


@settings(max_examples=3000, deadline=None)
@given(words, words)
def test_held_runs_are_the_triples(answer: list[str], source: list[str]) -> None:
    """The paste rule's runs may skip an answer word (one the copy changed or added); the echo
    rule's (``held_set``) are consecutive answer words."""
    assert set(held_runs(answer, source)) == _triples(answer, source)
    assert held_set(answer, source) == {run for run, _, _ in _triples(answer, source, 0)}


def test_known_held_runs() -> None:
    source = ["orders", "placed", "before", "14", "00", "cet", "leave", "the", "warehouse"]
    assert set(held_runs(["placed", "before", "cet"], source)) == {
        (("placed", "before", "cet"), 1, 5)
    }
    assert set(held_runs(["placed", "before", "leave"], source)) == set()  # 3 words skipped
    # an answer word the copy changed or added is skipped too, one at a time
    assert set(held_runs(["placed", "thing", "before", "cet"], source)) == {
        (("placed", "before", "cet"), 1, 5)
    }
    assert set(held_runs(["placed", "x", "y", "before", "cet"], source)) == set()
    assert held_set(["placed", "thing", "before", "cet"], source) == set()
    assert held_set(["a", "b"], ["a", "b"]) == set()
    # a long repetitive source, in one pass: a few lookups per word
    assert held_set(["a"] * 79 + ["b"], ["a"] * 200_000) == {("a", "a", "a")}
    starts = {first for _, first, _ in held_runs(["a", "b", "a"], ["a", "b"] * 100_000)}
    assert starts == set(range(0, 200_000 - 2, 2))


PIECES = ["```", "`", " ", "\t", "\n", "\r", "\r\n", "json", "JSON", "js", "{}", "x"]
fences = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


@settings(max_examples=3000, deadline=None)
@given(fences)
def test_the_fence_reader_agrees_with_the_former_regex(text: str) -> None:
    found = FORMER_FENCE.fullmatch(text)
    assert fenced_body(text) == (None if found is None else found["body"]), text


def test_known_fences() -> None:
    assert fenced_body('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert fenced_body("```  JSON \r\n[1]\r\n  ```") == "[1]"
    assert fenced_body("```\n```") == ""
    assert fenced_body("```python\n1\n```") is None
    assert fenced_body("```json {} ```") is None  # no line break after the opening
    assert fenced_body("```" + " " * 200_000 + "x\n{}\n```") is None
