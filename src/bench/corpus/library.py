"""Corpus documents on disk: each read once, each combination of documents indexed once.

A document name is a plain relative POSIX path under the root (``faq.md``,
``billing/plans.md``): no ``..``, ``.`` or empty parts, no leading ``/``, no backslash, and it
must not leave the root through a symlink. The name is what passage ids start with, so only
one spelling of each document is accepted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from bench.core.diskerror import raise_if_disk
from bench.core.errors import BenchError, InputError

from .index import Corpus
from .passages import Passage, parse_markdown

MAX_DOCUMENT_BYTES = 32 * 1024 * 1024  # as for a task or target file (FILE_TOO_LARGE)


class CorpusLibrary:
    """Loads documents under ``root`` (UTF-8 Markdown) and builds cached corpora from them."""

    def __init__(self, root: Path) -> None:
        self._root = Path(root)
        self._documents: dict[str, tuple[Passage, ...]] = {}
        self._corpora: dict[tuple[str, ...], Corpus] = {}
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        return self._root

    def passages(self, doc: str) -> tuple[Passage, ...]:
        """The passages of one document, read and parsed on first use."""
        with self._lock:
            return self._load(doc)

    def corpus(self, docs: Sequence[str]) -> Corpus:
        """One corpus over ``docs`` (in that order), built once per distinct tuple."""
        if isinstance(docs, str):
            raise TypeError("docs is a sequence of document names, not one string")
        key = tuple(docs)
        with self._lock:
            cached = self._corpora.get(key)
            if cached is not None:
                return cached
            repeated = sorted({doc for doc in key if key.count(doc) > 1})
            if repeated:
                raise InputError(
                    f"corpus document(s) listed twice: {', '.join(repeated)}",
                    code="CORPUS_DUPLICATE",
                    path=self._root,
                )
            corpus = Corpus(passage for doc in key for passage in self._load(doc))
            self._corpora[key] = corpus
            return corpus

    def _load(self, doc: str) -> tuple[Passage, ...]:
        cached = self._documents.get(doc)
        if cached is not None:
            return cached
        path = self._locate(doc)
        try:
            if path.stat().st_size > MAX_DOCUMENT_BYTES:  # refused unread (a 1 GB file was read)
                raise InputError(
                    f"corpus document '{doc}' is larger than {MAX_DOCUMENT_BYTES} bytes",
                    code="FILE_TOO_LARGE",
                    path=path,
                )
            data = path.read_bytes()
        except OSError as exc:
            raise_if_disk(exc, path)  # the disk, not the corpus: IO_ERROR
            raise InputError(
                f"corpus document '{doc}' cannot be read ({exc.strerror})",
                code="CORPUS_READ",
                path=path,
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"corpus document '{doc}' is not UTF-8 (byte {exc.start})",
                code="CORPUS_ENCODING",
                path=path,
            ) from None
        nul = data.find(b"\x00")
        if nul >= 0:
            # Valid UTF-8, but a binary file (or a text file a tool padded): its passages would
            # carry NULs into prompts, hashes and the page, and no Markdown editor shows them.
            raise InputError(
                f"corpus document '{doc}' contains a NUL byte (byte {nul}): not a text file",
                code="CORPUS_ENCODING",
                path=path,
            )
        try:
            passages = tuple(parse_markdown(doc, text))
        except BenchError as exc:
            raise InputError(exc.message, code=exc.code, path=path, field=exc.field) from None
        if not passages:
            raise InputError(
                f"corpus document '{doc}' has no '## ' section, so it has no passages",
                code="CORPUS_EMPTY",
                path=path,
            )
        self._documents[doc] = passages
        return passages

    def _locate(self, doc: str) -> Path:
        pure = PurePosixPath(doc)
        if (
            not doc
            or "\\" in doc
            or "\x00" in doc
            or pure.is_absolute()
            or str(pure) != doc
            or any(part in ("..", ".") for part in pure.parts)
        ):
            raise InputError(
                f"corpus document name '{doc}' is not a plain relative path inside the root",
                code="CORPUS_PATH",
                path=self._root,
            )
        path = self._root / doc
        if not path.resolve().is_relative_to(self._root.resolve()):
            raise InputError(
                f"corpus document '{doc}' escapes the corpus root",
                code="CORPUS_PATH",
                path=path,
            )
        if not path.is_file():
            raise InputError(f"corpus document '{doc}' not found", code="CORPUS_MISSING", path=path)
        return path


__all__ = ["CorpusLibrary"]
