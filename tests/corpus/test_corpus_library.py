"""Loading corpus documents from disk: caching and every refusal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.core.errors import InputError
from bench.corpus import CorpusLibrary


@pytest.fixture
def root(tmp_path: Path) -> Path:
    corpora = tmp_path / "corpora"
    (corpora / "billing").mkdir(parents=True)
    (corpora / "faq.md").write_text("# FAQ\n## Refunds\nFive days.\n", encoding="utf-8")
    (corpora / "billing" / "plans.md").write_text("## Annual\nTwelve months.\n", encoding="utf-8")
    return corpora


def test_corpus_over_several_documents(root: Path) -> None:
    corpus = CorpusLibrary(root).corpus(["faq.md", "billing/plans.md"])
    assert [p.id for p in corpus.passages] == ["faq.md#refunds", "billing/plans.md#annual"]
    assert [p.id for p in corpus.search("twelve months")] == ["billing/plans.md#annual"]


def test_corpora_are_cached_per_tuple_and_documents_read_once(root: Path) -> None:
    library = CorpusLibrary(root)
    first = library.corpus(["faq.md"])
    assert library.corpus(("faq.md",)) is first
    (root / "faq.md").write_text("## Changed\nOther text.\n", encoding="utf-8")
    both = library.corpus(["faq.md", "billing/plans.md"])
    assert both is not first
    assert [p.id for p in both.passages] == ["faq.md#refunds", "billing/plans.md#annual"]
    assert library.passages("faq.md") == first.passages
    assert CorpusLibrary(root).passages("faq.md")[0].id == "faq.md#changed"


def test_a_string_is_not_a_list_of_documents(root: Path) -> None:
    with pytest.raises(TypeError, match="not one string"):
        CorpusLibrary(root).corpus("faq.md")


def test_no_documents_is_an_empty_corpus(root: Path) -> None:
    corpus = CorpusLibrary(root).corpus([])
    assert len(corpus) == 0 and corpus.search("refunds") == []


def test_missing_document(root: Path) -> None:
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["faq.md", "nope.md"])
    assert caught.value.code == "CORPUS_MISSING"
    assert caught.value.path == str(root / "nope.md")
    assert str(caught.value) == f"{root / 'nope.md'}: corpus document 'nope.md' not found"


def test_a_directory_is_not_a_document(root: Path) -> None:
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["billing"])
    assert caught.value.code == "CORPUS_MISSING"
    assert str(root / "billing") in str(caught.value)


@pytest.mark.parametrize(
    "name", ["../secret.md", "/etc/passwd", "billing/../faq.md", "./faq.md", "a\\b.md", ""]
)
def test_names_that_are_not_plain_paths_under_the_root(root: Path, name: str) -> None:
    (root.parent / "secret.md").write_text("## Secret\nx\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus([name])
    assert caught.value.code == "CORPUS_PATH"
    assert f"'{name}'" in str(caught.value)
    assert str(root) in str(caught.value)


def test_a_symlink_out_of_the_root_is_refused(root: Path) -> None:
    outside = root.parent / "outside.md"
    outside.write_text("## Outside\nx\n", encoding="utf-8")
    os.symlink(outside, root / "link.md")
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["link.md"])
    assert caught.value.code == "CORPUS_PATH"
    assert str(root / "link.md") in str(caught.value)


def test_document_without_sections(root: Path) -> None:
    (root / "empty.md").write_text("# Title only\nSome text.\n### Deep\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["empty.md"])
    assert caught.value.code == "CORPUS_EMPTY"
    assert str(caught.value).startswith(f"{root / 'empty.md'}: ")


def test_document_that_is_not_utf8(root: Path) -> None:
    (root / "latin1.md").write_bytes("## Café\nprix 5 €\n".encode("cp1252"))
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["latin1.md"])
    assert caught.value.code == "CORPUS_ENCODING"
    assert str(caught.value) == (
        f"{root / 'latin1.md'}: corpus document 'latin1.md' is not UTF-8 (byte 6)"
    )


def test_bad_heading_names_the_file_and_line(root: Path) -> None:
    (root / "bad.md").write_text("## Fine\nx\n## !!!\ny\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["bad.md"])
    assert caught.value.code == "CORPUS_ANCHOR"
    assert str(caught.value).startswith(f"{root / 'bad.md'}: line 3: heading '## !!!'")


def test_a_document_listed_twice(root: Path) -> None:
    with pytest.raises(InputError) as caught:
        CorpusLibrary(root).corpus(["faq.md", "billing/plans.md", "faq.md"])
    assert caught.value.code == "CORPUS_DUPLICATE"
    assert "faq.md" in caught.value.message
