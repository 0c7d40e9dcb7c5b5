"""citations and answerable: both sides, exact sentences, partial credit."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bench.core.score import Verdict
from bench.scorers.citations import DECLINE_PHRASES, cited_passages

Check = Callable[..., Verdict]

REFUNDS = {"type": "citations", "required": ["faq.md#refunds"]}


def assert_pass(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == sentence


def assert_fail(verdict: Verdict, sentence: str, credit: float = 0.0) -> None:
    assert (verdict.decided, verdict.passed) == (True, False)
    assert verdict.credit == credit
    assert verdict.sentence == sentence


# --- what counts as a citation -------------------------------------------------------------


def test_citations_are_found_bare_in_brackets_and_in_links_once_each() -> None:
    text = (
        "Refunds take 30 days [faq.md#refunds]. See also (policy.md#returns), "
        "docs/guide.md#setup and [the FAQ](faq.md#refunds). Not a citation: faq.md, #refunds."
    )
    assert cited_passages(text) == ("faq.md#refunds", "policy.md#returns", "docs/guide.md#setup")


def test_trailing_punctuation_is_not_part_of_a_citation() -> None:
    assert cited_passages("as faq.md#refunds says.") == ("faq.md#refunds",)


# --- citations -----------------------------------------------------------------------------


def test_citations_pass(check: Check) -> None:
    verdict = check(
        REFUNDS, answer="30 days [faq.md#refunds].", retrieved=["faq.md#refunds", "faq.md#shipping"]
    )
    assert_pass(verdict, "cited faq.md#refunds")
    assert verdict.type == "citations"


def test_citations_in_brackets_count(check: Check) -> None:
    verdict = check(REFUNDS, answer="30 days [[faq.md#refunds]]", retrieved=["faq.md#refunds"])
    assert_pass(verdict, "cited faq.md#refunds")


def test_required_not_cited_and_cited_without_retrieving(check: Check) -> None:
    verdict = check(REFUNDS, answer="30 days (policy.md#refunds).", retrieved=["faq.md#refunds"])
    assert_fail(verdict, "did not cite faq.md#refunds; cited without retrieving: policy.md#refunds")


def test_cited_but_not_retrieved_zeroes_the_credit(check: Check) -> None:
    verdict = check(
        {"type": "citations", "required": ["faq.md#refunds", "faq.md#shipping"]},
        answer="faq.md#refunds and faq.md#shipping",
        retrieved=["faq.md#refunds"],
    )
    assert_fail(verdict, "cited without retrieving: faq.md#shipping", credit=0.0)


def test_a_tool_calls_retrieved_list_counts_as_retrieved(check: Check) -> None:
    from bench.core.trace import ToolCall

    call = ToolCall(id="c0", name="search_docs", retrieved=["faq.md#refunds"])
    verdict = check(REFUNDS, answer="faq.md#refunds", tools=[call])
    assert_pass(verdict, "cited faq.md#refunds")


def test_unretrieved_citations_allowed_when_not_forbidden(check: Check) -> None:
    verdict = check(
        {**REFUNDS, "forbid_unretrieved": False}, answer="see faq.md#refunds", retrieved=[]
    )
    assert_pass(verdict, "cited faq.md#refunds")


def test_nonexistent_passage(check: Check) -> None:
    verdict = check(REFUNDS, answer="faq.md#refunds, and faq.md#nope", retrieved=["faq.md#refunds"])
    assert_fail(verdict, "cited a passage that does not exist: faq.md#nope", credit=0.0)


def test_nonexistent_passages_are_not_also_reported_unretrieved(check: Check) -> None:
    verdict = check(
        {"type": "citations"},
        answer="faq.md#nope and faq.md#never and faq.md#shipping",
        retrieved=[],
    )
    assert_fail(
        verdict,
        "cited without retrieving: faq.md#shipping; "
        "cited passages that do not exist: faq.md#nope, faq.md#never",
    )


def test_partial_credit_is_the_share_of_required_ids_cited(check: Check) -> None:
    required = ["faq.md#refunds", "faq.md#shipping", "policy.md#returns", "guide.md#setup"]
    verdict = check(
        {"type": "citations", "required": required},
        answer="faq.md#refunds; policy.md#returns; guide.md#setup",
        retrieved=required,
    )
    assert_fail(verdict, "did not cite faq.md#shipping", credit=0.75)


def test_min_citations(check: Check) -> None:
    verdict = check(
        {"type": "citations", "min_citations": 2},
        answer="[faq.md#refunds] [faq.md#refunds]",
        retrieved=["faq.md#refunds"],
    )
    assert_fail(verdict, "cited 1 passage, the task asks for at least 2", credit=0.5)


def test_no_citation_when_one_is_asked_for_gets_no_credit(check: Check) -> None:
    verdict = check({"type": "citations"}, answer="Refunds take 30 days.")
    assert_fail(verdict, "cited 0 passages, the task asks for at least 1", credit=0.0)


def test_credit_is_the_weaker_of_the_two_shares(check: Check) -> None:
    verdict = check(
        {
            "type": "citations",
            "required": ["faq.md#refunds", "faq.md#shipping"],
            "min_citations": 4,
        },
        answer="faq.md#refunds faq.md#shipping policy.md#returns",
        retrieved=sorted({"faq.md#refunds", "faq.md#shipping", "policy.md#returns"}),
    )
    # required share 1, min_citations share 3/4, citation precision 2/3: the weakest
    assert_fail(verdict, "cited 3 passages, the task asks for at least 4", credit=2 / 3)


def test_nothing_required_nothing_cited_passes(check: Check) -> None:
    verdict = check({"type": "citations", "min_citations": 0}, answer="Refunds take 30 days.")
    assert_pass(verdict, "cited no passages, and none were asked for")


def test_no_known_passages_is_undecided(check: Check) -> None:
    verdict = check(
        REFUNDS, answer="faq.md#refunds", retrieved=["faq.md#refunds"], known=frozenset()
    )
    assert (verdict.decided, verdict.passed) == (False, False)
    assert (
        verdict.sentence == "no passage ids are known for this task, so citations cannot be checked"
    )


def test_a_required_id_outside_the_corpus_is_undecided(check: Check) -> None:
    verdict = check({"type": "citations", "required": ["faq.md#gone"]}, answer="faq.md#gone")
    assert not verdict.decided
    assert verdict.sentence == "the task requires faq.md#gone, which its corpus does not contain"


# --- answerable ----------------------------------------------------------------------------

UNANSWERABLE = {"type": "answerable", "answerable": False}
ANSWERABLE = {"type": "answerable", "answerable": True}


def test_unanswerable_and_declined_passes(check: Check) -> None:
    verdict = check(
        UNANSWERABLE, answer="Thanks for asking. I do not know: the documents do not say."
    )
    assert_pass(
        verdict,
        "declined a question the corpus cannot answer: … I do not know: the documents do not say.",
    )


def test_unanswerable_and_answered_fails_quoting_the_agent(check: Check) -> None:
    verdict = check(UNANSWERABLE, answer="The CEO's dog is called Biscuit.")
    assert_fail(
        verdict,
        "the corpus cannot answer this and the agent answered anyway: The CEO's dog is called "
        "Biscuit.",
    )


def test_unanswerable_and_empty_fails(check: Check) -> None:
    verdict = check(UNANSWERABLE, answer="")
    assert_fail(verdict, "the corpus cannot answer this and the answer is empty, not a decline")


def test_decline_matching_ignores_case_whitespace_and_curly_apostrophes(check: Check) -> None:
    verdict = check(UNANSWERABLE, answer="Sorry —\nI  DON\u2019T know.")
    assert_pass(verdict, "declined a question the corpus cannot answer: Sorry — I DON'T know.")


def test_answerable_and_answered_passes(check: Check) -> None:
    verdict = check(ANSWERABLE, answer="Refunds take 30 days [faq.md#refunds].")
    assert_pass(
        verdict, "answered a question the corpus answers: Refunds take 30 days [faq.md#refunds]."
    )


def test_answerable_and_declined_fails(check: Check) -> None:
    verdict = check(
        ANSWERABLE, answer="I searched twice. Sadly there is no information about refunds. Sorry!"
    )
    assert_fail(
        verdict,
        "declined a question the corpus answers: … Sadly there is no information about refunds.",
    )


def test_answerable_and_empty_fails(check: Check) -> None:
    verdict = check(ANSWERABLE, answer="   ")
    assert_fail(verdict, "the corpus answers this and the answer is empty")


def test_the_published_list() -> None:
    assert 20 <= len(DECLINE_PHRASES) <= 30
    assert len(set(DECLINE_PHRASES)) == len(DECLINE_PHRASES)
    for phrase in ("i don't know", "i do not know", "cannot find", "not in the documents"):
        assert phrase in DECLINE_PHRASES
    assert all(p == p.lower().strip() and "\u2019" not in p for p in DECLINE_PHRASES)


@pytest.mark.parametrize("phrase", DECLINE_PHRASES)
def test_every_published_phrase_declines(check: Check, phrase: str) -> None:
    assert check(UNANSWERABLE, answer=f"Hmm. {phrase.upper()}, sorry.").passed
    assert not check(ANSWERABLE, answer=f"Hmm. {phrase}, sorry.").passed
