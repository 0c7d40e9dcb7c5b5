"""First-use faults, the thirteenth round (helper F13): ``bench board build --strict`` with a
``--results`` directory that is not there (a publish step run from the wrong directory deployed
an empty board); ``bench judge`` outside a clone; ``RUN_NOT_FOUND`` that did not say where it
looked; ``--resume`` of a complete run that silently reprinted its summary; a target file
without ``model:`` when ``--model`` or ``BENCH_<PROVIDER>_MODEL`` supplies it; and bad
``headers:`` values, each one line naming the file and the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.errors import BenchError
from bench.targets.load import build_target, read_target_spec
from bench.testing.mock_server import MockServer

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"


def _bench(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        status = main(args)
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_error(err: str) -> str:
    """The one line a refused command prints: an error with a code, no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error["), err
    assert "Traceback" not in err
    return lines[0]


# --- 1. bench board build --strict: a --results directory that is not there ------------------


def test_strict_board_refuses_a_missing_results_directory_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # "the wrong directory": no results/ here
    args = ["board", "build", "--no-runs", "--strict", "--out", "site"]
    status, out, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3, err
    assert line.startswith("error[BOARD_STRICT]: results: --results: does not exist"), line
    assert f"{tmp_path} is no repository of this project" in line and "--results DIR" in line
    assert not (tmp_path / "site").exists() and out == ""
    # An old site stays as it was.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("the old board")
    assert _bench(args, capsys)[0] == 3
    assert (tmp_path / "site" / "index.html").read_text() == "the old board"


def test_strict_board_still_builds_the_empty_page_from_an_empty_results_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The publish workflow's first page, before any bundle landed (an entrant may register
    before it submits): an empty directory is a board, only a missing one is refused."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    args = ["board", "build", "--no-runs", "--strict", "--out", "site", "--resamples", "20"]
    status, _, err = _bench([*args, "--submissions", "none"], capsys)
    assert status in (None, 0), err
    assert (tmp_path / "site" / "index.html").is_file()


