"""What a first-time user hits following the README with an installed `bench`: a report written
into `build/`, a mock server on a busy port, a run stopped by its budget or by Ctrl-C, and a
mistyped option. Each answers in one line with a stable code, or says what to do next."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli, main

REPO = Path(__file__).resolve().parents[2]


def _invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _run(mini: Path, *extra: str | Path, target: Path | None = None) -> tuple[int, str, str]:
    chosen = target if target is not None else mini / "targets" / "good.yaml"
    return _invoke(
        "run", "--tasks", mini / "tasks", "--target", chosen, "--runs-dir", mini / "runs",
        "--progress", "none", *extra,
    )  # fmt: skip


def _run_ids(mini: Path) -> list[str]:
    return sorted(p.name for p in (mini / "runs").iterdir() if (p / "config.json").is_file())


@pytest.mark.parametrize(("fmt", "ext"), [("junit", "xml"), ("markdown", "md"), ("json", "json")])
def test_report_out_ending_in_a_slash_is_a_directory(mini: Path, fmt: str, ext: str) -> None:
    # README: `bench report latest --format junit --out build/`. The slash used to be dropped on
    # the way in, so a missing build/ became a *file* called build, replaced by each format.
    code, _, err = _run(mini)
    assert code == 0, err
    [run_id] = _run_ids(mini)
    out = mini / "build"
    code, stdout, err = _invoke(
        "report", "latest", "--runs-dir", mini / "runs", "--format", fmt, "--out", f"{out}/"
    )
    assert code == 0, err
    assert out.is_dir()
    assert [p.name for p in out.iterdir()] == [f"{run_id}.{ext}"]
    assert stdout == f"wrote {out / f'{run_id}.{ext}'}\n"


def test_html_report_out_ending_in_a_slash_is_a_directory(mini: Path) -> None:
    code, _, err = _run(mini)
    assert code == 0, err
    [run_id] = _run_ids(mini)
    out = mini / "build"
    code, _, err = _invoke(
        "report", "latest", "--runs-dir", mini / "runs", "--format", "html", "--out", f"{out}/",
        "--templates", REPO / "site_templates", "--methodology", REPO / "docs" / "METHODOLOGY.md",
    )  # fmt: skip
    assert code == 0, err
    assert [p.name for p in out.iterdir()] == [f"{run_id}.html"]


def test_report_out_directory_over_a_file_is_one_line(mini: Path) -> None:
    code, _, err = _run(mini)
    assert code == 0, err
    (mini / "build").write_text("not a directory\n")
    code, _, err = _invoke(
        "report", "latest", "--runs-dir", mini / "runs", "--format", "junit",
        "--out", f"{mini / 'build'}/",
    )  # fmt: skip
    assert code == 2
    assert err.startswith("error[USAGE]: ") and err.count("\n") == 1
    assert (mini / "build").read_text() == "not a directory\n"


def test_mock_server_on_a_busy_port_is_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = _invoke("mock-server", "--port", str(port), "--max-seconds", "1")
    assert code == 2
    assert out == ""
    assert err.startswith(f"error[USAGE]: cannot listen on 127.0.0.1 port {port}: ")
    assert "--port 0" in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_a_partial_run_says_in_words_how_to_finish_it(mini: Path) -> None:
    code, out, err = _run(mini, "--run-budget-tool-calls", "1", "--concurrency", "1")
    assert code == 0, err
    [run_id] = _run_ids(mini)
    assert json.loads((mini / "runs" / run_id / "status.json").read_text())["status"] == "partial"
    assert "status partial" in out
    [line] = [line for line in err.splitlines() if line.startswith("partial: ")]
    assert line.startswith("partial: run budget: tool calls")
    assert line.endswith(f"--resume {run_id} to finish it")
    assert '{"partial"' not in err  # was a JSON object on stderr, ≥ written as \u2265


def test_an_interrupted_run_names_the_run_to_resume(mini: Path) -> None:
    (mini / "interrupt.py").write_text(
        "def respond(request):\n    raise KeyboardInterrupt\n", encoding="utf-8"
    )
    target = mini / "targets" / "interrupt.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: mini-interrupt\n"
        "display_name: mini interrupt\nmodel: mini-interrupt\ncallable: ../interrupt.py:respond\n",
        encoding="utf-8",
    )
    code, _, err = _run(mini, "--concurrency", "1", target=target)
    assert code != 0
    [run_id] = _run_ids(mini)
    assert json.loads((mini / "runs" / run_id / "status.json").read_text())["status"] == "started"
    [line] = [line for line in err.splitlines() if line.startswith("interrupted: ")]
    assert f"run {run_id} keeps the 0 of 4 attempt(s) written" in line
    assert line.endswith(f"--resume {run_id} to finish it")


def test_ctrl_c_is_one_line_exit_130_and_the_resume_it_names_finishes(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/RUNS.md: "exits 130 and says which run to resume" in one line. click's blank line and
    # "aborted" used to follow it, as if the run were lost.
    (mini / "interrupt_once.py").write_text(
        "import importlib.util\nfrom pathlib import Path\n\n"
        "HERE = Path(__file__).parent\n"
        "spec = importlib.util.spec_from_file_location('mini_agents', HERE / 'agents.py')\n"
        "agents = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(agents)\n\n\n"
        "def respond(request):\n"
        "    if not (HERE / 'interrupted').exists():\n"
        "        (HERE / 'interrupted').touch()\n"
        "        raise KeyboardInterrupt\n"
        "    return agents.good(request)\n",
        encoding="utf-8",
    )
    target = mini / "targets" / "interrupt_once.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: mini-interrupt\ndisplay_name: mini "
        "interrupt\nmodel: mini-interrupt\ncallable: ../interrupt_once.py:respond\n",
        encoding="utf-8",
    )
    argv = [
        "run", "--tasks", str(mini / "tasks"), "--target", str(target),
        "--runs-dir", str(mini / "runs"), "--progress", "none", "--concurrency", "1",
    ]  # fmt: skip
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 130
    [run_id] = _run_ids(mini)
    captured = capsys.readouterr()
    assert captured.err == (
        f"interrupted: run {run_id} keeps the 0 of 4 attempt(s) written; run the same command "
        f"with --resume {run_id} to finish it\n"
    )
    main([*argv, "--resume", run_id])  # returns: exit 0
    status = json.loads((mini / "runs" / run_id / "status.json").read_text())
    assert status["status"] == "complete"
    assert "status complete" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--resume", "latest"], "Missing option '--tasks'. ('bench run --help'"),
        (["run", "--tasks", "t", "--bogus"], "No such option '--bogus'. ('bench run --help'"),
        (["nosuchcmd"], "No such command 'nosuchcmd'. ('bench --help'"),
    ],
)
def test_a_mistyped_command_line_is_one_line_with_its_code(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error[USAGE]: {message}")
    assert captured.err.count("\n") == 1


def test_bench_alone_still_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([])
    captured = capsys.readouterr()
    assert "Usage: bench [OPTIONS] COMMAND [ARGS]..." in captured.out + captured.err
    assert "error[" not in captured.out + captured.err


def test_the_run_summary_says_why_attempts_errored(mini: Path) -> None:
    # A wrong port or key errors every attempt: the summary names the code and the first
    # message, so the user need not open `bench show` to learn it.
    target = mini / "targets" / "crashes_on_refunds.yaml"
    code, out, err = _run(mini, "--split", "public", target=target)
    assert code == 0, err
    assert "  errored 1 × ENTRANT_EXCEPTION: ValueError: cannot handle refunds\n" in out
    code, out, err = _run(mini, "--split", "public")
    assert code == 0, err
    assert not [line for line in out.splitlines() if line.startswith("  errored ")]


def test_a_bundle_given_to_show_is_one_line_naming_what_it_is() -> None:
    """``bench show results/<entrant>/<run>`` read the bundle's config and status as a run's and
    showed a finished run with 0 attempts."""
    import subprocess
    import sys

    bundle = next((Path(__file__).resolve().parents[2] / "results" / "baseline-echo").iterdir())
    done = subprocess.run(
        [sys.executable, "-m", "bench.cli", "show", str(bundle)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 4
    assert done.stderr.startswith("error[RUN_IS_BUNDLE]") and "Traceback" not in done.stderr
    assert "bench verify" in done.stderr


def test_progress_json_and_format_json_keep_stdout_json_lines(mini: Path) -> None:
    # The report was indented over many lines after the events: a JSON Lines reader broke on it.
    code, out, err = _run(mini, "--format", "json", "--progress", "json")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line.get("event") for line in lines[:1]] == ["run_started"]
    assert lines[-2]["event"] == "run_finished"
    assert lines[-1]["format_version"] == 1 and "event" not in lines[-1]


@pytest.mark.parametrize("kind", ["openai", "http-agent"])
def test_an_unset_key_variable_says_how_to_set_it_and_writes_nothing(
    mini: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BENCH_TEST_UNSET_KEY", raising=False)
    target = mini / "targets" / "keyed.yaml"
    target.write_text(
        f"format_version: 1\nkind: {kind}\nentrant: keyed\ndisplay_name: keyed\nmodel: m\n"
        "base_url: http://127.0.0.1:9/v1\napi_key_env: BENCH_TEST_UNSET_KEY\n",
        encoding="utf-8",
    )
    code, out, err = _run(mini, "--wait-ready", "0", target=target)
    assert code == 3 and out == ""
    assert err.startswith("error[TARGET_KEY_MISSING]: ") and err.count("\n") == 1
    assert "export BENCH_TEST_UNSET_KEY=<key>, or put that line in .env" in err
    assert not (mini / "runs").exists() or _run_ids(mini) == []


def test_ctrl_c_while_waiting_for_the_server_is_one_line_exit_130(mini: Path) -> None:
    """Ctrl-C during --wait-ready (nothing listens yet) printed a blank line and "aborted", as
    a crash does; nothing was written, so there is nothing to resume, and it says so."""
    import signal
    import subprocess
    import sys

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    target = mini / "targets" / "later.yaml"
    target.write_text(
        "format_version: 1\nkind: openai\nentrant: later\ndisplay_name: later\nmodel: m\n"
        f"base_url: http://127.0.0.1:{port}/v1\n",
        encoding="utf-8",
    )
    argv = [
        sys.executable, "-m", "bench.cli", "run", "--tasks", str(mini / "tasks"), "--target",
        str(target), "--runs-dir", str(mini / "runs"), "--progress", "none",
    ]  # fmt: skip
    with subprocess.Popen(argv, stderr=subprocess.PIPE, text=True) as process:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith(f"waiting up to 120 s for the server at http://127.0.0.1:{port}")
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=120)  # a hang fails here instead of forever
    assert process.returncode == 130
    assert rest == "interrupted before the run started: nothing was written, nothing to resume\n"
    assert not (mini / "runs").exists()
