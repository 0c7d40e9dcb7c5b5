from __future__ import annotations

import math
import os
from collections.abc import Iterator
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


@pytest.fixture(params=["unnamed", "named"])
def once_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways ``write_once`` makes a file: an O_TMPFILE file linked into place (Linux, where
    the file system has it) and a named temp file linked and removed (everywhere else)."""
    from bench.core import atomic

    if request.param == "named":
        monkeypatch.setattr(atomic, "_UNNAMED", [False])
    else:
        assert atomic._UNNAMED == [True]  # this machine's file systems have O_TMPFILE
    return str(request.param)


def test_write_once_never_overwrites(tmp_path: Path, once_path: str, umask_027: None) -> None:
    target = tmp_path / "a" / "file.json"
    write_once(target, b"first")
    # both ways: the mode ``open`` gives a new file (0666 less the umask), not mkstemp's 0600
    assert target.stat().st_mode & 0o777 == 0o640
    with pytest.raises(FileExistsError) as info:
        write_once(target, b"second")
    assert info.value.filename == str(target) or info.value.filename2 == str(target)
    assert target.read_bytes() == b"first"
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]  # no temp left behind


def test_a_write_once_that_fails_midway_leaves_nothing(
    tmp_path: Path, once_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="Input/output"):
        write_once(tmp_path / "file.json", b"x" * 100_000)
    assert list(tmp_path.iterdir()) == []


def test_write_once_falls_back_where_the_file_system_has_no_unnamed_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from bench.core import atomic

    monkeypatch.setattr(atomic, "_UNNAMED", [True])
    real_open = os.open

    def no_tmpfile(path: object, flags: int, *args: object) -> int:
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", no_tmpfile)
    write_once(tmp_path / "file.json", b"first")
    assert (tmp_path / "file.json").read_bytes() == b"first"
    assert atomic._UNNAMED == [False]  # not asked again


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


@pytest.fixture
def umask_027() -> Iterator[None]:
    mask = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(mask)


def test_written_files_get_the_mode_open_gives_not_mkstemps(
    tmp_path: Path, umask_027: None, once_path: str
) -> None:
    """A report, a task file, a schema set or a run's files were all 0600 (the temp file's
    mode), whatever the umask: unreadable to a web server's user serving a report. A file
    replaced keeps its own mode; a private one (a key) is 0600 from its first byte."""
    from bench.core.atomic import write_atomic, write_set

    new = tmp_path / "report.html"
    write_atomic(new, b"<p>one</p>")
    assert new.stat().st_mode & 0o777 == 0o640
    new.chmod(0o604)
    write_atomic(new, [b"<p>two</p>"])
    assert new.stat().st_mode & 0o777 == 0o604 and new.read_bytes() == b"<p>two</p>"
    write_atomic(new, b"secret", private=True)
    assert new.stat().st_mode & 0o777 == 0o600
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "kept.json").write_bytes(b"{}")
    (tmp_path / "set" / "kept.json").chmod(0o644)
    write_set(tmp_path / "set", {"kept.json": b"[]", "fresh.json": b"[]"})
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "set").iterdir()}
    assert modes == {"kept.json": 0o644, "fresh.json": 0o640}
    write_once(tmp_path / "attempt.json", b"{}")
    assert (tmp_path / "attempt.json").stat().st_mode & 0o777 == 0o640
