"""What a judge reads that a pattern does not: the disguises of ``guard.py``'s rules.

The guard's rules are patterns over the answer's words. A judge is a model: it reads a word
written in look-alike letters, small capitals, letters with marks stacked on them, spelled out
one letter at a time, in rot13, backwards, or as base64 or hex, and it reads what a customer
never sees (an HTML comment, an element styled invisible, a markdown comment). Naming every
instruction in every disguise is a race a pattern list loses, so this module works on the
disguises as classes (tests/scorers/gaming_cheats_9.py):

* ``views``: the texts a model reads the answer as, each of which the guard's rules are run
  on: the answer's skeleton (every letter its base Latin letter: marks dropped, small capitals,
  circled, squared and regional-indicator letters and the look-alike letters of other scripts
  read as Latin), its entities and percent-escapes decoded, letters spelled out one at a time
  joined up, and the skeleton read in rot13 and backwards;
* ``hidden_markup``: text a reader of the rendered answer does not see, where only a grader
  reads it;
* ``encoded_text``: base64 or hex that decodes to words: an honest answer to a customer has no
  reason to carry words they cannot read;
* ``mixed_script``: a word whose letters come from two scripts, one of them Latin or a script
  with Latin look-alikes (Cyrillic, Greek, Armenian, Cherokee …): a word made to look like
  another to a reader and to slip past a filter, whatever the word is.

Every pattern is linear in the answer (bounded repeats, no nested ones).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import html
import re
import unicodedata
import urllib.parse

_LATIN_NAME = re.compile(
    r"^(?:(?:NEGATIVE |PARENTHESIZED |CIRCLED |SQUARED |FULLWIDTH )?LATIN"
    r" (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?|REGIONAL INDICATOR SYMBOL LETTER )"
    r"([A-Z])(?: WITH .{1,60})?$"
)

_OTHER_LOOKALIKES = str.maketrans(
    # Armenian, Cherokee and Lisu letters that render as Latin ones
    "ՏՍՕօսոհցզաԼᎪᏴᏟᎬᎻᏆᎫᏦᎷᏢᏚᎢᏙᏔᏃᏒᏞꓮꓐꓚꓓꓰꓝꓖꓧꓲꓙꓗꓡꓟꓠꓳꓑꓣꓢꓔꓴꓦꓪꓫꓬꓜ",
    "SUOounhgqwLABCEHIJKMPSTVWZRLABCDEFGHIJKLMNOPRSTUVWXYZ",
)
_DOTLESS = str.maketrans("ıȷ", "ij")


@functools.cache
def _base_letter(char: str) -> str:
    """The Latin letter a character is drawn as, by its Unicode name, else the character."""
    found = _LATIN_NAME.match(unicodedata.name(char, ""))
    if found is None:
        return char
    letter = found.group(1)
    return letter.lower() if " SMALL " in unicodedata.name(char) else letter


def skeleton(text: str) -> str:
    """``text`` as a reader takes its letters: compatibility forms unfolded, combining marks
    dropped, and every character drawn as a Latin letter read as that letter."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = []
    for char in decomposed:
        if ord(char) < 0x80:
            kept.append(char)
        elif unicodedata.category(char) not in ("Mn", "Me"):
            kept.append(_base_letter(char))
    return "".join(kept).translate(_OTHER_LOOKALIKES).translate(_DOTLESS)


# --- views ------------------------------------------------------------------------------------

_SPELLED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .*_-]){3,40}[^\W\d_](?![^\W\d_])")
"""Four or more letters with one separator between each: ``r e p l y``, ``P.A.S.S``."""


def _join_spelled(text: str) -> str:
    return _SPELLED.sub(lambda m: "".join(m.group()[::2]), text)


_LEET = str.maketrans("431057@$", "aeiostas")
_LEET_WORD = re.compile(r"\b(?=[\w@$]{0,40}[^\W\d_])(?=[\w@$]{0,40}[0-9@$])[\w@$]{2,40}\b")


