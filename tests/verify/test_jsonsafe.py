"""The verifier's strict JSON reader: its fast paths (depth without parsing, duplicate keys by
counting colons) decide exactly as a parser with a hook on every object would."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.verify import jsonsafe
from bench.verify.failure import VerifyFailure

KEYS = st.sampled_from(["a", "b", ":", "a:b", '"', "\\", "[", "{}", "é", "\u0061"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False,
    allow_infinity=False), st.text(alphabet='ab:[]{}"\\é,', max_size=6),
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=30,
)


def _reference_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_reference_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_reference_depth(v) for v in value), default=0)
    return 0


def _with_duplicate(value: Any) -> str | None:
    """A compact text of ``value`` whose first object (searched depth first) writes its first
    pair twice; ``None`` when ``value`` holds no non-empty object."""
    compact: dict[str, Any] = {"separators": (",", ":"), "ensure_ascii": False}
    if isinstance(value, dict) and value:
        key, item = next(iter(value.items()))
        pair = json.dumps(key, **compact) + ":" + json.dumps(item, **compact)
        return "{" + pair + "," + json.dumps(value, **compact)[1:]
    if isinstance(value, list):
        for index, item in enumerate(value):
            inner = _with_duplicate(item)
            if inner is not None:
                parts = [json.dumps(x, **compact) for x in value]
                parts[index] = inner
                return "[" + ",".join(parts) + "]"
    return None


def _code(data: bytes) -> str | None:
    try:
        jsonsafe.load(data, "x.json")
    except VerifyFailure as exc:
        return str(exc.code)
    return None


@settings(max_examples=300, deadline=None)
@given(value=VALUES, ascii_only=st.booleans())
def test_depth_and_duplicates_match_a_full_parse(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    data = text.encode()
    assert jsonsafe.depth(data) == _reference_depth(value)
    assert jsonsafe.load(data, "x.json") == value
    assert jsonsafe.load(json.dumps(value, indent=1).encode(), "x.json") == value
    doubled = _with_duplicate(value)
    if doubled is not None:
        assert _code(doubled.encode()) == "DUPLICATE_KEY"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"a":1,"a":2}', "DUPLICATE_KEY"),
        (b'{"a":1,"\\u0061":2}', "DUPLICATE_KEY"),  # equal once decoded
        (b'{"x":{"b":1,"c":{"b":2,"b":3}}}', "DUPLICATE_KEY"),
        (b'{"a:b":1,"c":"::","d":[":"]}', None),
        (b'{"y":"\\":","z":"\\\\"}', None),
        (b"[NaN]", "NON_FINITE_NUMBER"),
        (b"[1e400]", "NON_FINITE_NUMBER"),
        (b'{"a":1,', "JSON_MALFORMED"),
        (b"[" * 65 + b"]" * 65, "LIMIT_DEPTH"),
        (b'"[[[[' + b"[" * 100 + b'"', None),  # brackets inside a string do not nest
    ],
)
def test_known_answers(raw: bytes, code: str | None) -> None:
    assert _code(raw) == code


# -- text the board cannot show (TEXT_INVALID) ---------------------------------------------

SPECIAL = [
    "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00",  # surrogates (lone or paired)
    "\ufdd0", "\ufdef", "\ufffe", "\uffff", "\U0001fffe", "\U0010ffff",  # non-characters
    "\x00", "\x08", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f",  # controls
    "\t", "\n", "\r", "\xa0", "\ufdcf", "\ufdf0", "\ufffd", "\U0001fffd", "\U0010fffd",
    "\U0001f600", "\u202e", "\u2028", "\ufeff", "\\", '"', "u", "0", "d", "8", "b", "f", "é",
]  # fmt: skip
TEXT = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters()), max_size=8)


def forbidden(text: str) -> bool:
    """The reference rule, one character at a time."""
    for ch in text:
        point = ord(ch)
        if (point < 0x20 and ch not in "\t\n\r") or 0x7F <= point <= 0x9F:
            return True
        if 0xD800 <= point <= 0xDFFF or 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE:
            return True
    return False


def _text_code(data: bytes, **options: Any) -> str | None:
    try:
        jsonsafe.load(data, "x.jsonl:3", text=True, **options)
    except VerifyFailure as exc:
        return str(exc.code)
    return None


@settings(max_examples=400, deadline=None)
@given(key=TEXT, value=TEXT, escaped=st.booleans(), nested=st.booleans())
def test_text_refused_exactly_when_a_character_is_forbidden(
    key: str, value: str, escaped: bool, nested: bool
) -> None:
    document: Any = {"ok": [1, {key: value}]} if nested else {key: value}
    data = json.dumps(document, ensure_ascii=escaped).encode("utf-8", "surrogatepass")
    if escaped:  # what the parser gives: escaped surrogate pairs join into one character
        parsed = json.loads(data)
        pair = next(iter((parsed["ok"][1] if nested else parsed).items()))
        bad = forbidden(pair[0]) or forbidden(pair[1])
    else:  # a surrogate written literally is not UTF-8 at all
        bad = forbidden(key) or forbidden(value)
    assert _text_code(data) == ("TEXT_INVALID" if bad else None)
    if bad:  # without the text rule the same bytes parse (or fail only as not UTF-8)
        assert _code(data) in (None, "TEXT_INVALID")


@pytest.mark.parametrize(
    ("raw", "code", "field"),
    [
        (b'{"a":"\\ud800"}', "TEXT_INVALID", "a"),
        (b'{"a":"\\ud83d\\ude00"}', None, None),  # a pair: one emoji
        (b'{"a":"\\ude00\\ud83d"}', "TEXT_INVALID", "a"),  # the wrong order: two lone halves
        (b'{"a":["x",{"b c":"\\u0000"}]}', "TEXT_INVALID", 'a[1]."b c"'),
        (b'{"a":{"\\u0085":1}}', "TEXT_INVALID", 'a."\\u0085"'),
        (b'{"a":"\\\\u0000 \\\\ud800"}', None, None),  # backslashes, then text
        (b'{"a":"\\b"}', "TEXT_INVALID", "a"),
        (b'{"a":"\\t\\n\\r"}', None, None),
        (b'{"a":"\xef\xbf\xbe"}', "TEXT_INVALID", "a"),  # U+FFFE, literal
        (b'{"a":"\xf3\xbf\xbf\xbf"}', "TEXT_INVALID", "a"),  # U+FFFFF, literal
        (b'{"a":"\xf3\xbf\xbf\xbd"}', None, None),  # U+FFFFD
        (b'{"a":"\\udbff\\udfff"}', "TEXT_INVALID", "a"),  # U+10FFFF, as a pair
        (b'{"a":"\xc2\x9b"}', "TEXT_INVALID", "a"),  # C1, literal
        (b'{"a":"x\x01"}', "TEXT_INVALID", None),  # C0, literal: named by position
        (b'{"a":"\x7f"}', "TEXT_INVALID", "a"),
        (b'{"a":"\xed\xa0\x80"}', "TEXT_INVALID", None),  # a literal surrogate: not UTF-8
        (b'{"a":"\xff"}', "TEXT_INVALID", None),  # not UTF-8
        (b'{"a":"\xe2\x80\xae \xe2\x80\xa8 \xef\xbb\xbf"}', None, None),  # RLO, LS, BOM: shown
    ],
)
def test_text_known_answers(raw: bytes, code: str | None, field: str | None) -> None:
    try:
        jsonsafe.load(raw, "x.jsonl:3", text=True)
        got: tuple[str | None, str | None] = (None, None)
    except VerifyFailure as exc:
        assert exc.path == "x.jsonl:3"
        got = (str(exc.code), exc.field)
    assert got == (code, field)


def test_without_text_only_utf8_is_checked() -> None:
    assert _code(b'{"a":"\\u0000\\ud800\\ufffe"}') is None
    assert _code(b'{"a":"\xff"}') == "TEXT_INVALID"


def test_ijson_refuses_surrogates_and_non_characters_but_not_controls() -> None:
    def code(raw: bytes) -> str | None:
        try:
            jsonsafe.load(raw, "manifest.json", ijson=True)
        except VerifyFailure as exc:
            return str(exc.code)
        return None

    assert code(b'{"a":"\\ud800"}') == "TEXT_INVALID"
    assert code(b'{"\\uffff":1}') == "TEXT_INVALID"
    assert code(b'{"a":"\xef\xb7\x90"}') == "TEXT_INVALID"
    assert code(b'{"a":"x\\u0000.txt","b":"\\u0085"}') is None  # PATH_UNSAFE's to name
