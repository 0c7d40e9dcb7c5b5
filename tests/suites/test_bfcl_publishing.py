"""What a stranger publishing a BFCL run meets: the import says what can be published, and a
missing bfcl-eval names the option of the command that was run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.errors import InputError
from bench.suites.bfcl import Imported, locate
from bench.tasks.model import Task


def test_a_category_import_says_its_runs_cannot_be_published(
    bfcl_package: Path, tmp_path: Path
) -> None:
    # The publish workflow rebuilds every category (bench board suite-tasks) and verifies
    # bfcl-v4 bundles against that: a run of a --category import is TASK_SET_MISMATCH there.
    out = tmp_path / "part"
    args = ["suite", "import", "bfcl", "--out", str(out), "--source", str(bfcl_package)]
    done = CliRunner().invoke(cli, [*args, "--category", "live_relevance"])
    assert done.exit_code == 0, done.output
    assert "not the whole suite (--category)" in done.output
    assert "TASK_SET_MISMATCH" in done.output
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "**Not the whole suite.**" in readme
    assert "bench board\nsuite-tasks" in readme
    done = CliRunner().invoke(
        cli, [*args, "--category", "live_relevance", "--format", "json", "--out", str(out / "j")]
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["whole"] is False


def test_the_whole_import_says_nothing_of_the_kind(
    bfcl_suite: tuple[Imported, tuple[Task, ...]],
) -> None:
    imported, _ = bfcl_suite
    assert imported.whole
    readme = (imported.out / "README.md").read_text(encoding="utf-8")
    assert "Not the whole suite" not in readme
    # the README's shape is unchanged for a whole import: one blank line before the table
    assert "board page of their own.\n\n| category | expects | tasks |" in readme


def test_a_missing_bfcl_eval_names_the_option_of_either_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # bench board suite-tasks takes the directory as --bfcl-source, not --source
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None)
    with pytest.raises(InputError) as caught:
        locate(None)
    assert caught.value.code == "SUITE_SOURCE_MISSING"
    assert "bench suite import bfcl --source DIR" in caught.value.message
    assert "bench board suite-tasks --bfcl-source DIR" in caught.value.message
    done = CliRunner().invoke(cli, ["suite", "import", "bfcl", "--out", str(tmp_path / "o")])
    assert done.exit_code == 3
    assert "error[SUITE_SOURCE_MISSING]" in done.output
    assert "--bfcl-source DIR" in done.output


def test_the_import_help_names_every_file_it_writes() -> None:
    done = CliRunner().invoke(cli, ["suite", "import", "bfcl", "--help"])
    assert done.exit_code == 0
    text = " ".join(done.output.split())
    assert "README.md" in text and "suite.json" in text


FIRST_TOOL = '''
from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse


def respond(request: ModelRequest) -> ModelResponse:
    """Calls the first offered tool with no arguments, once; then answers."""
    if any(m.role == "tool" for m in request.messages) or not request.tools:
        return ModelResponse(content="done")
    return ModelResponse(tool_calls=[ToolCallRequest(id="c1", name=request.tools[0].name)])
'''


@pytest.mark.parametrize(
    ("task", "category"),
    [
        ("simple-python-0", "simple_python"),
        ("live-parallel-multiple-0--0--0", "live_parallel_multiple"),
        ("live-irrelevance-263--56--6", "live_irrelevance"),
        ("parallel-multiple-7", "parallel_multiple"),
        ("gqa-pub-shipping-cutoff", None),
        ("simple-python", None),
        ("multi-turn-base-0", None),
    ],
)
def test_a_task_id_names_its_category(task: str, category: str | None) -> None:
    from bench.suites.categories import category_of

    assert category_of(task) == category


def test_scores_per_category_of_a_bfcl_run(
    bfcl_suite: tuple[Imported, tuple[Task, ...]], tmp_path: Path
) -> None:
    """One family on every surface, so `bench suite scores` gives what BFCL reports:
    categories, each with its tasks, passes and an interval."""
    from bench import api

    imported, tasks = bfcl_suite
    ids = [t.id for t in tasks]
    chosen = [
        *[i for i in ids if i.startswith("simple-python-")][:3],
        *[i for i in ids if i.startswith("irrelevance-")][:20],
        *[i for i in ids if i.startswith("live-relevance-")],
    ]
    assert len(chosen) == 39
    (tmp_path / "entrant.py").write_text(FIRST_TOOL)
    (tmp_path / "target.yaml").write_text(
        "format_version: 1\nkind: scripted\nentrant: first-tool\ndisplay_name: First tool\n"
        "model: first-tool\ncallable: entrant.py:respond\n"
    )
    runs = tmp_path / "runs"
    summary = api.run(
        imported.out / "tasks", tmp_path / "target.yaml", task_ids=chosen, runs_dir=runs
    )
    assert summary.outcomes.get("scored") == 39
    done = CliRunner().invoke(
        cli, ["suite", "scores", "latest", "--runs-dir", str(runs), "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.output)
    assert payload["suite"] == {"name": "bfcl-v4", "version": "2026.3.23"}
    assert payload["other_tasks"] == []
    rows = {row["category"]: row for row in payload["categories"]}
    assert [row["category"] for row in payload["categories"]] == [
        "simple_python",
        "irrelevance",
        "live_relevance",
    ]
    # any call passes relevance; a call passes no irrelevance case; no arguments no simple case
    assert (rows["live_relevance"]["tasks"], rows["live_relevance"]["passed"]) == (16, 16)
    assert (rows["irrelevance"]["tasks"], rows["irrelevance"]["passed"]) == (20, 0)
    assert (rows["simple_python"]["tasks"], rows["simple_python"]["passed"]) == (3, 0)
    relevance = rows["live_relevance"]["score"]
    assert relevance["value"] == 1.0 and relevance["n"] == 16
    assert 0.7 < relevance["interval"]["lo"] < 1.0 == relevance["interval"]["hi"]
    assert rows["irrelevance"]["score"]["value"] == 0.0
    assert rows["irrelevance"]["score"]["interval"]["lo"] == 0.0
    text = CliRunner().invoke(cli, ["suite", "scores", "latest", "--runs-dir", str(runs)])
    assert text.exit_code == 0, text.output
    assert "  live_relevance              16     16       0  1.000 [" in text.output
    assert "  irrelevance                 20      0       0  0.000 [0.000, " in text.output
    assert all(row["errored"] == 0 and row["not_scored"] == [] for row in rows.values())


def test_scores_of_a_run_of_another_suite_are_refused_with_a_code(tmp_path: Path) -> None:
    from bench import api

    root = Path(__file__).resolve().parents[2]
    api.run(
        root / "examples" / "tasks",
        root / "examples" / "targets" / "support-bot-v1.yaml",
        task_ids=["gqa-0001"],
        runs_dir=tmp_path / "runs",
    )
    done = CliRunner().invoke(cli, ["suite", "scores", "--runs-dir", str(tmp_path / "runs")])
    assert done.exit_code == 3
    assert "error[SUITE_RUN]" in done.output
    assert "is of suite bench-suite, not bfcl-v4" in done.output
