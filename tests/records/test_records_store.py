"""Run directories: never overwritten, found by id, prefix, path or latest (by write time)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.core.errors import RunStoreError
from bench.core.trace import Trace
from bench.records import AttemptRecord, RunConfig, RunStatus, RunStore, TaskSetRef

WHEN = datetime(2026, 12, 2, 11, 0, tzinfo=UTC)


def config(run_id: str) -> RunConfig:
    return RunConfig(
        run_id=run_id,
        harness_version="0.1.0",
        created_at=WHEN,
        entrant="e",
        display_name="E",
        target_kind="scripted",
        target_file="t.yaml",
        target={"model": "m"},
        comparable={"model": "m"},
        task_set=TaskSetRef(path="tasks", content_hash="h", split=None, task_ids=["a"]),
        repeats=1,
        concurrency=1,
        seed=1,
    )


def status(run_id: str) -> RunStatus:
    return RunStatus(
        run_id=run_id,
        status="started",
        config_fingerprint="f",
        started_at=WHEN,
        updated_at=WHEN,
        attempts_total=1,
    )


def attempt(run_id: str) -> AttemptRecord:
    """One scored attempt of task ``a``, repeat 0."""
    return AttemptRecord(
        run_id=run_id,
        config_fingerprint="f",
        task_id="a",
        task_fingerprint="t",
        family="grounded-qa",
        split="public",
        repeat=0,
        outcome="scored",
        value=1.0,
        passed=True,
        started_at=WHEN,
        finished_at=WHEN,
        trace=Trace(answers=["x"]),
    )


def make(store: RunStore, run_id: str, mtime: int | None = None) -> Path:
    run = store.create(config(run_id), status(run_id))
    if mtime is not None:
        os.utime(run.path / "status.json", ns=(mtime, mtime))
    return run.path


def test_resolve_by_id_prefix_and_path(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    a = make(store, "20261201T100000Z-aaaaaa")
    b = make(store, "20261202T100000Z-bbbbbb")
    assert store.resolve("20261201T100000Z-aaaaaa").path == a
    assert store.resolve("20261202").path == b
    assert store.resolve(str(a)).path == a


def test_an_ambiguous_prefix_names_the_matches(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    make(store, "20261201T100000Z-aaaaaa")
    make(store, "20261201T110000Z-bbbbbb")
    with pytest.raises(RunStoreError) as info:
        store.resolve("20261201")
    assert info.value.code == "RUN_AMBIGUOUS"
    assert "matches 2 runs (20261201T100000Z-aaaaaa, 20261201T110000Z-bbbbbb)" in str(info.value)


def test_latest_is_by_write_time_not_by_name(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    make(store, "20261202T100000Z-zzzzzz", mtime=1_000_000_000_000_000_000)
    older_name = make(store, "20261201T100000Z-aaaaaa", mtime=2_000_000_000_000_000_000)
    assert store.resolve("latest").path == older_name


def test_not_found_and_no_runs(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    with pytest.raises(RunStoreError, match="no runs yet"):
        store.resolve("latest")
    make(store, "20261201T100000Z-aaaaaa")
    with pytest.raises(RunStoreError) as info:
        store.resolve("2025")
    assert info.value.code == "RUN_NOT_FOUND"


def test_a_run_is_never_overwritten(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    path = make(store, "20261201T100000Z-aaaaaa")
    before = (path / "config.json").read_bytes()
    other = config("20261201T100000Z-aaaaaa").model_copy(update={"entrant": "intruder"})
    with pytest.raises(RunStoreError) as info:
        store.create(other, status("20261201T100000Z-aaaaaa"))
    assert info.value.code == "RUN_EXISTS"
    assert (path / "config.json").read_bytes() == before


def test_attempts_are_written_once(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    record = attempt(run.run_id)
    path = run.write_attempt(record)
    assert path.name == "a--r0.json"
    with pytest.raises(RunStoreError) as info:
        run.write_attempt(record.model_copy(update={"value": 0.0, "passed": False}))
    assert info.value.code == "ATTEMPT_EXISTS"
    assert run.attempts() == [record]
    assert run.attempt("a", 0) == record  # read back alone, as bench run's report does


def test_a_corrupt_attempt_file_is_named(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    (run.path / "attempts").mkdir()
    (run.path / "attempts" / "a--r0.json").write_text('{"run_id": 3}')
    with pytest.raises(RunStoreError) as info:
        run.attempts()
    assert info.value.code == "RUN_CORRUPT"
    assert "a--r0.json" in str(info.value)


@pytest.mark.parametrize("text", [None, '{"run_id": 3}', "{broken"])
def test_one_attempt_read_back_that_is_missing_or_corrupt_is_named(
    tmp_path: Path, text: str | None
) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    (run.path / "attempts").mkdir()
    if text is not None:
        (run.path / "attempts" / "a--r0.json").write_text(text)
    with pytest.raises(RunStoreError) as info:
        run.attempt("a", 0)
    assert info.value.code == "RUN_CORRUPT"
    assert "a--r0.json" in str(info.value)


@pytest.mark.parametrize(
    ("name", "broken", "says"),
    [
        ("config.json", b"\xff\xfe{}", "not UTF-8 (byte 0)"),
        ("status.json", b'{"run_id": "\xc0\x80"}', "not UTF-8 (byte 12)"),
        ("attempts/a--r0.json", b"\x80", "not UTF-8 (byte 0)"),
        ("status.json", None, "cannot be read"),
    ],
)
def test_a_run_file_that_is_not_utf8_or_not_a_file_is_run_corrupt(
    tmp_path: Path, name: str, broken: bytes | None, says: str
) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    (run.path / "attempts").mkdir()
    target = run.path / name
    target.unlink(missing_ok=True)
    if broken is None:
        target.mkdir()  # a directory where the file belongs
    else:
        target.write_bytes(broken)
    with pytest.raises(RunStoreError) as info:
        if name == "config.json":
            run.config()
        elif name == "status.json":
            run.status()
        else:
            run.attempts()
    assert info.value.code == "RUN_CORRUPT"
    assert info.value.path == str(target)
    assert says in info.value.message


def test_a_status_makes_the_attempt_names_before_it_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attempt files are linked into place without a directory sync each (their bytes are
    synced); the next status write syncs the attempts directory first, so a status never
    counts an attempt whose name a power cut could take back."""
    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    record = attempt(run.run_id)
    written = run.write_attempt(record)
    attempts = str(written.parent)
    assert attempts not in synced  # the file's bytes only
    # the file itself: an unnamed one (O_TMPFILE) or a named temp file in that directory
    assert len(synced) == 1 and synced[0].startswith(attempts + "/")
    run.write_status(status(run.run_id).model_copy(update={"attempts_done": 1}))
    # the attempts directory, then the status's temp file, then the run directory
    assert synced[1:] == [attempts, synced[2], str(run.path)]
    assert Path(synced[2]).parent == run.path and synced[2].endswith(".part")


