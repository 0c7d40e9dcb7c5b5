"""Real runs for the report tests: the mini fixture and the example support bot, plus
synthetic runs cloned from a real attempt when a test needs many tasks."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.records import AttemptRecord, RunDir
from bench.records.run import RunConfig, RunStatus
from bench.records.store import RunStore
from bench.runner import RunRequest, start_run

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run_mini(mini: Path, target: str, runs: Path) -> RunDir:
    run, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / f"{target}.yaml",
            split="public",
            runs_dir=runs,
        )
    )
    assert status.status == "complete"
    return run


def run_example(build: str, runs: Path) -> RunDir:
    run, status = start_run(
        RunRequest(
            tasks=EXAMPLES / "tasks",
            target_file=EXAMPLES / "targets" / f"support-bot-{build}.yaml",
            split="public",
            runs_dir=runs,
        )
    )
    assert status.status == "complete"
    return run


def synthetic_run(
    template: RunDir, runs: Path, run_id: str, entrant: str, values: list[float]
) -> RunDir:
    """A run of ``len(values)`` one-family tasks ``t000...`` whose scores are ``values``
    (1 passes), cloned from the first attempt of ``template``. Same task set for every call."""
    base = template.attempts()[0]
    config = template.config()
    ids = [f"t{i:03d}" for i in range(len(values))]
    task_set = config.task_set.model_copy(update={"task_ids": ids, "content_hash": "f" * 64})
    new_config = RunConfig.model_validate(
        {
            **config.model_dump(),
            "run_id": run_id,
            "entrant": entrant,
            "display_name": entrant,
            "task_set": task_set.model_dump(),
            "comparable": {**config.comparable, "model": entrant},
        }
    )
    status = RunStatus.model_validate(
        {
            **template.status().model_dump(),
            "run_id": run_id,
            "config_fingerprint": new_config.fingerprint(),
            "attempts_total": len(values),
            "attempts_done": len(values),
            "skipped": [],
        }
    )
    run = RunStore(runs).create(new_config, status)
    for task_id, value in zip(ids, values, strict=True):
        passed = value == 1.0
        verdict = base.verdicts[0].model_copy(
            update={"passed": passed, "credit": value, "sentence": f"{task_id} was wrong"}
        )
        record = AttemptRecord.model_validate(
            {
                **base.model_dump(),
                "run_id": run_id,
                "task_id": task_id,
                "family": "grounded-qa",
                "value": value,
                "passed": passed,
                "verdicts": [verdict.model_dump()],
                "outcome": "scored",
            }
        )
        run.write_attempt(record)
    return run


@pytest.fixture
def mini_runs(mini: Path) -> dict[str, RunDir]:
    runs = mini / "runs"
    return {t: run_mini(mini, t, runs) for t in ("good", "crashes_on_refunds")}


@pytest.fixture(scope="session")
def example_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunDir]:
    runs = tmp_path_factory.mktemp("examples") / "runs"
    return {build: run_example(build, runs) for build in ("v1", "v2")}


def copy_runs(runs: dict[str, RunDir], target: Path) -> dict[str, RunDir]:
    target.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, run in runs.items():
        shutil.copytree(run.path, target / run.run_id)
        out[name] = RunDir(target / run.run_id)
    return out


def load(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


WIRING = {
    "report": ("bench.cli.report_cmd", "report"),
    "history": ("bench.cli.history_cmd", "history"),
    "leaderboard": ("bench.cli.history_cmd", "leaderboard"),
    "export": ("bench.cli.history_cmd", "export"),
}


@pytest.fixture(autouse=True)
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """The new verbs, wired as the lead will wire them in ``cli/main.py``'s COMMANDS."""
    from bench.cli import main

    for name, entry in WIRING.items():
        monkeypatch.setitem(main.COMMANDS, name, entry)
        monkeypatch.setitem(main.SHORT_HELP, name, name)


Invoke = Callable[..., tuple[int, str, str]]


def _invoke(*args: str | Path) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from bench.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def invoke() -> Invoke:
    """Run ``bench`` with CliRunner: (exit code, stdout, stderr)."""
    return _invoke


@pytest.fixture
def synth() -> Callable[..., RunDir]:
    """``synthetic_run`` as a fixture (test modules cannot import conftest)."""
    return synthetic_run


@pytest.fixture
def copier() -> Callable[..., dict[str, RunDir]]:
    return copy_runs