def test_strict_board_builds_the_empty_page_of_a_repository_with_no_results_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """git keeps no empty directory: a repository whose first pull request registers an
    entrant has submissions/ and no results/ (the verify-pr workflow's --strict board check,
    tests/test_workflows.py)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "submissions").mkdir()
    args = ["board", "build", "--no-runs", "--strict", "--out", "site", "--resamples", "20"]
    status, _, err = _bench(args, capsys)
    assert status in (None, 0), err
    assert "(no such directory)" in err  # still said, as a note
    assert (tmp_path / "site" / "index.html").is_file()


# --- 2. bench judge outside a clone ----------------------------------------------------------


def test_judge_commands_say_examples_come_with_a_clone_and_leave_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (
        ["judge", "calibrate", "--judge", "examples/judge.yaml", "--labels", "l.jsonl"],
        ["judge", "status", "--judge", "examples/judge.yaml"],
    ):
        status, _, err = _bench(args, capsys)
        line = _one_error(err)
        assert status == 3
        assert line.startswith("error[FILE_MISSING]: examples/judge.yaml: "), line
        assert "come with a clone of its repository" in line
    shutil.copy(REPO / "examples" / "judge.yaml", tmp_path / "judge.yaml")
    args = ["judge", "calibrate", "--judge", "judge.yaml", "--labels", "examples/labels.jsonl"]
    status, _, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3
    assert line.startswith("error[JUDGE_LABELS_INVALID]: examples/labels.jsonl: file not"), line
    assert "come with a clone of its repository" in line
    # A refused label file leaves nothing behind: no verdict cache made beside the judge.
    (tmp_path / "bad.jsonl").write_text('{"id": 1\n')
    args[-1] = "bad.jsonl"
    assert _bench(args, capsys)[0] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "judge.yaml"]


@pytest.mark.parametrize(
    ("args", "path", "code"),
    [
        (["run", "--tasks", "{mini}", "--target", "examples/targets/support-bot-v1.yaml"],
         "examples/targets/support-bot-v1.yaml", 3),
        (["run", "--tasks", "{mini}", "--target", "{good}", "--judge", "examples/judge.yaml"],
         "examples/judge.yaml", 3),
        (["rescore", "latest", "--judge", "examples/judge.yaml"], "examples/judge.yaml", 3),
        (["check", "examples/cases/support-desk.json"], "examples/cases/support-desk.json", 2),
    ],
)  # fmt: skip
def test_other_commands_naming_examples_say_they_come_with_a_clone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    path: str,
    code: int,
) -> None:
    monkeypatch.chdir(tmp_path)
    good = str(MINI / "targets" / "good.yaml")
    args = [a.format(mini=MINI / "tasks", good=good) for a in args]
    status, _, err = _bench(args, capsys)
    assert status == code
    line = _one_error(err)
    assert line.startswith(f"error[FILE_MISSING]: {path}: no such file or directory ("), line
    assert "come with a clone of its repository" in line
    assert list(tmp_path.iterdir()) == []


# --- 3. RUN_NOT_FOUND says where it looked -----------------------------------------------------


def test_run_not_found_says_runs_is_read_from_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = _bench(["show", "latest"], capsys)
    assert status == 4
    assert _one_error(err) == (
        f"error[RUN_NOT_FOUND]: runs: no runs yet in {tmp_path / 'runs'}, read from the "
        "current directory; name another with --runs-dir DIR"
    )
    status, _, err = _bench(["report", "20261207", "--runs-dir", str(tmp_path / "x")], capsys)
    line = _one_error(err)
    assert status == 4 and f"no runs at all in {tmp_path / 'x'}; name another" in line, line


# --- 4. --resume of a complete run -------------------------------------------------------------


def test_resume_of_a_complete_run_says_nothing_ran(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp = run_dir.parents[1]
    attempts = sorted(p.name for p in (run_dir / "attempts").iterdir())
    target = tmp / "targets" / "good.yaml"
    args = ["run", "--tasks", str(tmp / "tasks"), "--target", str(target), "--split", "public",
            "--runs-dir", str(tmp / "runs"), "--resume", run_dir.name]  # fmt: skip
    status, out, err = _bench(args, capsys)
    assert status in (None, 0), err
    assert f"run {run_dir.name} was already complete: nothing ran" in err
    assert "status complete" in out
    assert sorted(p.name for p in (run_dir / "attempts").iterdir()) == attempts


# --- 5. a target file without model: -----------------------------------------------------------

NO_MODEL = "kind: {kind}\nentrant: x\ndisplay_name: X\n{more}"


def _target(tmp_path: Path, kind: str, more: str = "") -> Path:
    path = tmp_path / f"{kind}.yaml"
    path.write_text(NO_MODEL.format(kind=kind, more=more), encoding="utf-8")
    return path


def test_a_model_from_the_environment_or_model_needs_none_in_the_file(tmp_path: Path) -> None:
    local = _target(tmp_path, "openai", "provider: local\n")
    env = {"BENCH_LOCAL_MODEL": "Qwen/Qwen3-8B", "BENCH_LOCAL_BASE_URL": "http://127.0.0.1:9/v1"}
    built = build_target(read_target_spec(local), tmp_path, local, env=env)
    assert built.spec.model == "Qwen/Qwen3-8B"
    plain = _target(tmp_path, "anthropic", "base_url: http://127.0.0.1:9\n")
    built = build_target(read_target_spec(plain), tmp_path, plain, env={}, overrides={"model": "m"})
    assert built.spec.model == "m"
    agent = _target(tmp_path, "http-agent", "base_url: http://127.0.0.1:9/turn\n")
    built = build_target(read_target_spec(agent), tmp_path, agent, env={}, overrides={"model": "a"})
    assert built.spec.model == "a"


@pytest.mark.parametrize(
    ("kind", "more", "said"),
    [
        ("openai", "provider: local\nbase_url: http://127.0.0.1:9/v1\n",
         "give --model NAME, or set BENCH_LOCAL_MODEL in the environment or .env"),
        ("openai", "base_url: http://127.0.0.1:9/v1\n",
         "give --model NAME, or name a provider (provider: NAME) and set BENCH_<NAME>_MODEL"),
        ("http-agent", "base_url: http://127.0.0.1:9/turn\n",
         "name it in the file (model: NAME) or give --model NAME"),
        ("scripted", "callable: a.py:f\n", "a scripted target names its model"),
    ],
)  # fmt: skip
def test_a_target_without_a_model_says_how_to_supply_one(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    more: str,
    said: str,
) -> None:
    monkeypatch.delenv("BENCH_LOCAL_MODEL", raising=False)
    target = _target(tmp_path, kind, more)
    args = ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--runs-dir",
            str(tmp_path / "runs"), "--env-file", str(tmp_path / "none.env")]  # fmt: skip
    status, _, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3
    assert line.startswith(f"error[TARGET_INVALID]: {target}: model: required field is missing")
    assert said in line and "<unset" not in line, line  # the placeholder never shows
    assert not (tmp_path / "runs").exists()


def test_a_run_records_the_model_that_was_supplied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _target(tmp_path, "openai", "provider: local\n")
    with MockServer() as server:
        monkeypatch.setenv("BENCH_LOCAL_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("BENCH_LOCAL_MODEL", "from-env")
        args = ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--split",
                "public", "--runs-dir", str(tmp_path / "runs"), "--env-file",
                str(tmp_path / "none.env")]  # fmt: skip
        status, _, err = _bench(args, capsys)
    assert status in (None, 0), err
    [config] = (tmp_path / "runs").glob("*/config.json")
    recorded = json.loads(config.read_text())["target"]
    assert recorded["model"] == "from-env"


# --- 6. headers: bad input, one line each ------------------------------------------------------

TARGET = "kind: openai\nentrant: x\ndisplay_name: X\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n"


@pytest.mark.parametrize(
    ("headers", "field", "said"),
    [
        ("headers:\n  x-retry: 5\n", "headers.x-retry", "is a number: a header's value is one"),
        ("headers:\n  x-flag: yes\n", "headers.x-flag", "is true/false"),
        ("headers:\n  x-a:\n", "headers.x-a", "has no value"),
        ("headers:\n  x-a: 2026-01-01\n", "headers.x-a", "is a date"),
        ("headers:\n  x-a: !!binary aGVsbG8=\n", "headers.x-a", "is binary (!!binary)"),
        ("headers:\n  x-a: [1, 2]\n", "headers.x-a", "is a list"),
        ("headers:\n  - x-a\n", "headers", "is a list: headers is a mapping"),
        ("headers: 'x-a: b'\n", "headers", "is a string: headers is a mapping"),
        ("headers:\n  1: b\n", "headers", "a header name is text, got a number"),
    ],
)  # fmt: skip
def test_bad_headers_are_one_line_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], headers: str, field: str, said: str
) -> None:
    target = tmp_path / "t.yaml"
    target.write_text(TARGET + headers, encoding="utf-8")
    with pytest.raises(BenchError) as info:
        read_target_spec(target)
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", field)
    assert said in info.value.message, info.value.message
    # bench check --target reads the same file: the same one line.
    status, _, err = _bench(["check", str(MINI / "tasks"), "--target", str(target)], capsys)
    assert status == 2
    assert _one_error(err).startswith(f"error[TARGET_INVALID]: {target}: {field}: ")


# --- the sweep: commands changed today, bad input -----------------------------------------------


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:99999", "is not a URL: Port out of range"),
        ("http://[::1", "is not a URL: Invalid IPv6 URL"),
        ("https://", "must start with http:// or https:// and name a host"),
        ("http://exa mple.com", "holds a space"),
    ],
)
def test_probe_refuses_a_base_url_it_cannot_use_in_one_line(
    capsys: pytest.CaptureFixture[str], url: str, said: str
) -> None:
    status, _, err = _bench(["probe", "--base-url", url, "--timeout", "0.1"], capsys)
    assert status == 2
    line = _one_error(err)
    assert line.startswith("error[USAGE]: --base-url") and said in line, line


def test_a_scripted_target_takes_system_prompt_and_refuses_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--system-prompt`` is for any kind (its help says so) and was dropped for a scripted
    target; ``--model`` was dropped too, and the run recorded the file's model."""
    shutil.copytree(MINI, tmp_path / "mini")
    base = ["run", "--tasks", str(tmp_path / "mini" / "tasks"), "--target",
            str(tmp_path / "mini" / "targets" / "good.yaml"), "--split", "public",
            "--runs-dir", str(tmp_path / "runs"), "--progress", "none"]  # fmt: skip
    status, _, err = _bench([*base, "--model", "x"], capsys)
    assert status == 3
    line = _one_error(err)
    assert "model: a scripted target cannot take --model (only --system-prompt)" in line, line
    assert not (tmp_path / "runs").exists()
    status, _, err = _bench([*base, "--system-prompt", "Be brief."], capsys)
    assert status in (None, 0), err
    [config] = (tmp_path / "runs").glob("*/config.json")
    assert json.loads(config.read_text())["target"]["system_prompt"] == "Be brief."


def test_api_key_env_that_is_no_variable_name_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "t.yaml"
    target.write_text(TARGET, encoding="utf-8")
    args = ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--runs-dir",
            str(tmp_path / "runs"), "--api-key-env", "1BAD"]  # fmt: skip
    status, _, err = _bench(args, capsys)
    assert status == 3
    line = _one_error(err)
    assert "api_key_env: --api-key-env '1BAD' is not an environment variable name" in line
