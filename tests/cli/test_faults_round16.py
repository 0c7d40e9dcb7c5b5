"""First-use faults, the sixteenth round (helper F16): ``bench bundle`` on a full disk leaves
nothing at all (it left an empty ``OUT/<entrant>/``); a full disk under ``bench report
--format html`` names the report asked for, not its scratch folder (``.report-…/site``);
``bench report --out`` replaces an earlier report whole but never a file of the run it reports
(``--out runs/<id>/status.json`` replaced the run's status with a report)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.cli.main import main
from bench.signing import public_line, signer_line
from bench.testing.keys import write_private_key

ENTRANT = "mini-good"


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


def _full(*_: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as the kernel says it: no file


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path]:
    key = Ed25519PrivateKey.generate()
    write_private_key(tmp_path / "key", key)
    signers = tmp_path / "allowed_signers"
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    return tmp_path / "key", signers


@pytest.mark.parametrize("out_exists", [False, True], ids=["new-out", "existing-out"])
def test_bundle_on_a_full_disk_leaves_no_entrant_directory(
    run_dir: Path,
    signed: tuple[Path, Path],
    tmp_path: Path,
    out_exists: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key, signers = signed
    out = tmp_path / "res"
    if out_exists:
        (out / "someone-else").mkdir(parents=True)
    args = ["bundle", run_dir.name, "--entrant", ENTRANT, "--key", str(key), "--out", str(out),
            "--allowed-signers", str(signers), "--runs-dir", str(run_dir.parent)]  # fmt: skip
    monkeypatch.setattr(os, "fsync", _full)
    status, out_text, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3 and out_text == ""
    destination = out / ENTRANT / run_dir.name
    assert line.startswith(f"error[IO_ERROR]: {destination}: No space left on device"), line
    # nothing half-written is nothing at all: not even the entrant's directory
    assert not (out / ENTRANT).exists()
    if out_exists:
        assert sorted(p.name for p in out.iterdir()) == ["someone-else"]
    else:
        assert not out.exists()
    monkeypatch.undo()
    status, out_text, _ = _bench(args, capsys)
    assert status == 0 and (destination / "manifest.json.sig").is_file()


def test_html_report_on_a_full_disk_names_the_report_not_its_scratch_folder(
    run_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "site" / "report.html"
    out.parent.mkdir()
    out.write_text("the old report\n")
    monkeypatch.setattr(os, "fsync", _full)  # the first write is the page, in the scratch folder
    status, _, err = _bench(
        [
            "report",
            run_dir.name,
            "--runs-dir",
            str(run_dir.parent),
            "--format",
            "html",
            "--out",
            str(out),
        ],  # fmt: skip
        capsys,
    )
    line = _one_error(err)
    assert status == 3
    assert line.startswith(f"error[IO_ERROR]: {out}: No space left on device"), line
    assert ".report-" not in line
    assert out.read_text() == "the old report\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html"]


@pytest.mark.parametrize(
    ("fmt", "out_of"),
    [
        ("json", lambda run: run / "status.json"),
        ("markdown", lambda run: run / "config.json"),
        ("junit", lambda run: Path(f"{run}/")),
        ("html", lambda run: run / "index.html"),
    ],
    ids=["json-over-status", "markdown-over-config", "junit-into-run", "html-into-run"],
)
def test_report_out_never_replaces_a_file_of_the_run(
    run_dir: Path,
    fmt: str,
    out_of: object,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    out = out_of(run_dir)  # type: ignore[operator]
    text = str(out) + ("/" if fmt == "junit" else "")
    status, out_text, err = _bench(
        [
            "report",
            run_dir.name,
            "--runs-dir",
            str(run_dir.parent),
            "--format",
            fmt,
            "--out",
            text,
        ],  # fmt: skip
        capsys,
    )
    line = _one_error(err)
    assert status == 2 and out_text == ""
    assert line.startswith("error[REPORT_OUT]: ") and str(run_dir) in line
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before
    status, _, _ = _bench(["show", run_dir.name, "--runs-dir", str(run_dir.parent)], capsys)
    assert status == 0


def test_report_out_replaces_an_earlier_report_whole(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    out.write_text("an earlier report, longer than the new one would ever be\n" * 2000)
    status, out_text, _ = _bench(
        [
            "report",
            run_dir.name,
            "--runs-dir",
            str(run_dir.parent),
            "--format",
            "json",
            "--out",
            str(out),
        ],  # fmt: skip
        capsys,
    )
    assert status == 0 and out_text == f"wrote {out}\n"
    assert out.read_text(encoding="utf-8").lstrip().startswith("{")
    assert "an earlier report" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["json", "html"])
def test_report_out_dash_is_standard_output(
    run_dir: Path,
    tmp_path: Path,
    fmt: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out_text, err = _bench(
        [
            "report",
            run_dir.name,
            "--runs-dir",
            str(run_dir.parent),
            "--format",
            fmt,
            "--out",
            "-",
        ],  # fmt: skip
        capsys,
    )
    assert status == 0 and err == ""
    assert not (tmp_path / "-").exists()  # it wrote a file named '-'
    assert out_text.startswith("<!DOCTYPE html>" if fmt == "html" else "{")
    assert run_dir.name in out_text
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report-")]


def test_export_out_dash_is_standard_output(
    run_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out_text, _ = _bench(
        ["export", "--runs-dir", str(run_dir.parent), "--format", "json", "--out", "-"], capsys
    )
    assert status == 0 and not (tmp_path / "-").exists()
    assert len(json.loads(out_text)["runs"]) == 1
