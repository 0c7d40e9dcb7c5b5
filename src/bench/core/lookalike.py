"""What a shown name looks like: look-alike letters as a class, in the spirit of Unicode
UTS #39 (confusable detection), with only what ``unicodedata`` knows.

Two rules, each naming the offending character (``U+XXXX`` and its Unicode name):

* ``name_problem``: a name the board shows is written in one script (Latin may be joined by
  Han, kana, Hangul or Bopomofo, UTS #39's "highly restrictive" level), and holds no character
  that draws nothing (a default-ignorable code point: joiners, variation selectors outside an
  emoji, tags, Hangul fillers). A script is the first word of the character's Unicode name.
  Mixing scripts is how one look-alike letter passes as another (``OpenAI`` with a Cyrillic
  ``О``) whatever the letter, so a table of letters is not needed to refuse it.
* ``skeleton`` / ``skeletons_match``: what a name looks like, for a name written wholly in a
  script drawn like Latin (Cyrillic, Greek, Coptic, Armenian, Cherokee, Lisu, and Latin's own
  small capitals, dotless i, hooks and strokes). Compatibility forms are folded (NFKC), marks
  and invisible characters dropped, every space read as one, dashes as ``-``, digits as ASCII
  digits; a letter is read as the Latin letter its name or the table says it looks like, and
  a letter of one of those scripts that neither says stands for any letter (``WILDCARD``):
  a genuine Greek name can then match a Latin one of its length, a price paid so that a
  look-alike no table lists does not pass.
"""

from __future__ import annotations

import functools
import re
import unicodedata

WILDCARD = "\ufffd"
"""In a skeleton: a letter of a script drawn like Latin that could be any Latin letter."""

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), and blanks that are not
# spaces: characters that draw nothing (or nothing but a gap) wherever they stand.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D159, 0x1D159), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

# Scripts whose letters are drawn like Latin ones: a letter of them not read below is a
# wildcard in a skeleton.
_LATIN_LIKE = frozenset({"LATIN", "CYRILLIC", "GREEK", "COPTIC", "ARMENIAN", "CHEROKEE", "LISU"})
# UTS #39 "highly restrictive": one script, or Latin with one of these sets.
_MIXABLE = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_SCRIPT_ALIASES = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "KANGXI": "HAN"}