def test_a_run_that_cannot_be_created_leaves_no_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk at config.json left an empty run directory behind (no command could read
    it, and the next run id could not be told from it)."""
    import errno

    from bench.records import store as store_module

    def full(path: Path, data: bytes, **_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store_module, "write_once", full)
    store = RunStore(tmp_path / "runs")
    with pytest.raises(OSError, match="No space"):
        store.create(config("20261201T100000Z-aaaaaa"), status("20261201T100000Z-aaaaaa"))
    assert list((tmp_path / "runs").iterdir()) == []


def test_a_run_file_the_disk_cannot_read_is_an_io_error_not_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    store = RunStore(tmp_path / "runs")
    run = store.resolve(str(make(store, "20261201T100000Z-aaaaaa")))
    real = Path.read_text

    def failing(self: Path, *args: object, **kwargs: object) -> str:
        if self.name == "status.json":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", failing)
    with pytest.raises(OSError) as info:
        run.status()
    assert not isinstance(info.value, RunStoreError)
    assert info.value.filename == str(run.path / "status.json")
    monkeypatch.setattr(Path, "read_text", real)
    (run.path / "config.json").unlink()
    (run.path / "config.json").mkdir()  # a directory where the file belongs: still corrupt
    with pytest.raises(RunStoreError) as corrupt:
        run.config()
    assert corrupt.value.code == "RUN_CORRUPT"
