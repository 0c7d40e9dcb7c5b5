"""Attempt files: pydantic's indented JSON, the same values the json.dumps writer wrote, each
exchange on a line of its own that the cassette's line for it reuses."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.trace import Exchange, Message, ToolCall, Trace, Usage
from bench.records import AttemptRecord
from bench.records.store import RunDir, attempt_bytes, cassette_line, exchange_lines

WHEN = datetime(2026, 12, 2, 11, 0, 0, 123456, tzinfo=UTC)


def legacy_bytes(record: AttemptRecord) -> bytes:
    """How attempt files were written before: the stdlib encoder with indent=2."""
    dumped = record.model_dump(mode="json")
    return (json.dumps(dumped, indent=2, ensure_ascii=False) + "\n").encode()


def exchange(index: int, cost: float | None) -> Exchange:
    return Exchange(
        index=index,
        request_hash="h",
        request={"model": "m", "temperature": 1e-07},
        response={"content": "ok ✓", "n": 10**20},
        latency_s=3.8549999999999995e-05,
        cost_usd=cost,
    )


def record(result: Any = None, cost: float | None = 2.715e-05, exchanges: int = 1) -> AttemptRecord:
    return AttemptRecord(
        run_id="20261202T110000Z-abcdef",
        config_fingerprint="f" * 16,
        task_id="tool-0001",
        task_fingerprint="t" * 16,
        family="tool-trajectory",
        split="public",
        repeat=3,
        outcome="scored",
        value=0.5,
        passed=False,
        started_at=WHEN,
        finished_at=WHEN,
        trace=Trace(
            messages=[Message(role="user", content="Remboursez la commande « 42 » ✓")],
            tool_calls=[ToolCall(id="c1", name="get_order", arguments={"id": 42}, result=result)],
            usage=Usage(prompt_tokens=10, completion_tokens=2),
            usage_measured=True,
            latency_s=1.5e-05,
            cost_usd=cost,
            exchanges=[exchange(index, cost) for index in range(exchanges)],
        ),
    )


def test_the_same_values_as_the_json_dumps_writer() -> None:
    one = record()
    assert json.loads(attempt_bytes(one)) == json.loads(legacy_bytes(one))
    assert AttemptRecord.model_validate_json(attempt_bytes(one)) == one


def test_indented_readable_and_stable() -> None:
    data = attempt_bytes(record())
    text = data.decode()
    assert text.startswith('{\n  "format_version": 1,\n  "run_id": ')
    assert text.endswith("}\n")
    assert "« 42 » ✓" in text  # UTF-8 as is, not \u escapes
    assert attempt_bytes(record()) == data  # equal records, equal bytes


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(result=json_values, cost=st.none() | st.floats(min_value=0, max_value=1e6))
def test_any_json_value_reads_back_the_same(result: Any, cost: float | None) -> None:
    one = record(result, cost)
    assert json.loads(attempt_bytes(one)) == json.loads(legacy_bytes(one))
    assert AttemptRecord.model_validate_json(attempt_bytes(one)) == one


@pytest.mark.parametrize("count", [0, 1, 3])
def test_each_exchange_is_one_line_of_the_file_and_the_same_values(count: int) -> None:
    one = record(exchanges=count)
    lines = exchange_lines(one)
    data = attempt_bytes(one, lines)
    assert data == attempt_bytes(one)  # the lines are made when not given
    assert json.loads(data) == json.loads(legacy_bytes(one))
    assert AttemptRecord.model_validate_json(data) == one
    text = data.decode()
    for line in lines:
        assert f"\n      {line}" in text  # whole, on its own line
    assert text.endswith("    ]\n  }\n}\n" if count else '"exchanges": []\n  }\n}\n')


def test_the_splice_rests_on_trace_and_exchanges_being_the_last_fields() -> None:
    assert list(AttemptRecord.model_fields)[-1] == "trace"
    assert list(Trace.model_fields)[-1] == "exchanges"


def test_a_cassette_from_lines_is_the_cassette_from_exchanges(tmp_path: Path) -> None:
    one = record(exchanges=2)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    RunDir(tmp_path / "a").write_cassette(
        ("tool-0001", 3, exchange) for exchange in one.trace.exchanges
    )
    RunDir(tmp_path / "b").write_cassette_lines(
        ("tool-0001", 3, line) for line in exchange_lines(one)
    )
    a = (tmp_path / "a" / "cassette.jsonl").read_bytes()
    assert a == (tmp_path / "b" / "cassette.jsonl").read_bytes()
    first = json.loads(a.splitlines()[0])
    assert first == {"task_id": "tool-0001", "repeat": 3, **exchange(0, 2.715e-05).model_dump()}
    assert cassette_line("t", 0, '{"a":1}') == '{"task_id":"t","repeat":0,"a":1}'