# Letters read by the last word(s) of their name (before any "WITH ..."), in scripts whose
# names do not say the Latin letter they look like: (script, word) -> what the capital and the
# small letter look like (one value for both; None: a wildcard). A capital I-like letter reads
# as "l", as the Latin "I" does.
_Look = str | tuple[str | None, str | None]
_WORDS: dict[tuple[str, str], _Look] = {
    **dict.fromkeys([("GREEK", "ALPHA"), ("COPTIC", "ALFA"), ("CYRILLIC", "A")], "a"),
    **dict.fromkeys([("GREEK", "BETA"), ("COPTIC", "VIDA"), ("CYRILLIC", "VE")], "b"),
    **dict.fromkeys([("GREEK", "EPSILON"), ("COPTIC", "EIE"), ("CYRILLIC", "IE")], "e"),
    **dict.fromkeys([("GREEK", "ZETA"), ("COPTIC", "ZATA")], "z"),
    **dict.fromkeys([("GREEK", "ETA"), ("COPTIC", "HATE")], ("h", "n")),
    **dict.fromkeys([("GREEK", "IOTA"), ("COPTIC", "IAUDA")], ("l", "i")),
    **dict.fromkeys([("GREEK", "KAPPA"), ("COPTIC", "KAPA"), ("CYRILLIC", "KA")], "k"),
    **dict.fromkeys([("GREEK", "MU"), ("COPTIC", "MI")], ("m", "u")),
    **dict.fromkeys([("GREEK", "NU"), ("COPTIC", "NI")], ("n", "v")),
    **dict.fromkeys([("GREEK", "OMICRON"), ("COPTIC", "O"), ("CYRILLIC", "O")], "o"),
    **dict.fromkeys([("GREEK", "RHO"), ("COPTIC", "RO"), ("CYRILLIC", "ER")], "p"),
    **dict.fromkeys([("GREEK", "TAU"), ("COPTIC", "TAU"), ("CYRILLIC", "TE")], "t"),
    **dict.fromkeys([("GREEK", "UPSILON"), ("COPTIC", "UA")], ("y", "u")),
    **dict.fromkeys([("GREEK", "CHI"), ("COPTIC", "KHI"), ("CYRILLIC", "HA")], "x"),
    **dict.fromkeys([("COPTIC", "SIMA"), ("CYRILLIC", "ES")], "c"),
    **dict.fromkeys([("GREEK", "OMEGA"), ("COPTIC", "OOU")], (None, "w")),
    ("GREEK", "GAMMA"): (None, "y"),
    ("GREEK", "YOT"): "j",
    ("GREEK", "DIGAMMA"): "f",
    ("CYRILLIC", "ZE"): "3",
    ("CYRILLIC", "EM"): "m",
    ("CYRILLIC", "EN"): "h",
    ("CYRILLIC", "PE"): (None, "n"),
    ("CYRILLIC", "GHE"): (None, "r"),
    ("CYRILLIC", "U"): "y",
    ("CYRILLIC", "STRAIGHT U"): "y",
    ("CYRILLIC", "SOFT SIGN"): "b",
    ("CYRILLIC", "DZE"): "s",
    ("CYRILLIC", "BYELORUSSIAN-UKRAINIAN I"): ("l", "i"),
    ("CYRILLIC", "JE"): "j",
    ("CYRILLIC", "SHHA"): "h",
    ("CYRILLIC", "KOMI DE"): "d",
    ("CYRILLIC", "QA"): "q",
    ("CYRILLIC", "WE"): "w",
    ("CYRILLIC", "OMEGA"): "w",
    ("CYRILLIC", "IZHITSA"): "v",
    ("CYRILLIC", "PALOCHKA"): "l",
    ("CYRILLIC", "SCHWA"): "e",
    ("ARMENIAN", "OH"): "o",
    ("ARMENIAN", "SEH"): "u",
    ("ARMENIAN", "CO"): (None, "g"),
    ("ARMENIAN", "HO"): (None, "h"),
    ("ARMENIAN", "VO"): (None, "n"),
    ("ARMENIAN", "ZA"): (None, "q"),
    ("ARMENIAN", "AYB"): (None, "w"),
    ("ARMENIAN", "TIWN"): ("s", None),
    ("ARMENIAN", "LIWN"): "l",
    # Latin letters not named by the Latin letter they look like
    ("LATIN", "ALPHA"): "a",
    ("LATIN", "IOTA"): "i",
    ("LATIN", "UPSILON"): "u",
    ("LATIN", "GAMMA"): "y",
    ("LATIN", "ETH"): "d",
    ("LATIN", "THORN"): "p",
    ("LATIN", "ENG"): "n",
    ("LATIN", "AE"): "ae",
    ("LATIN", "OE"): "oe",
    ("LATIN", "SCHWA"): "e",
    ("LATIN", "OPEN E"): "e",
    ("LATIN", "SHARP S"): "ss",
}
# Cherokee and Lisu letters are named by sound, not shape: those drawn as a Latin letter.
_SHAPES = {
    **dict(zip("ᎠᎡᎢᎥᎩᎪᎫᎬᏃᎳᎷᎻᎽᏀᏂᏏᏒᏔᏕᏚᏞᏟᏢᏦᏧᏳᏴᏙ", "drtiyajezwmhygh" "brwssl" "cpkdgbv", strict=True)),
    **dict(zip("ꓐꓑꓓꓔꓖꓗꓙꓚꓜꓟꓠꓡꓢꓣꓦꓧꓩꓪꓫꓬꓮꓰꓲꓳꓴ", "bpdtgkjczmnlsrvhfwxyaelou", strict=True)),
    # Characters with no letter in their name, and the figures that pass for letters; a small
    # "i" reads as "l" too, so that case is ignored where "I" and "l" are one ("MINI" and
    # "Mini" alike)
    "ϲ": "c", "Ϲ": "c", "ɑ": "a", "ɡ": "g", "ǀ": "l", "|": "l", "1": "l", "I": "l", "i": "l",
    "0": "o",
}  # fmt: skip
_LETTER_NAME = re.compile(
    r"^(?P<script>[A-Z-]+(?: [A-Z-]+)*?) (?:(?P<case>CAPITAL|SMALL) )?(?:LETTER|LIGATURE) "
    r"(?P<word>.+?)(?: WITH .*)?$"
)
# Latin letters read by their name's last word: only modifiers that keep the letter's shape.
_LATIN_SHAPE = re.compile(
    r"^(?P<capital>SMALL CAPITAL )?(?:DOTLESS |SCRIPT |BROKEN |LONG )?(?P<letter>[A-Z])$"
)


