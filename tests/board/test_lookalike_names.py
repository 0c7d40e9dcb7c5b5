"""Look-alike names as a class (``bench.core.lookalike``): a shown name that mixes scripts,
holds a character that draws nothing, or is written wholly in a script drawn like Latin cannot
pass as another entrant's, whatever letters a table lists. Property-style: the look-alikes are
generated from the Unicode database, not listed."""

from __future__ import annotations

import re
import shutil
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.board import BoardBuildError, build
from bench.board.registry import label_collisions, name_collisions, name_skeleton

# Their letters are named by how they sound, and UTS #39 lets them share a name with Latin.
_BESIDE_LATIN = ("CJK", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "HANGUL", "HALFWIDTH HANGUL",
                 "BOPOMOFO")  # fmt: skip


def _named_like(letter: str) -> Iterator[str]:
    """Every character whose Unicode name says it is ``letter`` (``... LETTER A``, ``...
    LETTER SMALL CAPITAL A``, ``... LETTER A WITH ...``), in any script, that is drawn as one
    character (NFKC: not a parenthesised or ligated pair)."""
    pattern = re.compile(rf"\bLETTER (?:SMALL CAPITAL )?{letter}(?: WITH .*)?$")
    for code in range(0x80, sys.maxunicode + 1):
        ch = chr(code)
        name = unicodedata.name(ch, "")
        if (
            pattern.search(name)
            and len(unicodedata.normalize("NFKC", ch)) == 1
            and not name.startswith(_BESIDE_LATIN)
        ):
            yield ch


def _small(ch: str) -> bool:
    name = unicodedata.name(ch)
    return ("SMALL LETTER" in name or ch.islower()) and "CAPITAL" not in name


LOOKALIKES = [(letter, ch) for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for ch in _named_like(letter)]


def test_the_generated_lookalikes_span_many_scripts() -> None:
    scripts = {unicodedata.name(ch).split(" ")[0] for _, ch in LOOKALIKES}
    assert len(LOOKALIKES) > 1000
    assert {"LATIN", "CYRILLIC", "COPTIC", "CHEROKEE", "LISU", "TAG", "COMBINING"} <= scripts


def test_no_letter_named_like_a_latin_one_lets_a_name_pass_as_another() -> None:
    """One letter of a name swapped for any character named as that letter: the pair is a
    problem (a look-alike pair, a name that mixes scripts, or a character that draws nothing
    or sits on nothing), as a registered name and as a run's label."""
    passed = []
    for letter, ch in LOOKALIKES:
        real_letter = letter.lower() if _small(ch) else letter
        real = f"Team {real_letter}gent v2"
        fake = f"Team {ch}gent v2"
        names = {"real": real, "fake": fake}
        if not name_collisions(names) or not label_collisions({"fake": [fake]}, {"real": real}):
            passed.append(f"U+{ord(ch):04X} {unicodedata.name(ch)}")
    assert passed == []


# Whole-script look-alikes (UTS #39's "whole-script confusables"): no letter of Latin in them,
# so only the skeleton can tell.
WHOLE_SCRIPT = [
    ("ABC", "\ua4ee\ua4d0\ua4da"),  # Lisu
    ("ABC", "\u13aa\u13f4\u13df"),  # Cherokee
    ("oug", "\u0585\u057d\u0581"),  # Armenian
    ("abc", "\u1d00\u0299\u1d04"),  # Latin small capitals
    ("ibm", "\u0131bm"),  # dotless i
    ("java", "\u03f3\u03b1\u03bd\u03b1"),  # Greek, with a yot
    ("dqw", "\u0501\u051b\u0461"),  # Cyrillic
    ("Abc", "\u2c80\u2c83\u2ca5"),  # Coptic
    ("ABC", "\U0001d400\U0001d401\U0001d402"),  # mathematical bold
    ("OpenAI", "\u041e\u0440\u0435\u043f\u0410\u0406"),  # Cyrillic throughout
    ("GPT-4o", "GPT\u20104o"),  # a hyphen that is not the ASCII one
    ("Llama 3", "Llama \u01b7"),  # a Latin letter no reading names (EZH): any letter
    ("Kin", "\u13e6\u13a5\u13c1"),  # Cherokee: the last letter unlisted, so any letter
]


@pytest.mark.parametrize(("real", "fake"), WHOLE_SCRIPT, ids=[f for _, f in WHOLE_SCRIPT])
def test_a_name_written_wholly_in_a_latin_like_script_looks_alike(real: str, fake: str) -> None:
    [problem] = [p for p in name_collisions({"real": real, "fake": fake}) if "look alike" in p]
    assert "'fake'" in problem and "'real'" in problem


def _a_letter_of_its_own(ch: str) -> bool:
    """A letter outside ASCII that is not a modifier letter (a prime, a half ring: Common)."""
    name = unicodedata.name(ch, "")
    return not ch.isascii() and unicodedata.category(ch)[0] == "L" and "MODIFIER" not in name


def test_no_letter_of_a_latin_like_script_survives_as_itself() -> None:
    """In a skeleton, every letter of a script drawn like Latin is read as a Latin letter or a
    digit, or stands for any letter: none is left as a letter no Latin name can match."""
    from bench.core.lookalike import WILDCARD

    kept = []
    for code in range(0x80, sys.maxunicode + 1):
        ch = chr(code)
        name = unicodedata.name(ch, "")
        script = name.split(" ")[0]
        if unicodedata.category(ch)[0] != "L" or script not in {
            "CYRILLIC", "GREEK", "COPTIC", "ARMENIAN", "CHEROKEE", "LISU", "LATIN"
        }:  # fmt: skip
            continue
        folded = name_skeleton(ch)
        if any(_a_letter_of_its_own(c) and c != WILDCARD for c in folded):
            kept.append(f"U+{code:04X} {name}")
    assert kept == []


