"""Real runs for the board tests of tasks that could not be scored and of declared engines.

The mini task set with two tasks whose only check is judged (one public, one private): a run
made without a judge cannot score them (``no expectation could decide``), so they leave its
mean and are named. The same tasks are also run twice against the mock OpenAI server on
127.0.0.1, declaring two quantisations: one entrant, two rows in one cohort, told apart only
by the engine their runs declared (docs/LIMITS.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from bench.runner import RunRequest, start_run
from bench.testing.mock_server import MockServer

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
PUBLIC_UNSCORED = "qa-0002"
PRIVATE_UNSCORED = "qa-0003"
REASON = "not scorable: no expectation could decide: no judge configured for this run"
QUANTISATIONS = ("Q4_K_M", "AWQ")


def judged_only_tasks(root: Path) -> Path:
    """A copy of the mini fixture where qa-0002 (public) and qa-0003 (private) are judged only."""
    mini = root / "mini"
    shutil.copytree(MINI, mini, ignore=shutil.ignore_patterns("__pycache__"))
    tasks = mini / "tasks" / "mini.yaml"
    text = tasks.read_text(encoding="utf-8")
    for before, rubric in (
        (
            "      - type: contains\n        value: 1 day\n"
            "      - type: citations\n        required: [faq.md#shipping]\n",
            "States the express shipping time.",
        ),
        ('      - type: not_contains\n        value: "yes"\n', "Says nothing ships to the moon."),
    ):
        assert before in text
        text = text.replace(before, f"      - type: judge\n        rubric: {rubric}\n")
    tasks.write_text(text, encoding="utf-8")
    return mini


def _mock_target(mini: Path, base_url: str) -> Path:
    data = {
        "format_version": 1,
        "kind": "openai",
        "entrant": "mock-engine",
        "display_name": "Mock Engine",
        "model": "bench-mock",
        "base_url": base_url,
        "pricing": {"prompt_per_mtok": 1.0, "completion_per_mtok": 2.0},
        "params": {"temperature": 0},
        "retry": {"max_attempts": 4, "base_s": 0.01, "cap_s": 0.05, "seed": 7},
        "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
    }
    path = mini / "targets" / "mock-engine.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def write_unscored_runs(root: Path) -> Path:
    """The runs directory: the scripted ``mini-good`` entrant over every split (two tasks not
    scored, one of them private), and ``mock-engine`` twice (one row per quantisation)."""
    mini = judged_only_tasks(root)
    runs = root / "runs"
    _, status = start_run(RunRequest(tasks=mini / "tasks", runs_dir=runs, repeats=2,
                                     target_file=mini / "targets" / "good.yaml"))  # fmt: skip
    assert status.status == "complete"
    for quantisation in QUANTISATIONS:
        with MockServer(max_seconds=60, quantisation=quantisation) as server:
            target = _mock_target(mini, server.url + "/v1")
            _, status = start_run(RunRequest(tasks=mini / "tasks", target_file=target,
                                             runs_dir=runs, repeats=2))  # fmt: skip
            assert status.status == "complete"
    return runs
