"""Writes under faults, the leftovers (helper F12): a set of files is written all or none
(``bench schema write``, as ``bench task generate``); an output directory a command made is not
left behind empty when the disk refused what was to go in it; a page replaced on a full disk
keeps the old one; a signal after a run finished says the run is whole and how to see it; and
the history database's ``-wal`` file after a full disk at COMMIT holds nothing the next use
sees.

The in-process tests fail ``os.fsync`` (every durable write of this project syncs); the ones
marked ``full_disk`` mount a real tiny tmpfs and are skipped where that cannot be done (not
root, no mount)."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cli.main import main

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
CASES = REPO / "examples" / "cases" / "support-desk.json"


def _fail_fsync_at(monkeypatch: pytest.MonkeyPatch, at: int) -> list[int]:
    """``os.fsync`` says the disk is full at its ``at``-th call (as the kernel says it: no
    file named); returns the call counter."""
    real = os.fsync
    calls = [0]

    def fsync(fd: int) -> None:
        calls[0] += 1
        if calls[0] == at:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _bench(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str]:
    try:
        status = main(args)
    except SystemExit as stop:
        status = stop.code
    return status, capsys.readouterr().err


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))}


# --- 1. bench schema write: all or none -------------------------------------------------------


def test_schema_write_on_a_full_disk_leaves_the_old_set_or_the_whole_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "schema"
    assert _bench(["schema", "write", str(out)], capsys)[0] in (None, 0)
    new = _tree(out)
    old = {name: b"{}\n" for name in new}
    calls = _fail_fsync_at(monkeypatch, 0)
    for name, data in old.items():
        (out / name).write_bytes(data)
    assert _bench(["schema", "write", str(out)], capsys)[0] in (None, 0)
    total = calls[0]
    for at in range(1, total + 1):
        for name, data in old.items():
            (out / name).write_bytes(data)
        _fail_fsync_at(monkeypatch, at)
        status, err = _bench(["schema", "write", str(out)], capsys)
        monkeypatch.undo()
        assert status == 3, (at, err)
        [line] = err.splitlines()
        assert line.startswith(f"error[IO_ERROR]: {out}"), line
        # one file at a time, it left some schemas new and some old: a set no model had
        assert _tree(out) in (old, new), at
    shutil.rmtree(out)
    _fail_fsync_at(monkeypatch, 1)  # a fresh directory: nothing, not an empty one
    assert _bench(["schema", "write", str(out)], capsys)[0] == 3
    assert not out.exists()


# --- 2. an --out directory the command made is not left empty --------------------------------


def test_task_import_on_a_full_disk_leaves_no_empty_out_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "tasks"
    _fail_fsync_at(monkeypatch, 1)
    status, err = _bench(["task", "import", str(CASES), "--out", str(out)], capsys)
    assert status == 3, err
    [line] = err.splitlines()
    assert line.startswith(f"error[IO_ERROR]: {out / 'support-desk.yaml'}: "), line
    assert os.listdir(tmp_path) == []  # it left tmp/new/tasks, empty
    monkeypatch.undo()
    assert _bench(["task", "import", str(CASES), "--out", str(out)], capsys)[0] in (None, 0)
    assert os.listdir(out) == ["support-desk.yaml"]


def test_task_import_on_a_full_disk_keeps_an_out_directory_that_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tasks"
    out.mkdir()
    _fail_fsync_at(monkeypatch, 1)
    assert _bench(["task", "import", str(CASES), "--out", str(out)], capsys)[0] == 3
    assert out.is_dir() and os.listdir(out) == []


@pytest.fixture
def runs(run_dir: Path) -> Path:
    return run_dir.parent


def test_export_to_a_full_disk_leaves_no_empty_directory(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "exports" / "2026" / "history.csv"
    # the history is indexed first (SQLite syncs on its own, not through os.fsync)
    _fail_fsync_at(monkeypatch, 1)
    status, err = _bench(["export", "--runs-dir", str(runs), "--out", str(out)], capsys)
    assert status == 3, err
    [line] = err.splitlines()
    assert line.startswith(f"error[IO_ERROR]: {out}: No space left on device"), line
    assert not (tmp_path / "exports").exists()  # it left exports/2026/, empty


# --- 4. a signal after the run finished ------------------------------------------------------

HOOK = """
import os, signal, sys
at, count = int(sys.argv[1]), sys.argv[2]
calls = [0]
real = os.fsync
def fsync(fd):
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), signal.SIGTERM)
    return real(fd)