INVISIBLE = [
    "\u200d",  # ZERO WIDTH JOINER
    "\u2060",  # WORD JOINER
    "\u00ad",  # SOFT HYPHEN
    "\ufe0f",  # VARIATION SELECTOR-16 after a letter
    "\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2067",  # RIGHT-TO-LEFT ISOLATE
    "\u034f",  # COMBINING GRAPHEME JOINER
    "\u3164",  # HANGUL FILLER
    "\u2800",  # BRAILLE PATTERN BLANK
    "\u180b",  # MONGOLIAN FREE VARIATION SELECTOR ONE
    "\U000e0100",  # VARIATION SELECTOR-17
]


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda ch: f"U+{ord(ch):04X}")
def test_a_character_that_draws_nothing_is_named_and_ignored(ch: str) -> None:
    fake = f"Tied{ch} One"
    problems = name_collisions({"real": "Tied One", "fake": fake})
    code = f"U+{ord(ch):04X} {unicodedata.name(ch)}"
    assert any(code in p and "draws nothing" in p for p in problems)
    assert any("look alike" in p for p in problems)  # and without it the names are one
    [alone] = name_collisions({"fake": fake})
    assert code in alone


def test_every_space_reads_as_one_and_every_mark_is_dropped() -> None:
    """Different space characters, and combining overlays (a stroke through a letter) on a
    letter: the same name to the eye. Not refused: a space is drawn as one, an accent is a
    name's own."""
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"]
    overlays = [chr(c) for c in range(0x300, 0x2100) if "OVERLAY" in unicodedata.name(chr(c), "")]
    assert len(spaces) >= 15 and len(overlays) >= 10
    for ch in spaces:
        assert name_skeleton(f"Tied{ch}One") == name_skeleton("Tied One"), ascii(ch)
    for ch in overlays:
        fake = f"Ti{ch}ed One"
        problems = name_collisions({"real": "Tied One", "fake": fake})
        assert [p for p in problems if "look alike" in p], ascii(ch)


LEGITIMATE = [
    "Llama 3.1 8B",
    "Qwen2.5-7B-Instruct",
    "GPT-4o mini",
    "通义千问 Qwen",
    "Mistral Large (2411)",
    "Émile's agent",
    "Example support bot",
    "SmolLM2-135M-Instruct Q4_1 (llama-cpp-python)",
    "Tiếng Việt bot",
    "ChatGLM 智谱清言",
    "カラクリ LM 8x7B",
    "하이퍼클로바X",
    "Яндекс",
    "Ελληνικά 2",
    "Agent ☀️",
]


def test_legitimate_names_pass() -> None:
    names = {f"e{index}": name for index, name in enumerate(LEGITIMATE)}
    assert name_collisions(names) == []
    labels = {entrant: [name] for entrant, name in names.items()}
    assert label_collisions(labels, names) == []


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Tied \u041ene", "U+041E CYRILLIC CAPITAL LETTER O (Cyrillic) among Latin letters"),
        ("\u13aaBC Agent", "U+13AA CHEROKEE LETTER GO (Cherokee) among Latin letters"),
        ("GPT-\u0664o", "U+0664 ARABIC-INDIC DIGIT FOUR (Arabic) among Latin letters"),
        ("Team \u0363gent", "U+0363 COMBINING LATIN SMALL LETTER A, a letter drawn over"),
        ("\u0338Cat", "U+0338 COMBINING LONG SOLIDUS OVERLAY, a mark with no letter"),
    ],
)
def test_the_message_names_the_code_point(name: str, said: str) -> None:
    [problem] = name_collisions({"solo": name})
    assert said in problem and "'solo'" in problem and ascii(name) in problem
    [label] = label_collisions({"run": [name]}, {"run": "Another name"})
    assert said in label and "re-run under another display name" in label


def test_a_registered_name_that_mixes_scripts_fails_strict(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    """No other entrant need be named alike: a Lisu A in a Latin name is refused by itself."""
    registry = tmp_path / "submissions"
    shutil.copytree(board_inputs / "submissions", registry)
    record = (registry / "tied-one.yaml").read_text(encoding="utf-8")
    (registry / "tied-one.yaml").write_text(
        record.replace("Tied One (registered)", "Tied One \ua4eegent"), encoding="utf-8"
    )
    result = build(make_options(board_inputs, tmp_path / "site", submissions=registry))
    [problem] = [p for p in result.problems if "mixes scripts" in p]
    assert "'tied-one'" in problem and "U+A4EE LISU LETTER A" in problem
    with pytest.raises(BoardBuildError, match="U\\+A4EE LISU LETTER A"):
        build(make_options(board_inputs, tmp_path / "strict", submissions=registry, strict=True))


@pytest.mark.parametrize(
    ("one", "other"),
    [("Mini Good", "MINI GOOD"), ("Gemini Pro", "GEMINI PRO"), ("Il Bot", "il bot")],
)
def test_case_is_ignored_where_capital_i_reads_as_l(one: str, other: str) -> None:
    """A capital "I" reads as "l" (they are drawn alike); a small "i" must too, or the same
    name in capitals ("MINI" -> "mlnl") and in mixed case ("Mini") were two names."""
    assert name_collisions({"a": one, "b": other})
