"""Content-free cheats (``content_free_cheats.py``) are held to test_cheats.py's bar: under 0.35
in every family on both splits of ``tasks/``, and significantly below the example bot v1.

They know no answer and do not do the work: answer "yes", "0" or 100 KB; cite made-up ids or
hide text in a citation's shape; call every tool with every argument, or in the order offered;
read everything and list every value; plan with the tools' names; restate the conversation; say
both "I can't" and "done"; fill a JSON document by type; paste the top passage with every second
word split in two, with words written as one, or in letters the copy rules did not fold.

Before a copy was read against each source as it copies it (``answers.as_copied``, 2026-12-06),
the top passage with every second plain word split in two — by a space, a hyphen, a dot or a
braille blank ("r efund", "r-efund") — scored 0.42 in public grounded-qa (above the example bot
v2's 0.39) and 0.25 in private: two answer words where the source has one is more than a copy's
allowed skip, so none of its runs was read as copied. With every two plain words written as one
("areissued") it scored 0.53 / 0.40; and the first 85 % of each of the top three passages, four
words written as one, fitted the word budget (0.51 / 0.36). All at most 0.06 now.

Before a copy's letters were read along the source's word boundaries (``answers.realigned``,
2026-12-07), the top passage with its plain words run together and cut every five letters
("refun dsare issue dtoth": the letters of a copy, none of its words) scored 0.40 / 0.25 in
grounded-qa, against v2's 0.388 / 0.275; cut every 3 letters 0.40 / 0.125, every 7 0.35 / 0.30,
at random places 0.35 / 0.15, every five with one letter in 20 changed 0.40 / 0.25. All are held
to the bar now, and earn 0 in grounded-qa.

Measured, not held to the bar (docs/LIMITS.md): ``refuse-and-quote`` (a refusal, then the first
half of the top passage, cited) is the cut-short quote named there as open (0.35 / 0.28 in
grounded-qa).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.core.trace import Message, ToolCall, Trace
from bench.scorers.answers import problem

from .content_free_cheats import CONTENT_FREE
from .test_cheats import (
    SPLITS,
    V1,
    Values,
    _family_means,
    assert_below_v1_on_each_split,
    assert_under_ceiling,
    run_entrants,
    scripted_target,
)

HERE = Path(__file__).resolve().parent
V2 = HERE.parents[1] / "examples" / "targets" / "support-bot-v2.yaml"
KNOWN_OPEN = frozenset({"refuse-and-quote"})
HELD = sorted(set(CONTENT_FREE) - KNOWN_OPEN)
SPLIT_WORDS = (
    "space-in-words",
    "hyphen-in-words",
    "dot-in-words",
    "braille-blank-in-words",
    "glued-pairs",
    "glued-triples",
    "glued-cut-short-top-three",
)
MOVED_BOUNDARIES = (
    "shifted-boundaries",
    "shifted-boundaries-3",
    "shifted-boundaries-7",
    "random-boundaries",
    "shifted-boundaries-changed-letters",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Values]:
    runs = tmp_path_factory.mktemp("content-free-runs")
    module = HERE / "content_free_cheats.py"
    targets = {name: scripted_target(runs, "content-free", module, name) for name in CONTENT_FREE}
    return run_entrants(runs, {"v1": V1, "v2": V2, **targets})


def test_every_cheat_has_its_function() -> None:
    assert len(CONTENT_FREE) >= 20
    assert all(CONTENT_FREE[name].__name__ == name.replace("-", "_") for name in CONTENT_FREE)
    assert set(CONTENT_FREE) > KNOWN_OPEN and set(SPLIT_WORDS) < set(HELD)
    assert set(MOVED_BOUNDARIES) < set(HELD)


@pytest.mark.parametrize("cheat", HELD)
def test_no_family_reaches_the_ceiling(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_under_ceiling(cheat, results)


@pytest.mark.parametrize("cheat", HELD)
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", SPLIT_WORDS)
def test_a_paste_with_split_or_glued_words_earns_nothing_in_grounded_qa(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    for split in SPLITS:
        assert _family_means(results[(cheat, split)])["grounded-qa"] < 0.1, split


@pytest.mark.parametrize("cheat", MOVED_BOUNDARIES)
def test_a_paste_with_its_boundaries_moved_earns_less_than_v2_in_grounded_qa(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    for split in SPLITS:
        own = _family_means(results[(cheat, split)])["grounded-qa"]
        assert own < _family_means(results[("v2", split)])["grounded-qa"], split
        assert own < 0.1, split


# --- the rule itself --------------------------------------------------------------------------

PASSAGE = (
    "Refunds are issued to the original payment method within 5 to 10 business days after the "
    "returned item has been received and inspected by our warehouse team in Utrecht."
)


def _searched(answer: str) -> Trace:
    result = [{"id": "faq.md#refunds", "text": PASSAGE}]
    return Trace(
        answers=[answer],
        tool_calls=[ToolCall(id="s", name="search_docs", result=result)],
        retrieved=["faq.md#refunds"],
    )


def _split_every_second(text: str, mark: str) -> str:
    return " ".join(
        f"{w[:1]}{mark}{w[1:]}" if at % 2 and w.isalpha() and w.islower() else w
        for at, w in enumerate(text.split())
    )


@pytest.mark.parametrize("mark", [" ", "-", ".", "\u2800", "\u3000", " - "])
def test_a_passage_with_every_second_word_split_is_a_paste(mark: str) -> None:
    answer = _split_every_second(PASSAGE, mark) + " [faq.md#refunds]"
    assert problem(answer, _searched(answer)) == (
        "the answer repeats 100% of a tool result or user message word for word"
    )


def test_an_echo_with_split_words_is_an_echo() -> None:
    said = "Please cancel order 58213 and refund it to my card today"
    answer = _split_every_second(said, "-")
    trace = Trace(answers=[answer], messages=[Message(role="user", content=said)])
    assert problem(answer, trace) == (
        "100% of the answer is a user message or tool result, copied word for word"
    )


def _glued_pairs(text: str) -> str:
    words, out = text.split(), []
    for at in range(0, len(words), 2):
        pair = words[at : at + 2]
        out.append(
            "".join(pair) if all(w.isalpha() and w.islower() for w in pair) else " ".join(pair)
        )
    return " ".join(out)


def test_a_passage_with_every_two_words_written_as_one_is_a_paste() -> None:
    answer = _glued_pairs(PASSAGE) + " [faq.md#refunds]"
    assert "areissued" not in answer and "theoriginal" in answer
    assert problem(answer, _searched(answer)) == (
        "the answer repeats 100% of a tool result or user message word for word"
    )


def test_an_echo_with_glued_words_is_an_echo() -> None:
    said = "please cancel my order and then refund it to my card right away thanks"
    answer = _glued_pairs(said)
    trace = Trace(answers=[answer], messages=[Message(role="user", content=said)])
    assert problem(answer, trace) == (
        "100% of the answer is a user message or tool result, copied word for word"
    )


def test_words_written_as_one_count_as_the_words_they_are() -> None:
    """Three passages of 40 words, the first 32 of each (80 %) with every two words written as
    one: 48 "words" (under the budget, and no passage pasted), 96 words of the passages."""
    passages = [
        " ".join(f"{stem}{n}" for n in "abcdefghijklmnopqrstuvwxyzabcdefghijklmn")
        for stem in ("ref", "ship", "warr")
    ]
    result = [{"id": f"faq.md#p{at}", "text": text} for at, text in enumerate(passages)]
    glued = " ".join(_glued_pairs(" ".join(text.split()[:32])) for text in passages)
    answer = f"{glued} [faq.md#p0]"
    trace = Trace(
        answers=[answer],
        tool_calls=[ToolCall(id="s", name="search_docs", result=result)],
        retrieved=["faq.md#p0", "faq.md#p1", "faq.md#p2"],
    )
    assert len(answer.split()) == 49
    assert problem(answer, trace) == "the answer is 96 words, over the budget of 80"
