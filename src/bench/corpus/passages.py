"""Markdown documents split into citable passages, one per ``##`` section.

Rules (a deliberate subset of CommonMark, enough for hand-written corpus files):

* Headings are ATX only: up to three spaces, one to six ``#``, then a space, a tab or the end
  of the line; an optional closing run of ``#`` is dropped. Setext underlines are body text.
* Lines inside a fenced code block (```` ``` ```` or ``~~~``, three or more; closed by the same
  character at least as long, or by the end of the document) are never headings.
* Each ``##`` heading starts a passage that runs to the next ``#`` or ``##`` heading or the
  end of the document; ``###`` and deeper stay inside it, heading lines included. Text before
  the first ``##`` (and after a later ``#``) belongs to no passage.
* The anchor is the GitHub slug of the heading (see :func:`slugify`). Every heading of every
  level takes part in de-duplication, as on GitHub: the second "Refunds" is ``refunds-1``,
  then ``refunds-2``, skipping any slug already taken. So ``faq.md#refunds`` opens on GitHub.
* ``Passage.sha256`` is the SHA-256 (hex) of the UTF-8 bytes of ``title + "\\n" + text``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bench.core.canonical import sha256_hex
from bench.core.errors import InputError

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$")
_CLOSING_RE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def passage_sha256(title: str, text: str) -> str:
    return sha256_hex(f"{title}\n{text}".encode())


@dataclass(frozen=True)
class Passage:
    """One ``##`` section of one corpus document; ``id`` is ``doc#anchor``."""

    id: str
    doc: str
    anchor: str
    title: str
    text: str
    sha256: str

    def __post_init__(self) -> None:
        if self.id != f"{self.doc}#{self.anchor}":
            raise ValueError(f"passage id '{self.id}' is not '{self.doc}#{self.anchor}'")
        if self.sha256 != passage_sha256(self.title, self.text):
            raise ValueError(f"passage '{self.id}': sha256 does not match its title and text")

    @classmethod
    def create(cls, doc: str, anchor: str, title: str, text: str) -> Passage:
        return cls(
            id=f"{doc}#{anchor}",
            doc=doc,
            anchor=anchor,
            title=title,
            text=text,
            sha256=passage_sha256(title, text),
        )


def slugify(heading: str) -> str:
    """GitHub's heading slug: links reduced to their text, lowercased, characters other than
    letters, digits, combining marks, spaces, ``-`` and ``_`` dropped, each space -> ``-``.

    ``"Refunds & Returns (2024)"`` -> ``"refunds--returns-2024"``. No NFKC here: GitHub does
    not normalise. Emphasis written with ``_`` keeps its underscores (GitHub would drop them).
    """
    text = _LINK_RE.sub(r"\1", heading).strip().lower()
    kept = (
        ch for ch in text if ch.isalnum() or ch in " -_" or unicodedata.category(ch).startswith("M")
    )
    return "".join(kept).replace(" ", "-")


class _Slugger:
    """GitHub's de-duplication: ``x``, ``x-1``, ``x-2``, never reusing a slug."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def slug(self, heading: str) -> str:
        base = slugify(heading)
        result = base
        while result in self._counts:
            self._counts[base] += 1
            result = f"{base}-{self._counts[base]}"
        self._counts[result] = 0
        return result


def _heading(line: str) -> tuple[int, str] | None:
    match = _HEADING_RE.match(line)
    if match is None:
        return None
    content = _CLOSING_RE.sub("", match.group(2).strip())
    return len(match.group(1)), content.strip()


def _closes(line: str, fence: str) -> bool:
    match = _FENCE_RE.match(line)
    return (
        match is not None
        and match.group(1)[0] == fence[0]
        and len(match.group(1)) >= len(fence)
        and not match.group(2).strip()
    )


def parse_markdown(doc: str, text: str) -> list[Passage]:
    """The passages of one document, in document order (see the module docstring)."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    slugger = _Slugger()
    passages: list[Passage] = []
    current: tuple[str, str] | None = None  # (anchor, title) of the open section
    body: list[str] = []
    fence: str | None = None

    def close() -> None:
        if current is not None:
            passages.append(Passage.create(doc, current[0], current[1], "\n".join(body).strip()))
        body.clear()

    for number, line in enumerate(lines, start=1):
        if fence is not None:
            if _closes(line, fence):
                fence = None
        elif (opening := _FENCE_RE.match(line)) is not None and not (
            opening.group(1)[0] == "`" and "`" in opening.group(2)
        ):
            fence = opening.group(1)
        elif (heading := _heading(line)) is not None:
            level, title = heading
            anchor = slugger.slug(title)
            if level <= 2:
                close()
                current = None
                if level == 2:
                    if not anchor:
                        raise InputError(
                            f"heading '{line.strip()}' has no letters or digits to make an anchor",
                            code="CORPUS_ANCHOR",
                            path=doc,
                            field=f"line {number}",
                        )
                    current = (anchor, title)
                continue
        body.append(line)
    close()
    return passages


__all__ = ["Passage", "parse_markdown", "passage_sha256", "slugify"]
