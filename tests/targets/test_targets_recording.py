"""What an exchange records of a response: ``ModelResponse.record()`` is ``model_dump(mode=
"json")`` with ``raw`` taken as it is, so every target hands over a JSON-native ``raw``; a
scripted entrant's is converted at its boundary. And ``loads_strict`` reads what ``json.loads``
reads, with one decoder made once."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.recordtext import unfit_text
from bench.core.trace import Message, ToolCallRequest, Usage
from bench.targets import ModelRequest, ModelResponse, load_target
from bench.targets.http import UnfitJson, loads_strict
from bench.targets.scripted import ScriptedTarget

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=15,
)


@settings(max_examples=150, deadline=None)
@given(raw=st.none() | st.dictionaries(st.text(max_size=6), json_values, max_size=5))
def test_record_is_the_json_dump_for_a_json_native_raw(raw: dict[str, Any] | None) -> None:
    response = ModelResponse(
        content="ok",
        tool_calls=[ToolCallRequest(id="c", name="f", arguments={"x": [1, "ü"]})],
        usage=Usage(prompt_tokens=3, completion_tokens=1),
        raw=raw,
    )
    recorded = response.record()
    assert recorded == response.model_dump(mode="json")
    assert list(recorded) == list(response.model_dump(mode="json"))  # and in the same order
    assert json.dumps(recorded) == json.dumps(response.model_dump(mode="json"))


def test_a_scripted_entrants_raw_is_made_json_native(mini: Path) -> None:
    spec = load_target(mini / "targets" / "good.yaml").spec
    when = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)

    def responder(request: ModelRequest) -> dict[str, Any]:
        return {"content": "hi", "raw": {"when": when, "pair": (1, 2), "set": {3}}}

    request = ModelRequest(model="m", messages=[Message(role="user", content="x")])
    response = asyncio.run(ScriptedTarget(spec, responder).complete(request))
    assert response.raw == {"when": "2026-12-02T12:00:00Z", "pair": [1, 2], "set": [3]}
    assert response.record()["raw"] == response.raw
    json.dumps(response.record())  # a plain JSON value all the way down


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_loads_strict_reads_what_json_loads_reads(value: Any) -> None:
    """... or refuses it as text a record cannot hold (a control character, a lone surrogate,
    a non-character, a long run of marks: ``bench verify`` refuses such a record)."""
    text = json.dumps(value, ensure_ascii=False)
    if unfit_text(json.loads(text), text) is not None:
        with pytest.raises(UnfitJson, match="text a record cannot hold"):
            loads_strict(text)
        return
    assert loads_strict(text) == json.loads(text)
    for encoding in ("utf-8", "utf-16", "utf-32"):
        data = text.encode(encoding)
        assert loads_strict(data) == json.loads(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NaN", "NaN is not JSON"),
        ('{"a": -Infinity}', "-Infinity is not JSON"),
        ("", "Expecting value"),
        ('{"a"', "Expecting ':' delimiter"),
        ("\ufeff{}", "Unexpected UTF-8 BOM"),
    ],
)
def test_loads_strict_refuses_what_it_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        loads_strict(text)
    if not text.startswith("\ufeff"):
        with pytest.raises(ValueError, match=message):
            loads_strict(text.encode())
    assert loads_strict(b"\xef\xbb\xbf{}") == {}  # a BOM in bytes is read past, as json does
