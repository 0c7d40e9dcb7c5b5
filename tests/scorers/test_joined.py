"""``answers.joined`` and ``answers.unglued``: a copy that splits every second word in two
("r efund", "r-efund") or writes two or three words as one ("areissued") is read against its
source as the copy it is (tests/scorers/test_content_free_cheats.py has the cheats). Both read
the source once, and leave an answer with no such word as it is."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.scorers.answers import JOIN, JOINED_LETTERS, as_copied, joined, tokens, unglued

SOURCE = tokens("send the refund by e-mail within 14 days into the account")


def test_split_words_are_joined_into_a_word_of_the_source() -> None:
    assert joined(tokens("r efund"), SOURCE) == ["refund"]
    assert joined(tokens("re-f-und"), SOURCE) == ["refund"]
    assert joined(tokens("the r efund"), SOURCE) == ["the", "refund"]
    assert joined(tokens("1 4 days"), SOURCE) == ["14", "days"]
    assert joined(tokens("r-e-f-u-nd"), SOURCE) == ["r", "e", "f", "u", "nd"]  # over JOIN


def test_glued_words_are_read_apart_into_words_of_the_source() -> None:
    assert unglued(tokens("sendthe refund"), SOURCE) == ["send", "the", "refund"]
    assert unglued(tokens("withinthe"), SOURCE) == ["withinthe"]  # not consecutive there
    assert unglued(tokens("sendtherefundby"), SOURCE) == ["send", "the", "refund", "by"]
    assert unglued(tokens("sendtherefundbye"), SOURCE) == ["sendtherefundbye"]  # over JOIN
    assert as_copied(tokens("sendthe r efund"), SOURCE) == ["send", "the", "refund"]


def test_an_answer_without_such_words_is_read_as_it_is() -> None:
    for text in ("in 14 days", "we send it", "into the account", "sent by mail"):
        assert as_copied(tokens(text), SOURCE) == tokens(text)
    assert as_copied(tokens("in to the account"), SOURCE) == ["into", "the", "account"]
    # "into" is a word of the source: it is never read as "in" "to", even where those follow
    # each other in the source
    assert unglued(["into"], ["in", "to", "into"]) == ["into"]


def test_spellings_longer_than_the_limit_are_not_read() -> None:
    long = "x" * JOINED_LETTERS
    assert joined([long, "y"], [long + "y"]) == [long, "y"]
    assert unglued([long + "y"], [long, "y"]) == [long + "y"]


WORDS = st.sampled_from(["a", "b", "ab", "ba", "c", "abc", "bab", "cc"])


@given(st.lists(WORDS, max_size=12), st.lists(WORDS, max_size=30))
def test_joined_keeps_the_letters_and_joins_only_into_source_words(
    answer: list[str], source: list[str]
) -> None:
    read = joined(answer, source)
    assert "".join(read) == "".join(answer)
    assert len(read) <= len(answer)
    runs = {
        "".join(answer[i : i + n]) for n in range(2, JOIN + 1) for i in range(len(answer) - n + 1)
    }
    assert all(word in answer or word in runs & set(source) for word in read)
    if not runs & set(source):
        assert read == answer


@given(st.lists(WORDS, max_size=12), st.lists(WORDS, max_size=30))
def test_unglued_keeps_the_letters_and_reads_apart_only_into_source_runs(
    answer: list[str], source: list[str]
) -> None:
    read = unglued(answer, source)
    assert "".join(read) == "".join(answer)
    spelled = {
        "".join(source[i : i + n]): tuple(source[i : i + n])
        for n in range(JOIN, 1, -1)
        for i in range(len(source) - n + 1)
    }
    glued = {word for word in answer if word in spelled and word not in source}
    assert len(read) >= len(answer)
    if not glued:
        assert read == answer
    else:
        assert all(word in source or word in answer for word in read)