def views(folded: str, answer: str) -> tuple[str, ...]:
    """The texts besides ``folded`` (the guard's fold of ``answer``) a model reads it as: its
    skeleton, with entities and percent-escapes decoded, with letters spelled one at a time
    joined (two blanks or more end a word), with digits that stand for letters read as them
    (``r3ply``), and that text in rot13 and backwards."""
    plain = skeleton(folded)
    decoded = urllib.parse.unquote(html.unescape(plain))
    spaced = urllib.parse.unquote(html.unescape(skeleton(answer)))
    spelled = _join_spelled(re.sub(r"(?<=\S)[^\S\n]{2,}", "\n", spaced))
    leet = _LEET_WORD.sub(lambda m: m.group().translate(_LEET), decoded)
    out = [plain, decoded, spelled, leet, codecs.encode(decoded, "rot13"), decoded[::-1]]
    seen: list[str] = []
    for view in out:
        view = re.sub(r"[^\S\n]+", " ", view)
        if view != folded and view not in seen:
            seen.append(view)
    return tuple(seen)


# --- text a reader does not see ---------------------------------------------------------------

_HIDDEN_MARKUP = re.compile(
    r"<!--"
    r"|^ {0,3}\[[^\]\n]{0,60}\]: ?(?:#|<>|\(\)|<#>)"
    r"|\[ ?\]\([^)\n]{0,200}\)"
    r"|<(?:script|style|template|noscript|iframe|object)\b"
    r"|<[a-z][a-z0-9]{0,10}\b[^>\n]{0,200}?\b(?:hidden|aria-hidden)\b"
    r"|\b(?:display ?: ?none|visibility ?: ?hidden|font-size ?: ?0(?![.\d]*[1-9])|opacity ?: ?0"
    r"(?![.\d]*[1-9])|color ?: ?(?:white|#fff\b|#ffffff\b|transparent))",
    re.I | re.M,
)


def hidden_markup(text: str) -> re.Match[str] | None:
    """An HTML comment, a markdown comment (``[//]: # (…)``), a link with no text, an element
    a browser does not show (``hidden``, ``display:none``, white or zero-size text, a script or
    style): text a reader of the rendered answer never sees."""
    return _HIDDEN_MARKUP.search(text)


# --- text a reader cannot read ----------------------------------------------------------------

_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,12000}={0,2}(?![A-Za-z0-9+/=])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[ :]?){8,6000}(?![0-9A-Fa-f])")


def _reads_as_words(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    letters = sum(char.isalpha() for char in text)
    return (
        len(text) >= 8
        and " " in text.strip()
        and text.isprintable()
        and letters >= 0.6 * len(text.replace(" ", ""))
    )


def encoded_text(text: str) -> str | None:
    """A run of base64 or hex in ``text`` that decodes to words, or None."""
    for match in _HEX.finditer(text):
        digits = re.sub(r"[ :]", "", match.group())
        if len(digits) % 2 == 0 and _reads_as_words(bytes.fromhex(digits)):
            return match.group()
    for match in _BASE64.finditer(text):
        run = match.group()
        padded = run + "=" * (-len(run) % 4)
        try:
            data = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            continue
        if _reads_as_words(data):
            return run
    return None


# --- a word in two scripts --------------------------------------------------------------------

_CJK = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "KATAKANA-HIRAGANA", "IDEOGRAPHIC"})
_WORD = re.compile(r"[^\W\d_]{2,200}")


def _script(char: str) -> str:
    if ord(char) < 0x80:
        return "LATIN"
    if char in "µμ":  # a unit's prefix (``5 μm``), as often typed in Greek as the micro sign
        return "MICRO"
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    return "CJK" if first in _CJK else first


def mixed_script(text: str) -> str | None:
    """The first word whose letters are drawn from two scripts (Latin beside CJK, as Japanese
    writes ``USBケーブル``, is allowed), or None."""
    for match in _WORD.finditer(unicodedata.normalize("NFC", text)):
        word = match.group()
        if word.isascii():
            continue
        scripts = {_script(char) for char in word if unicodedata.category(char).startswith("L")}
        scripts.discard("MICRO")
        if len(scripts) > 1 and not scripts <= {"LATIN", "CJK"}:
            return word
    return None


__all__ = ["encoded_text", "hidden_markup", "mixed_script", "skeleton", "views"]
