"""Retrieval corpora: Markdown documents split into ``##`` passages and searched with BM25.

Passage ids are ``doc#anchor`` with GitHub's anchor slugs (``faq.md#refunds``), so a citation
opens on GitHub. Tokenising, stopwords, IDF and tie-breaking are fixed and documented in their
modules, because they are part of the benchmark.
"""

from .index import Corpus
from .library import CorpusLibrary
from .passages import Passage, parse_markdown, passage_sha256, slugify
from .stopwords import STOPWORDS
from .tokens import tokenize

__all__ = [
    "STOPWORDS",
    "Corpus",
    "CorpusLibrary",
    "Passage",
    "parse_markdown",
    "passage_sha256",
    "slugify",
    "tokenize",
]
