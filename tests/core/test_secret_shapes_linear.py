"""The two secret shapes found in two steps (``bench.core.secrets``) find exactly what their
former single regexes found, on every text; the former regexes took minutes on 200,000
characters of ``eyJ-`` or of letters (benchmarks/bench_secret_shapes.py times both)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.secrets import secret_shape

FORMER_JWT = re.compile(
    r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
)
FORMER_URL = re.compile(r"(?i)[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")

# Short pieces that make the shapes likely: the finder must agree on near misses too.
PIECES = ["eyJ", "eyJabcdefgh", "12345678", ".", "-", "_", "a", "Z", "9", "x.", "+",
          "://", "user", ":", "pw", "@", "/", " ", "http", "1", "é", "\n"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _kinds(text: str) -> tuple[bool, bool]:
    from bench.core import secrets

    return secrets._json_web_token(text), secrets._url_with_password(text)


@settings(max_examples=3000, deadline=None)
@given(texts)
def test_the_two_step_finders_agree_with_the_former_regexes(text: str) -> None:
    jwt, url = _kinds(text)
    assert jwt == (FORMER_JWT.search(text) is not None), text
    assert url == (FORMER_URL.search(text) is not None), text


def test_known_shapes_and_near_misses() -> None:
    token = "eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSM"
    assert secret_shape(f"auth {token} here") == "a JSON Web Token"
    assert secret_shape(f"x_{token}") == "a JSON Web Token"  # after _ as before
    assert secret_shape(f"x{token}") is None  # after a letter: not a start
    assert secret_shape("see https://me:hunter2@example.com/") == "a URL with a password"
    assert secret_shape("1+https://me:pw@host") == "a URL with a password"
    assert secret_shape("123://me:pw@host") is None  # no letter: no scheme
    assert secret_shape("https://example.com/a:b@c") is None  # the @ is in the path


def test_long_runs_are_still_searched_to_their_end() -> None:
    # The earliest start decides a run: a token at the end of a long run is found.
    run = "eyJ" + "-" * 5000
    assert secret_shape(run + ".eyJabcdefgh.12345678") == "a JSON Web Token"
    assert secret_shape("a" * 5000 + "://me:pw@host") == "a URL with a password"
    assert secret_shape("eyJ-" * 5000) is None
    assert secret_shape("a" * 5000) is None


CITATION_PIECES = ["a", "X", "faq", ".md", "#", "refunds", ".", "/", "-", "_", " ", "md",
                   "9", "#x", "(", "é"]  # fmt: skip
citation_texts = st.lists(st.sampled_from(CITATION_PIECES), max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(citation_texts)
def test_citation_spans_are_the_former_regex_matches(text: str) -> None:
    """Citations are found by a linear scan (``scorers.answers.citation_spans``): the same
    spans as ``CITATION_PATTERN.finditer``, which was quadratic in a run with no ``.md#``."""
    from bench.scorers.answers import CITATION_PATTERN, citation_spans

    assert citation_spans(text) == [m.span() for m in CITATION_PATTERN.finditer(text)], text