def is_ignorable(ch: str) -> bool:
    """``ch`` draws nothing where it stands: a control or format character, a
    default-ignorable code point (joiners, variation selectors, tags, Hangul fillers), or a
    blank that is not a space."""
    if unicodedata.category(ch) in _HIDDEN_CATEGORIES:
        return True
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


def describe(ch: str) -> str:
    """``U+0430 CYRILLIC SMALL LETTER A``: a character named without drawing it."""
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'an unnamed character')}"


def script(ch: str) -> str | None:
    """The script of a letter or digit (the first word of its Unicode name), None for any
    other character and for ASCII digits, which every script shares."""
    category = unicodedata.category(ch)
    if not (category[0] == "L" or category in ("Nd", "Nl")) or "0" <= ch <= "9":
        return None
    name = unicodedata.name(ch, "")
    if not name or name.startswith(("MODIFIER LETTER", "KATAKANA-HIRAGANA")):
        return None
    first = name.split(" ")[0].split("-")[0]
    return _SCRIPT_ALIASES.get(first, first)


def _carries_marks(ch: str) -> bool:
    return bool(ch) and unicodedata.category(ch)[0] in "LMN"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be shown beside others' (None when it can): a character that draws
    nothing, or letters of two scripts."""
    previous = " "  # as if after a space: a mark first sits on nothing
    for ch in name:
        # An emoji's presentation selector, also in a keycap (1, U+FE0F, U+20E3)
        emoji_variant = 0xFE00 <= ord(ch) <= 0xFE0F and (
            unicodedata.category(previous) == "So" or previous in "0123456789#*"
        )
        if is_ignorable(ch) and not emoji_variant:
            return f"holds {describe(ch)}, which draws nothing"
        if unicodedata.name(ch, "").startswith("COMBINING ") and " LETTER " in unicodedata.name(ch):
            return f"holds {describe(ch)}, a letter drawn over the character before it"
        if unicodedata.category(ch)[0] == "M" and not (emoji_variant or _carries_marks(previous)):
            return f"holds {describe(ch)}, a mark with no letter to sit on"
        previous = ch
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for ch in unicodedata.normalize("NFKC", name):
        found = script(ch)
        if found is not None:
            first.setdefault(found, ch)
            count[found] = count.get(found, 0) + 1
    scripts = set(first)
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in _MIXABLE):
        return None
    # The script most of its letters are in is the name's; the others' letters are the odd ones.
    main = max(first, key=lambda s: count[s])  # first seen wins a tie
    odd = ", ".join(f"{describe(ch)} ({s.title()})" for s, ch in first.items() if s != main)
    return (
        f"mixes scripts: {odd} among {main.title()} letters (a shown name is written in one "
        "script; Latin may be joined by Han, kana, Hangul or Bopomofo)"
    )


@functools.lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    if ch in _SHAPES:
        return _SHAPES[ch]
    if ch.isascii():
        return ch
    if is_ignorable(ch):
        return ""
    category = unicodedata.category(ch)
    name = unicodedata.name(ch, "")
    if category[0] == "M":
        return ""
    if category == "Zs" or ch.isspace():
        return " "
    if category == "Pd":
        return "-"
    if category in ("Pi", "Pf") or "APOSTROPHE" in name:
        return '"' if "DOUBLE" in name else "'"
    if category == "Nd":
        return _fold(str(unicodedata.digit(ch)))
    if category == "Nl" and name.endswith(" ZERO"):
        return "o"
    for other in (ch.upper(), ch.lower()):
        if len(other) == 1 and not other.isascii() and other in _SHAPES:
            return _SHAPES[other]
    match = _LETTER_NAME.match(name)
    if match is None:
        return WILDCARD if category[0] == "L" and script(ch) in _LATIN_LIKE else ch
    written = match["script"].split(" ")[-1]  # NEGATIVE SQUARED LATIN
    word = match["word"]
    small = match["case"] == "SMALL" or (match["case"] is None and ch.islower())
    shape = _LATIN_SHAPE.match(word)
    if shape is not None and (written == "LATIN" or match["script"] == "REGIONAL INDICATOR SYMBOL"):
        letter = shape["letter"]
        return _fold(letter.lower() if small and not shape["capital"] else letter)
    if written == "LISU" and len(word) == 1:
        return _fold(word)
    look = _WORDS.get((written, word))
    if isinstance(look, tuple):
        look = look[1] if small else look[0]
    if look is not None:
        return look
    if category[0] == "L" and script(ch) in _LATIN_LIKE:
        return WILDCARD
    return ch


def skeleton(name: str) -> str:
    """What ``name`` looks like (module docstring): equal skeletons, or skeletons that match
    (``skeletons_match``), are names a reader cannot tell apart."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    text = "".join(_fold(ch) for ch in text).casefold()
    text = "".join(_fold(ch) for ch in text)
    text = text.replace("rn", "m").replace("vv", "w")
    return re.sub(r"\s+", " ", text).strip()


