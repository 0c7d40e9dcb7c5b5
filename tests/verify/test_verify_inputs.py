"""``bench verify BUNDLE`` finds its inputs in the repository the bundle sits in, and names every
missing input at once with exit 2 (unusable input), a wrong results root included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.verify_cmd import verify
from bench.verify.inputs import default_inputs, repository_of

BASE = Path(__file__).resolve().parent.parent / "fixtures" / "bundles" / "_base"


def _repository(root: Path) -> tuple[Path, Path]:
    repo = root / "repo"
    repo.mkdir(parents=True)
    shutil.copytree(BASE / "results", repo / "results")
    shutil.copytree(BASE / "submissions", repo / "submissions")
    shutil.copytree(BASE / "mini" / "tasks", repo / "tasks")
    shutil.copytree(BASE / "mini" / "corpora", repo / "corpora")
    [bundle] = (repo / "results" / "mini-good").iterdir()
    return repo, bundle


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


def test_the_inputs_come_from_the_repository_holding_results(tmp_path: Path) -> None:
    repo, bundle = _repository(tmp_path)
    assert repository_of(bundle) == repo
    assert default_inputs(bundle) == (
        repo / "results",
        repo / "submissions" / "allowed_signers",
        repo / "tasks",
    )
    given = tmp_path / "keys"
    assert default_inputs(bundle, allowed_signers=given)[1] == given
    assert repository_of(tmp_path / "nowhere" / "a" / "b") is None
    assert default_inputs(tmp_path / "nowhere")[2] == Path("tasks")


def test_verify_from_another_directory_needs_no_options(tmp_path: Path, elsewhere: Path) -> None:
    _, bundle = _repository(tmp_path)
    result = CliRunner().invoke(verify, [str(bundle), "--seed", "7"])
    assert result.exit_code == 0, result.output
    assert "valid" in result.output.lower()


def test_every_missing_input_is_named_at_once(tmp_path: Path, elsewhere: Path) -> None:
    repo, bundle = _repository(tmp_path)
    shutil.rmtree(repo / "tasks")
    (repo / "submissions" / "allowed_signers").unlink()
    result = CliRunner().invoke(verify, [str(bundle)])
    assert result.exit_code == 2, result.output
    assert "2 missing inputs" in result.output
    assert "SIGNERS_UNUSABLE" in result.output  # the first missing input's code
    assert f"no allowed_signers at {repo / 'submissions' / 'allowed_signers'}" in result.output
    assert f"no task set at {repo / 'tasks'}" in result.output


def test_nothing_there_names_all_four_inputs(elsewhere: Path) -> None:
    result = CliRunner().invoke(verify, ["results/alice/run", "--format", "json"])
    assert result.exit_code == 2
    expected = [
        "4 missing inputs",
        "no bundle directory",
        "no results root at results",
        "no allowed_signers at submissions/allowed_signers",
        "no task set at tasks",
    ]
    for text in expected:
        assert text in result.output, text
    assert '"BUNDLE_NOT_FOUND"' in result.output


def test_a_wrong_results_root_is_unusable_input(tmp_path: Path, elsewhere: Path) -> None:
    _, bundle = _repository(tmp_path)
    result = CliRunner().invoke(verify, [str(bundle), "--results-root", "reslts"])
    assert result.exit_code == 2, result.output
    assert "BUNDLE_NOT_FOUND" in result.output and "no results root at reslts" in result.output


def test_a_bundle_of_an_imported_suite_is_told_about_suite_tasks(
    tmp_path: Path, elsewhere: Path
) -> None:
    """A BFCL bundle verified where there is no tasks/ was told only "(--tasks)"; its task set
    is the imported suite's, given with --suite-tasks."""
    import json

    repo, bundle = _repository(tmp_path)
    shutil.rmtree(repo / "tasks")
    result = CliRunner().invoke(verify, [str(bundle)])
    assert result.exit_code == 2 and "--suite-tasks" not in result.output  # bench-suite's own
    config = bundle / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["task_set"]["suite"] = {"name": "bfcl-v4", "version": "2026.3.23"}
    config.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(verify, [str(bundle)])
    assert result.exit_code == 2, result.output
    assert "a run of the suite bfcl-v4" in result.output
    assert "--suite-tasks DIR/tasks" in result.output
