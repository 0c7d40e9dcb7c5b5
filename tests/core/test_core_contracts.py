from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bench.core import (
    Interval,
    Score,
    Usage,
    Verdict,
    canonical_json,
    fingerprint,
    new_run_id,
    write_atomic,
    write_once,
)
from bench.core.errors import BenchError, InputError, RunStoreError, UsageError
from bench.core.ids import looks_like_run_id


def test_score_refuses_value_outside_unit_interval() -> None:
    with pytest.raises(ValidationError, match="outside"):
        Score(value=1.2, n=3, label="x", interval=Interval(lo=0.0, hi=1.0, method="m"))


def test_score_refuses_interval_not_containing_value() -> None:
    with pytest.raises(ValidationError, match="does not contain 0.9"):
        Score(value=0.9, n=3, label="x", interval=Interval(lo=0.1, hi=0.5, method="m"))


def test_interval_refuses_reversed_bounds() -> None:
    with pytest.raises(ValidationError, match="above its upper bound"):
        Interval(lo=0.6, hi=0.5, method="m")


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_a_score_that_validates_always_contains_its_value(a: float, b: float, c: float) -> None:
    lo, value, hi = sorted([a, b, c])
    score = Score(value=value, n=1, label="p", interval=Interval(lo=lo, hi=hi, method="m"))
    assert score.interval.lo <= score.value <= score.interval.hi


def test_verdict_cannot_pass_undecided() -> None:
    with pytest.raises(ValidationError, match="undecided"):
        Verdict(type="contains", decided=False, passed=True, credit=1.0, sentence="s")


def test_models_refuse_unknown_fields() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Usage.model_validate({"prompt_tokens": 1, "bogus": 2})


def test_cached_tokens_are_clamped_to_prompt_tokens() -> None:
    usage = Usage(prompt_tokens=10, completion_tokens=1, cached_tokens=50)
    assert usage.cached_tokens == 10
    assert usage.total == 11


def test_canonical_json_is_order_independent_and_refuses_nan() -> None:
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'.encode()
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    with pytest.raises(ValueError):
        canonical_json({"x": math.nan})


def test_write_once_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "a" / "file.json"
    write_once(target, b"first")
    with pytest.raises(FileExistsError):
        write_once(target, b"second")
    assert target.read_bytes() == b"first"
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]  # no temp left behind


def test_write_atomic_replaces(tmp_path: Path) -> None:
    target = tmp_path / "status.json"
    write_atomic(target, b"1")
    write_atomic(target, b"2")
    assert target.read_bytes() == b"2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.json"]


def test_run_ids_sort_by_time_and_differ() -> None:
    ids = {new_run_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(looks_like_run_id(i) for i in ids)


def test_errors_render_file_field_and_carry_exit_codes() -> None:
    error = InputError("bad", code="TASK_INVALID", path="tasks/a.yaml", field="tasks[0].id")
    assert str(error) == "tasks/a.yaml: tasks[0].id: bad"
    assert error.code == "TASK_INVALID"
    codes = {UsageError: 2, InputError: 3, RunStoreError: 4}
    for kind, code in codes.items():
        assert issubclass(kind, BenchError)
        assert kind("x").exit_code == code
