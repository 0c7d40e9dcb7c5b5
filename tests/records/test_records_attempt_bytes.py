"""Attempt files: pydantic's indented JSON, the same values the json.dumps writer wrote."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.trace import Exchange, Message, ToolCall, Trace, Usage
from bench.records import AttemptRecord
from bench.records.store import attempt_bytes

WHEN = datetime(2026, 12, 2, 11, 0, 0, 123456, tzinfo=UTC)


def legacy_bytes(record: AttemptRecord) -> bytes:
    """How attempt files were written before: the stdlib encoder with indent=2."""
    dumped = record.model_dump(mode="json")
    return (json.dumps(dumped, indent=2, ensure_ascii=False) + "\n").encode()


def record(result: Any = None, cost: float | None = 2.715e-05) -> AttemptRecord:
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
            exchanges=[
                Exchange(
                    index=0,
                    request_hash="h",
                    request={"model": "m", "temperature": 1e-07},
                    response={"content": "ok", "n": 10**20},
                    latency_s=3.8549999999999995e-05,
                    cost_usd=cost,
                )
            ],
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
