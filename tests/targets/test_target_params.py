"""A target's ``params`` must be JSON: YAML's NaN, dates, bytes and sets are refused up front."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.errors import InputError
from bench.targets import load_target


def _with_params(mini: Path, params: str) -> Path:
    path = mini / "targets" / "params.yaml"
    text = (mini / "targets" / "good.yaml").read_text()
    path.write_text(text.replace("params: {temperature: 0}", f"params:\n{params}"))
    return path


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ("  temperature: -.inf", "temperature: -inf is not a JSON value"),
        ("  temperature: .nan", "temperature: nan is not a JSON value"),
        ("  seed: 2026-07-14", "seed: a date is not a JSON value"),
        ("  stop: !!binary aGk=", "stop: a bytes is not a JSON value"),
        ("  stop: !!set {a, b}", "stop: a set is not a JSON value"),
        ("  extra: {logit_bias: [1, .inf]}", "extra.logit_bias[1]: inf is not a JSON value"),
        ("  extra: {1: a}", "extra.1: the key 1 is not a JSON value"),
    ],
)
def test_params_that_json_cannot_hold_are_target_invalid(
    mini: Path, params: str, says: str
) -> None:
    path = _with_params(mini, params)
    with pytest.raises(InputError) as info:
        load_target(path)
    assert info.value.code == "TARGET_INVALID"
    assert info.value.path == str(path)
    assert info.value.field == "params"
    assert info.value.message == says


def test_bench_run_refuses_such_a_target_before_any_run_directory(
    mini: Path, tmp_path: Path
) -> None:
    target = _with_params(mini, "  temperature: -.inf")
    runs = tmp_path / "runs"
    done = CliRunner().invoke(
        cli,
        [
            "run",
            "--tasks",
            str(mini / "tasks"),
            "--corpora",
            str(mini / "corpora"),
            "--target",
            str(target),
            "--runs-dir",
            str(runs),
            "--progress",
            "none",
        ],
    )
    assert done.exit_code == 3, done.output
    assert f"error[TARGET_INVALID]: {target}: params: temperature: -inf" in done.output
    assert not runs.exists() or not any(runs.iterdir())
