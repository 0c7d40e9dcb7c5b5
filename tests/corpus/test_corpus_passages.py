"""Markdown -> passages: sections, GitHub slugs, duplicates, fences, hashes."""

from __future__ import annotations

import hashlib

import pytest

from bench.core.errors import InputError
from bench.corpus import Passage, parse_markdown, passage_sha256, slugify


def triples(passages: list[Passage]) -> list[tuple[str, str, str]]:
    return [(p.id, p.title, p.text) for p in passages]


def test_one_passage_per_h2_section_and_no_preamble() -> None:
    text = (
        "# Store FAQ\n"
        "Welcome text that belongs to no passage.\n"
        "\n"
        "## Refunds\n"
        "Refunds take five business days.\n"
        "\n"
        "## Shipping\n"
        "\n"
        "Shipping is free over $50.\n"
    )
    assert triples(parse_markdown("faq.md", text)) == [
        ("faq.md#refunds", "Refunds", "Refunds take five business days."),
        ("faq.md#shipping", "Shipping", "Shipping is free over $50."),
    ]


def test_passage_fields() -> None:
    [passage] = parse_markdown("billing/plans.md", "## Annual Plan\nTwelve months.")
    assert passage == Passage(
        id="billing/plans.md#annual-plan",
        doc="billing/plans.md",
        anchor="annual-plan",
        title="Annual Plan",
        text="Twelve months.",
        sha256=hashlib.sha256(b"Annual Plan\nTwelve months.").hexdigest(),
    )


def test_deeper_headings_stay_inside_their_section() -> None:
    text = "## Returns\nIntro.\n### By mail\nUse the label.\n#### Abroad\nPay postage.\n## Next\nx"
    assert triples(parse_markdown("d.md", text)) == [
        (
            "d.md#returns",
            "Returns",
            "Intro.\n### By mail\nUse the label.\n#### Abroad\nPay postage.",
        ),
        ("d.md#next", "Next", "x"),
    ]


def test_a_later_h1_ends_the_section() -> None:
    text = "## One\nfirst\n# Part two\nno passage here\n## Two\nsecond"
    assert triples(parse_markdown("d.md", text)) == [
        ("d.md#one", "One", "first"),
        ("d.md#two", "Two", "second"),
    ]


def test_hashes_inside_code_fences_are_not_headings() -> None:
    text = (
        "## Config\n"
        "```yaml\n"
        "## not a heading\n"
        "```\n"
        "~~~~\n"
        "## still not\n"
        "~~~ \n"  # shorter than the opening: does not close
        "## nor this\n"
        "~~~~~\n"
        "## Real\n"
        "body"
    )
    assert triples(parse_markdown("d.md", text)) == [
        (
            "d.md#config",
            "Config",
            "```yaml\n## not a heading\n```\n~~~~\n## still not\n~~~ \n## nor this\n~~~~~",
        ),
        ("d.md#real", "Real", "body"),
    ]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    text = "## Code\n```\n## inside\n"
    assert triples(parse_markdown("d.md", text)) == [("d.md#code", "Code", "```\n## inside")]


@pytest.mark.parametrize(
    "line",
    ["##NoSpace", "    ## indented code", "\\## escaped", "####### seven"],
)
def test_lines_that_are_not_h2_headings(line: str) -> None:
    text = f"## Top\nfirst\n{line}"
    assert triples(parse_markdown("d.md", text)) == [("d.md#top", "Top", f"first\n{line}")]


def test_closing_hashes_and_indent_are_dropped_from_the_title() -> None:
    [passage] = parse_markdown("d.md", "   ##   Refund policy ##  \nbody")
    assert (passage.anchor, passage.title) == ("refund-policy", "Refund policy")


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Refunds", "refunds"),
        ("Refunds & Returns (2024)", "refunds--returns-2024"),
        ("What's new?", "whats-new"),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("Café Größe", "café-größe"),
        ("[Docs](https://example.com/a-b) and `code()`", "docs-and-code"),
        ("Version 2.0: 100% off!", "version-20-100-off"),
        ("  Padded  ", "padded"),
        ("UPPER lower", "upper-lower"),
    ],
)
def test_github_slugs(heading: str, slug: str) -> None:
    assert slugify(heading) == slug


def test_duplicate_headings_get_github_suffixes() -> None:
    text = "## Refunds\na\n## Refunds\nb\n## Refunds\nc"
    assert [p.id for p in parse_markdown("faq.md", text)] == [
        "faq.md#refunds",
        "faq.md#refunds-1",
        "faq.md#refunds-2",
    ]


def test_every_heading_level_counts_towards_duplicates() -> None:
    text = "# FAQ\n## FAQ\na\n### Details\nb\n## Details\nc"
    assert [p.anchor for p in parse_markdown("faq.md", text)] == ["faq-1", "details-1"]


def test_a_suffix_never_reuses_a_taken_slug() -> None:
    text = "## Foo-1\na\n## Foo\nb\n## Foo\nc"
    assert [p.anchor for p in parse_markdown("d.md", text)] == ["foo-1", "foo", "foo-2"]


def test_crlf_and_bom_are_normalised() -> None:
    text = "\ufeff# T\r\n## Refunds\r\nLine one.\r\nLine two.\r\n"
    assert triples(parse_markdown("d.md", text)) == [
        ("d.md#refunds", "Refunds", "Line one.\nLine two.")
    ]


def test_empty_section_is_a_passage_with_empty_text() -> None:
    assert triples(parse_markdown("d.md", "## Empty\n\n## Full\nx")) == [
        ("d.md#empty", "Empty", ""),
        ("d.md#full", "Full", "x"),
    ]


def test_no_h2_means_no_passages() -> None:
    assert parse_markdown("d.md", "# Title\nJust text.\n### Deep\nmore") == []


def test_heading_without_letters_or_digits_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        parse_markdown("d.md", "## Ok\nx\n## ???\ny")
    assert caught.value.code == "CORPUS_ANCHOR"
    assert caught.value.field == "line 3"
    assert str(caught.value).startswith("d.md: line 3: heading '## ???'")


def test_sha256_is_title_newline_text() -> None:
    assert passage_sha256("T", "body") == hashlib.sha256(b"T\nbody").hexdigest()
    assert passage_sha256("Tb", "ody") != passage_sha256("T", "body")


def test_passage_refuses_inconsistent_fields() -> None:
    good = Passage.create("d.md", "a", "A", "text")
    with pytest.raises(ValueError, match="is not 'd.md#a'"):
        Passage("d.md#b", "d.md", "a", "A", "text", good.sha256)
    with pytest.raises(ValueError, match="sha256 does not match"):
        Passage("d.md#a", "d.md", "a", "A", "other", good.sha256)
