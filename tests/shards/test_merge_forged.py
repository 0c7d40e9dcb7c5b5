"""A forger's path through shards, merge and resume (and an honest user's errors on it).

Each case is what a submitter with a valid key could try for a better row using the harness
as shipped, with no hand-edited JSON: shards of other entrant code or pricing merged as one
run, an attempt copied in from another try at the same slice (the merge would rewrite its
``run_id``), a finished failed attempt deleted and resumed until it passes. Each is refused
with a stable code naming the run, file or field, and nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.core.errors import BenchError
from bench.records import RunStore
from bench.records.store import RunDir
from bench.runner import RunRequest, resume_run, start_run
from bench.runner.merge import merge_runs
from bench.runner.shards import Shard


def request(mini: Path, target: str = "good", **changes: object) -> RunRequest:
    values: dict[str, object] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / f"{target}.yaml",
        "runs_dir": mini / "runs",
        "repeats": 2,
    }
    values.update(changes)
    return RunRequest(**values)  # type: ignore[arg-type]


def shard(mini: Path, index: int, count: int, target: str = "good") -> RunDir:
    run, status = start_run(request(mini, target, shard=Shard(index, count)))
    assert status.status == "complete"
    return run


def snapshot(runs: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(runs)): p.read_bytes()
        for p in sorted(runs.rglob("*"))
        if p.is_file() and "reports" not in p.parts and p.suffix != ".sqlite3"
    }


def refused(refs: list[str], mini: Path) -> BenchError:
    before = snapshot(mini / "runs")
    with pytest.raises(BenchError) as caught:
        merge_runs(refs, mini / "runs")
    assert snapshot(mini / "runs") == before  # nothing written, nothing half-written
    return caught.value


def twin_target(mini: Path, name: str, old: str, new: str) -> None:
    """A target file equal to ``good`` in everything the config fingerprint holds (kind,
    model, params, system prompt, tool choice) but ``old`` replaced with ``new``."""
    text = (mini / "targets" / "good.yaml").read_text()
    assert old in text
    (mini / "targets" / f"{name}.yaml").write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("agents.py:good", "agents.py:no_usage", "target.callable"),
        ("prompt_per_mtok: 1.0", "prompt_per_mtok: 0.001", "target.pricing"),
        ("display_name: mini good", "display_name: mini better", "target.display_name"),
        ("entrant: mini-good", "entrant: mini-other", "target.entrant"),
    ],
    ids=["other-code", "cheaper-pricing", "other-name", "other-entrant"],
)
def test_shards_of_another_target_are_refused_though_the_fingerprint_is_one(
    mini: Path, old: str, new: str, field: str
) -> None:
    """The fingerprint holds the target's kind, model, params, prompt and tool choice, not the
    entrant's code, its prices or its name: one shard from another build of the entrant (or
    with cheaper prices) had the same fingerprint, merged, and the bundle verified (its replay
    sample of 3 rarely lands on the other build's attempts) showing the first shard's target
    for every attempt."""
    twin_target(mini, "twin", old, new)
    first = shard(mini, 0, 2)
    other = shard(mini, 1, 2, "twin")
    assert first.config().fingerprint() == other.config().fingerprint()
    error = refused([first.run_id, other.run_id], mini)
    assert error.code == "MERGE_FINGERPRINT"
    assert field in error.message and other.run_id in error.message


def test_shards_on_two_endpoints_merge(mini: Path) -> None:
    """Where the endpoint is may differ: shards run on other machines, each against its own
    server (two real mock servers on loopback here)."""
    from bench.testing.mock_server import MockServer

    with MockServer(max_seconds=120) as here, MockServer(max_seconds=120) as there:
        for name, server in (("here", here), ("there", there)):
            (mini / "targets" / f"{name}.yaml").write_text(
                "format_version: 1\nkind: openai\nentrant: mini-good\ndisplay_name: mini\n"
                f"model: bench-mock\nbase_url: {server.url}/v1\n"
            )
        runs = [shard(mini, 0, 2, "here"), shard(mini, 1, 2, "there")]
    targets = [r.config().target for r in runs]
    assert targets[0]["endpoint_id"] != targets[1]["endpoint_id"]
    merged, status = merge_runs([r.run_id for r in runs], mini / "runs")
    assert status.status == "complete"
    assert merged.config().target == targets[0]
    assert len(merged.attempts()) == sum(len(r.attempts()) for r in runs)


def test_an_attempt_copied_from_another_try_at_the_slice_is_refused(mini: Path) -> None:
    """Run a slice twice and keep the better attempt of each task: the copied file still names
    the run that made it, and the merge would have rewritten that to the merged run's id."""
    first, again = shard(mini, 1, 3), shard(mini, 1, 3)
    shard0, shard2 = shard(mini, 0, 3), shard(mini, 2, 3)
    name = sorted(p.name for p in (first.path / "attempts").iterdir())[0]
    (first.path / "attempts" / name).unlink()
    shutil.copy(again.path / "attempts" / name, first.path / "attempts" / name)
    error = refused([shard0.run_id, first.run_id, shard2.run_id], mini)
    assert error.code == "MERGE_FOREIGN"
    assert error.path == str(first.path / "attempts" / name)
    assert again.run_id in error.message


def test_an_attempt_outside_the_shards_slice_is_refused_and_nothing_is_half_written(
    mini: Path,
) -> None:
    """An attempt of shard 1's copied into shard 0: the merge wrote a new run directory, then
    stopped half-way (ATTEMPT_EXISTS) when it came to write the same attempt again, and left
    that half run behind."""
    runs = [shard(mini, i, 3) for i in range(3)]
    name = sorted(p.name for p in (runs[1].path / "attempts").iterdir())[0]
    shutil.copy(runs[1].path / "attempts" / name, runs[0].path / "attempts" / name)
    error = refused([r.run_id for r in runs], mini)
    assert error.code == "MERGE_FOREIGN" and runs[0].run_id in error.message
    assert len(RunStore(mini / "runs").runs()) == 3


def test_a_finished_attempt_deleted_is_never_run_again(mini: Path) -> None:
    """The classic re-roll: delete a finished attempt's file (a failed one) and resume; the
    resume ran it again, and kept the new try. Its status counted the file, which a crash never
    does for a file that is not there: refused, and nothing changes."""
    req = request(mini, "crashes_on_refunds", split="public")
    run, status = start_run(req)
    failed = next(r for r in run.attempts() if not r.passed)
    victim = run.path / "attempts" / f"{failed.task_id}--r{failed.repeat}.json"
    victim.unlink()
    before = snapshot(mini / "runs")
    with pytest.raises(BenchError) as caught:
        resume_run(run.run_id, req)
    assert caught.value.code == "ATTEMPT_REMOVED"
    assert victim.name in caught.value.message
    assert caught.value.path == str(run.path / "attempts")
    assert snapshot(mini / "runs") == before and not victim.exists()
    assert run.status() == status

    # the same on a run that was interrupted after the file was counted
    run.write_status(status.model_copy(update={"status": "started"}))
    with pytest.raises(BenchError) as caught:
        resume_run(run.run_id, req)
    assert caught.value.code == "ATTEMPT_REMOVED"


def test_a_shard_with_a_deleted_attempt_is_not_merged_and_not_resumed(mini: Path) -> None:
    runs = [shard(mini, i, 2) for i in range(2)]
    next((runs[1].path / "attempts").glob("*.json")).unlink()
    error = refused([r.run_id for r in runs], mini)
    assert error.code == "MERGE_INCOMPLETE" and "removed" in error.message
    with pytest.raises(BenchError) as caught:
        resume_run(runs[1].run_id, request(mini))
    assert caught.value.code == "ATTEMPT_REMOVED"


# -- an honest user's mistakes: one line, a stable code, no traceback, nothing written ----------


def merge_cli(mini: Path, *refs: str) -> tuple[int, str]:
    from bench.cli.main import cli

    before = snapshot(mini / "runs")
    result = CliRunner().invoke(cli, ["merge", *refs, "--runs-dir", str(mini / "runs")])
    assert snapshot(mini / "runs") == before
    assert isinstance(result.exception, SystemExit), result.exc_info  # no traceback
    return result.exit_code, result.output


def test_merge_mistakes_on_the_command_line(mini: Path) -> None:
    runs = [shard(mini, i, 3) for i in range(3)]
    ids = [r.run_id for r in runs]
    cases: list[tuple[list[str], str, str]] = [
        ([ids[0], ids[0], ids[1], ids[2]], "MERGE_OVERLAP", ids[0]),  # a shard with itself
        ([ids[0], str(runs[0].path), ids[1], ids[2]], "MERGE_OVERLAP", ids[0]),
        ([ids[0], ids[2]], "MERGE_GAP", "no run has task(s)"),  # a shard missing
        ([*ids, str(mini / "tasks")], "RUN_NOT_FOUND", "tasks"),  # not a run
    ]
    for refs, code, named in cases:
        exit_code, output = merge_cli(mini, *refs)
        assert exit_code == 4, output
        assert output.startswith(f"error[{code}]") and named in output, output

    attempt = sorted((runs[1].path / "attempts").iterdir())[0]
    attempt.write_bytes(attempt.read_bytes()[:-40])  # cut short: a corrupt shard file
    exit_code, output = merge_cli(mini, *ids)
    assert exit_code == 3 and output.startswith("error[JSON_INVALID]"), output
    assert str(attempt) in output

    (runs[2].path / "shard.json").write_text(json.dumps({"index": "two"}))
    exit_code, output = merge_cli(mini, ids[0], ids[2])
    assert exit_code == 4 and output.startswith("error[RUN_CORRUPT]"), output
    assert "shard.json" in output