os.fsync = fsync
if count:
    import atexit
    atexit.register(lambda: open(count, "w").write(str(calls[0])))
from bench.cli.main import main
main(sys.argv[3:])
"""

RUN = ["run", "--tasks", "tasks", "--target", "targets/good.yaml", "--split", "public",
       "--runs-dir", "runs", "--progress", "none"]  # fmt: skip


def _hooked(
    root: Path, args: list[str], at: int, count: str = ""
) -> subprocess.CompletedProcess[str]:
    hook = root / "hook.py"
    hook.write_text(HOOK, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(hook), str(at), count, *args], capture_output=True, text=True,
        cwd=root,
    )  # fmt: skip


def test_sigterm_while_a_finished_runs_report_is_written_says_the_run_is_complete(
    tmp_path: Path,
) -> None:
    for part in ("tasks", "corpora", "targets"):
        shutil.copytree(MINI / part, tmp_path / part)
    shutil.copy(MINI / "agents.py", tmp_path / "agents.py")
    done = _hooked(tmp_path, RUN, 0, str(tmp_path / "count"))
    assert done.returncode == 0, done.stderr
    total = int((tmp_path / "count").read_text())
    shutil.rmtree(tmp_path / "runs")
    # the report's temp file, then its directory: the last two syncs, after the run's own
    for at in (total - 1, total):
        done = _hooked(tmp_path, RUN, at)
        assert done.returncode == 143, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        [line] = done.stderr.strip().splitlines()  # it was "terminated (SIGTERM)" alone
        [run] = [p.name for p in (tmp_path / "runs").iterdir() if p.name[0].isdigit()]
        assert line.startswith(f"terminated (SIGTERM) after run {run} finished (complete, "), line
        assert "nothing to resume" in line and "while its report" in line, line
        assert line.endswith(f"bench show {run} --runs-dir runs shows it"), line
        assert list((tmp_path / "runs").rglob(".tmp*")) == []
        shown = _hooked(tmp_path, ["show", run, "--runs-dir", "runs"], 0)
        assert shown.returncode == 0, shown.stderr
        shutil.rmtree(tmp_path / "runs")


# --- on a real full disk (a tiny tmpfs; root only) --------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[object]:
    """``mount(size)``: a tmpfs of ``size`` bytes at a fresh directory, unmounted after."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tmpfs needs root and mount(8)")
    mounted: list[Path] = []

    def mount(size: int) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:  # lazily: a connection a failed assertion left open holds it
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path) -> Path:
    """Fill ``disk`` to its last byte; the file that fills it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 512)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_at_commit_leaves_a_wal_the_next_use_reads_cleanly(
    runs: Path, full_disk: object
) -> None:
    """SQLite appends a transaction's pages to the ``-wal`` file and counts it only with its
    commit frame (checksummed): a full disk at COMMIT leaves frames without one, which every
    later reader ignores and the next writer overwrites. So the ``-wal`` left beside the
    history is harmless: pinned here on a real full disk."""
    from bench.reports import history
    from bench.runner import RunRequest, start_run

    first = next(p for p in runs.iterdir() if p.name[0].isdigit())
    second, _ = start_run(
        RunRequest(
            tasks=runs.parent / "tasks",
            target_file=runs.parent / "targets" / "good.yaml",
            runs_dir=runs,
            split="public",
        )
    )
    disk = full_disk(256 * 1024)  # type: ignore[operator]
    path = disk / "history.sqlite3"
    db = history.open_db(path)
    history.index_run(db, first)
    filler = _fill(disk)
    with pytest.raises(OSError) as info:
        history.index_run(db, second.path)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    db.close()
    assert Path(f"{path}-wal").exists()  # what this test is about
    # the disk still full: a reader sees the history as it was, whole
    again = history.open_db(path)
    assert [r[0] for r in again.execute("SELECT run_id FROM runs")] == [first.name]
    assert again.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again.close()
    filler.unlink()
    # room again: the failed run is indexed, nothing of the torn write shows
    again = history.open_db(path)
    assert again.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert history.index_run(again, second.path) == second.run_id
    assert sorted(r[0] for r in again.execute("SELECT run_id FROM runs")) == sorted(
        [first.name, second.run_id]
    )
    counts = again.execute("SELECT run_id, count(*) FROM task_values GROUP BY run_id").fetchall()
    assert len({n for _, n in counts}) == 1  # both runs' task values, once each
    again.close()
    checked = sqlite3.connect(path)
    assert checked.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    checked.close()


def test_an_html_report_on_a_full_disk_keeps_the_old_page(
    runs: Path, tmp_path: Path, full_disk: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench report --format html --out FILE`` copied the built page over FILE: a disk that
    filled during the copy left half a page where the old one was."""
    run = next(p for p in runs.iterdir() if p.name[0].isdigit()).name
    args = ["report", run, "--runs-dir", str(runs), "--format", "html", "--out"]
    sized = tmp_path / "sized.html"
    assert _bench([*args, str(sized)], capsys)[0] in (None, 0)
    size = sized.stat().st_size
    # room for the site built beside FILE (the page and a small board.json), not for a
    # second copy of the page
    disk = full_disk(size + size // 2 + 8192)  # type: ignore[operator]
    out = disk / "report.html"
    out.write_bytes(b"<p>the old report</p>\n")
    status, err = _bench([*args, str(out)], capsys)
    assert status == 3, err
    [line] = err.splitlines()
    assert line.startswith("error[IO_ERROR]: "), line
    assert out.read_bytes() == b"<p>the old report</p>\n"
    assert sorted(p.name for p in disk.iterdir()) == ["report.html"]


# --- 6. a key file ----------------------------------------------------------------------------


def test_a_private_key_is_never_readable_by_others_nor_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``write_private_key`` (the demo's throw-away key) wrote the key with the umask's mode
    (0644) and only then chmod'ed it 0600; on a full disk, half a key replaced the old one."""
    from bench.testing.keys import write_private_key

    key = tmp_path / "keys" / "demo"
    write_private_key(key)
    before = key.read_bytes()
    real = os.fsync
    modes: list[int] = []

    def fsync(fd: int) -> None:
        modes.append(os.fstat(fd).st_mode & 0o777)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_private_key(key)
    assert modes and modes[0] == 0o600  # the key's bytes were never in a file others read
    assert key.stat().st_mode & 0o777 == 0o600 and key.read_bytes() != before
    before = key.read_bytes()
    _fail_fsync_at(monkeypatch, 1)
    with pytest.raises(OSError) as info:
        write_private_key(key)
    assert info.value.filename == str(key)
    assert key.read_bytes() == before
    assert os.listdir(key.parent) == ["demo"]


# --- what every atomic write now does ---------------------------------------------------------


def test_an_atomic_write_a_full_disk_stops_leaves_no_directory_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``write_atomic`` made the file's missing parents first: a full disk left them, empty
    (``runs/reports/2026/12/`` after a run's report, a judge calibration's ``--out``)."""
    from bench.core.atomic import write_atomic

    (tmp_path / "there").mkdir()
    target = tmp_path / "there" / "new" / "deeper" / "file.json"
    _fail_fsync_at(monkeypatch, 1)
    with pytest.raises(OSError) as info:
        write_atomic(target, b"{}")
    assert info.value.filename == str(target)
    assert os.listdir(tmp_path) == ["there"] and os.listdir(tmp_path / "there") == []


def test_a_temp_file_that_cannot_be_made_is_said_of_the_file_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read-only disk the error named ``.tmp-1jj1p002.part``, a name no user gave."""
    import tempfile

    from bench.core.atomic import write_atomic

    def refused(*_: object, dir: str, **__: object) -> tuple[int, str]:  # noqa: A002
        name = os.path.join(dir, ".tmp-1jj1p002.part")
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    target = tmp_path / "report.md"
    with pytest.raises(OSError) as info:
        write_atomic(target, b"x")
    assert info.value.filename == str(target)


def test_a_site_whose_temp_directory_cannot_be_made_is_said_of_the_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read-only disk ``bench board build`` named ``.site.new-k2j4``, a name no user gave."""
    import tempfile

    from bench.board.site import write_site

    def refused(*_: object, prefix: str, dir: Path, **__: object) -> str:  # noqa: A002
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.path.join(dir, prefix + "k2j4"))

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    out = tmp_path / "site"
    with pytest.raises(OSError) as info:
        write_site(out, {"index.html": b"<p>"})
    assert info.value.filename == str(out)
    assert os.listdir(tmp_path) == []
