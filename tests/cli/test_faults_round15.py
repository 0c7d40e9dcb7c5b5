"""First-use faults, the fifteenth round (helper F15): a corpus document with a NUL byte
(valid UTF-8, accepted, its NULs carried into prompts and hashes) is refused naming the file
and the byte; a full disk or a blocked path under the history or the report, after the run
finished, says the run is whole and how to see it, not a bare IO_ERROR that read as a run
lost; the ``bench show`` line a run prints quotes a ``--runs-dir`` with spaces, so it can be
pasted; and a reader that went away (``bench run | head``) still ends it quietly."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.errors import InputError
from bench.corpus import CorpusLibrary

RUN = ["run", "--tasks", "tasks", "--target", "targets/good.yaml", "--split", "public",
       "--progress", "none"]  # fmt: skip


def _bench(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        status = main(args) or 0
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error["), err
    assert "Traceback" not in err
    return lines[0]


def test_a_corpus_document_with_a_nul_byte_is_refused_naming_the_file_and_the_byte(
    mini: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    faq = mini / "corpora" / "faq.md"
    before = faq.read_bytes()
    faq.write_bytes(before + b"## Padding\nzero \x00 here\n")
    offset = len(before) + len(b"## Padding\nzero ")
    with pytest.raises(InputError) as caught:
        CorpusLibrary(mini / "corpora").passages("faq.md")
    assert caught.value.code == "CORPUS_ENCODING"
    assert f"(byte {offset})" in str(caught.value) and str(faq) in str(caught.value)

    monkeypatch.chdir(mini)
    status, out, err = _bench([*RUN, "--runs-dir", "runs"], capsys)
    line = _one_error(err)
    assert status == 3 and out == ""
    assert line.startswith("error[CORPUS_ENCODING]: ")
    assert f"NUL byte (byte {offset})" in line and "corpora/faq.md" in line
    assert not (mini / "runs").exists()  # refused before anything was written


def test_a_corpus_document_over_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.corpus import library

    small = tmp_path / "small.md"
    small.write_text("## Big\n" + "x" * 2000 + "\n", encoding="utf-8")
    monkeypatch.setattr(library, "MAX_DOCUMENT_BYTES", 1000)
    with pytest.raises(InputError) as caught:
        CorpusLibrary(tmp_path).passages("small.md")
    assert caught.value.code == "FILE_TOO_LARGE" and str(small) in str(caught.value)
    monkeypatch.undo()
    with (tmp_path / "huge.md").open("wb") as huge:
        huge.truncate(1 << 30)  # 1 GB, sparse: was read whole before the refusal
    with pytest.raises(InputError) as caught:
        CorpusLibrary(tmp_path).passages("huge.md")
    assert caught.value.code == "FILE_TOO_LARGE"


def test_a_report_that_cannot_be_written_after_the_run_says_the_run_is_whole(
    mini: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(mini)
    (mini / "runs").mkdir()
    (mini / "runs" / "reports").write_text("a file where the reports folder goes\n")
    status, out, err = _bench([*RUN, "--runs-dir", "runs"], capsys)
    line = _one_error(err)
    [run] = [p for p in (mini / "runs").iterdir() if p.name[0].isdigit()]
    assert status == 3
    assert line.startswith("error[IO_ERROR]: runs/reports/")
    assert f"run {run.name} finished (complete, 3 attempt(s) written; nothing to resume)" in line
    assert line.endswith(f"bench show {run.name} --runs-dir runs shows it")
    assert json.loads((run / "status.json").read_text())["status"] == "complete"


def test_the_show_line_after_a_run_quotes_a_runs_dir_with_spaces(
    mini: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(mini)
    runs = mini / "my runs — ü"
    status, out, err = _bench([*RUN, "--runs-dir", str(runs)], capsys)
    assert status == 0, err
    [line] = [line for line in out.splitlines() if "failed task(s): bench show" in line]
    command = shlex.split(line.split(": ", 1)[1])
    assert command[-2:] == ["--runs-dir", str(runs)]  # pasted, it names the same directory


def test_a_reader_gone_before_the_summary_still_ends_the_run_quietly(mini: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.cli", *RUN, "--runs-dir", "runs"],
        cwd=mini, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    child.stdout.close()  # `bench run ... | head -0`: gone before the first line
    _, err = child.communicate()
    assert child.returncode == 1, err
    assert err == ""  # the run is complete; nowhere to say more (bench.cli.main)
    [run] = [p for p in (mini / "runs").iterdir() if p.name[0].isdigit()]
    assert json.loads((run / "status.json").read_text())["status"] == "complete"
