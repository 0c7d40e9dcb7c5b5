"""With no calibration on file, the judge's note names the command that writes one (was: only
"... judge.calibration.json does not exist", which did not say how to make it). The command is
the one `bench judge calibrate` takes (docs/CLI.md), and it writes the very file asked for."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bench.cli.judge_cmd import judge
from bench.scorers.judge.calibration import assess, default_calibration_path
from bench.scorers.judge.config import JudgeConfig, load_judge_config


def _labels(tmp_path: Path) -> Path:
    path = tmp_path / "my-labels.jsonl"
    rows = []
    for index in range(20):
        verdict = "PASS" if index % 2 == 0 else "FAIL"
        answer = f"answer {index} [judge:{verdict}]"
        row = {"id": f"l{index:02d}", "question": "q?", "answer": answer, "rubric": "r"}
        rows.append(json.dumps(row | {"label": verdict == "PASS"}))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _command(note: str) -> list[str]:
    assert note.count("'") == 2, note
    return shlex.split(note.split("'")[1])


def test_the_note_names_the_command_that_writes_the_calibration(
    judge_file: Any, tmp_path: Path, server: Any
) -> None:
    server.responder = lambda body: server.Reply(
        "PASS: ok" if "[judge:PASS]" in body["messages"][-1]["content"] else "FAIL: no"
    )
    path = judge_file()
    config = load_judge_config(path)
    calibration = default_calibration_path(path)
    trust = assess(config, calibration)
    assert not trust.trusted
    assert trust.note == (
        f"no calibration on file for this judge ({calibration} does not exist): write one "
        f"with 'bench judge calibrate --judge {path} --labels <labels.jsonl>'"
    )
    # the command, with the reader's labels in place of the placeholder, makes the judge trusted
    argv = _command(trust.note)
    assert argv[:3] == ["bench", "judge", "calibrate"]
    argv = [str(_labels(tmp_path)) if arg == "<labels.jsonl>" else arg for arg in argv[2:]]
    result = CliRunner().invoke(judge, argv)
    assert result.exit_code == 0, result.output
    assert assess(config, calibration).trusted


def test_a_calibration_file_elsewhere_is_named_with_out(judge_file: Any, tmp_path: Path) -> None:
    path = judge_file()
    elsewhere = tmp_path / "cal" / "mine.json"
    argv = _command(assess(load_judge_config(path), elsewhere).note)
    assert argv[argv.index("--out") + 1] == str(elsewhere)
    # a judge built in code has no file: a placeholder, never a guessed path
    config = JudgeConfig(base_url="http://127.0.0.1:9/v1", model="m")
    argv = _command(assess(config, elsewhere).note)
    assert argv[argv.index("--judge") + 1] == "<judge.yaml>"