def skeletons_match(one: str, other: str) -> bool:
    """The skeletons are equal, or equal where neither holds a ``WILDCARD`` (which stands for
    one letter, never a space)."""
    if one == other:
        return True
    if len(one) != len(other) or WILDCARD not in one + other:
        return False
    pairs = zip(one, other, strict=True)
    return all(a == b or (WILDCARD in (a, b) and " " not in (a, b)) for a, b in pairs)


class SkeletonIndex:
    """Skeletons seen so far and whose they are, for finding which of many names another looks
    like (``skeletons_match``): an exact look-up, then (a wildcard on either side) only the
    skeletons of the same length that could match."""

    def __init__(self) -> None:
        self.exact: dict[str, str] = {}
        self.every: dict[int, list[str]] = {}
        self.wild: dict[int, list[str]] = {}

    def owner(self, skeleton_: str) -> str | None:
        """Whose skeleton, added before, ``skeleton_`` matches (the first added), or None."""
        if skeleton_ in self.exact:
            return self.exact[skeleton_]
        pool = self.every if WILDCARD in skeleton_ else self.wild
        for other in pool.get(len(skeleton_), []):
            if skeletons_match(skeleton_, other):
                return self.exact[other]
        return None

    def add(self, skeleton_: str, owner: str) -> None:
        """``skeleton_`` is ``owner``'s (a skeleton already added keeps its first owner)."""
        if skeleton_ in self.exact:
            return
        self.exact[skeleton_] = owner
        self.every.setdefault(len(skeleton_), []).append(skeleton_)
        if WILDCARD in skeleton_:
            self.wild.setdefault(len(skeleton_), []).append(skeleton_)


__all__ = [
    "WILDCARD",
    "SkeletonIndex",
    "describe",
    "is_ignorable",
    "name_problem",
    "script",
    "skeleton",
    "skeletons_match",
]
