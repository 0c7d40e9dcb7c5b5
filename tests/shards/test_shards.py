"""Shards of the mini task set, run apart and merged, equal one unsharded run."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.cli.merge_cmd import merge
from bench.core.errors import BenchError, InputError, UsageError
from bench.records import RunStore
from bench.runner import RunRequest, start_run
from bench.runner.merge import merge_runs
from bench.runner.shards import Shard, parse_shard, read_shard_info


def request(mini: Path, **changes: object) -> RunRequest:
    values: dict[str, object] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / "good.yaml",
        "runs_dir": mini / "runs",
        "repeats": 2,
    }
    values.update(changes)
    return RunRequest(**values)  # type: ignore[arg-type]


def scores(run: object) -> dict[tuple[str, int], tuple[str, float | None]]:
    return {r.key: (r.outcome, r.value) for r in run.attempts()}  # type: ignore[attr-defined]


def shards(mini: Path, count: int = 3, **changes: object) -> list[str]:
    ids = []
    for index in range(count):
        run, status = start_run(request(mini, shard=Shard(index, count), **changes))
        assert status.status == "complete"
        ids.append(run.run_id)
    return ids


def test_parse_shard() -> None:
    assert parse_shard("1/3") == Shard(1, 3)
    assert str(parse_shard(" 0 / 1 ")) == "0/1"
    for bad in ("3/3", "1/0", "a/b", "1", "-1/3"):
        with pytest.raises(UsageError) as caught:
            parse_shard(bad)
        assert caught.value.code == "SHARD_INVALID"


def test_assignment_is_by_sorted_id_modulo_n() -> None:
    ids = ["tool-0001", "qa-0002", "qa-0001", "qa-0003"]
    # sorted: qa-0001 qa-0002 qa-0003 tool-0001 → shard 0 gets qa-0001 and tool-0001
    assert Shard(0, 3).select(ids) == ["tool-0001", "qa-0001"]
    assert Shard(1, 3).select(ids) == ["qa-0002"]
    assert Shard(2, 3).select(ids) == ["qa-0003"]


def test_three_shards_merged_equal_an_unsharded_run(mini: Path) -> None:
    whole, _ = start_run(request(mini))
    ids = shards(mini)
    store = RunStore(mini / "runs")
    configs = [store.resolve(i).config() for i in ids]
    # one fingerprint across shards, and the unsharded run's
    assert {c.fingerprint() for c in configs} == {whole.config().fingerprint()}
    assert {c.task_set.content_hash for c in configs} == {whole.config().task_set.content_hash}
    assert sorted(t for c in configs for t in c.task_set.task_ids) == sorted(
        whole.config().task_set.task_ids
    )
    info = read_shard_info(store.resolve(ids[1]).path)
    assert info is not None and info.shard == Shard(1, 3)
    assert store.resolve(ids[1]).status().attempts_total == len(info.task_ids) * 2

    merged, status = merge_runs(list(reversed(ids)), mini / "runs")
    assert status.status == "complete"
    assert merged.run_id not in ids
    assert merged.status() == status
    config = merged.config()
    assert config.fingerprint() == whole.config().fingerprint() == status.config_fingerprint
    assert config.task_set.task_ids == whole.config().task_set.task_ids  # task-set order
    assert scores(merged) == scores(whole)
    assert {r.run_id for r in merged.attempts()} == {merged.run_id}
    assert status.attempts_total == status.attempts_done == len(whole.attempts())
    cassette = (merged.path / "cassette.jsonl").read_text().splitlines()
    assert len(cassette) == sum(len(r.trace.exchanges) for r in merged.attempts())
    provenance = json.loads((merged.path / "merge.json").read_text())
    assert [s["shard"] for s in provenance["sources"]] == ["0/3", "1/3", "2/3"]
    assert read_shard_info(merged.path) is None


def test_a_resumed_shard_keeps_its_slice(mini: Path) -> None:
    from bench.runner import resume_run

    run, _ = start_run(request(mini, shard=Shard(0, 3)))
    for file in sorted((run.path / "attempts").glob("*.json"))[1:]:
        file.unlink()
    # as a kill after its first attempt leaves it: its status never counted the others
    run.write_status(
        run.status().model_copy(update={"status": "started", "attempts_done": len(run.attempts())})
    )
    _, status = resume_run(run.run_id, request(mini))  # no --shard: the recorded one
    assert status.status == "complete"
    assert status.attempts_done == len(run.config().task_set.task_ids) * 2


def code_of(refs: list[str], mini: Path) -> tuple[str, str]:
    with pytest.raises(BenchError) as caught:
        merge_runs(refs, mini / "runs")
    return caught.value.code, caught.value.message


def test_overlap_gap_and_fingerprint_are_refused(mini: Path) -> None:
    ids = shards(mini)
    again, _ = start_run(request(mini, shard=Shard(1, 3)))
    code, message = code_of([ids[0], ids[1], again.run_id, ids[2]], mini)
    assert code == "MERGE_OVERLAP"
    assert ids[1] in message and again.run_id in message
    code, message = code_of([ids[0], ids[2]], mini)
    assert code == "MERGE_GAP" and "qa-0002" in message
    other, _ = start_run(request(mini, shard=Shard(1, 3), repeats=1))
    code, message = code_of([ids[0], other.run_id, ids[2]], mini)
    assert code == "MERGE_FINGERPRINT" and other.run_id in message
    code, _ = code_of([ids[0], ids[0]], mini)
    assert code == "MERGE_OVERLAP"
    assert len(RunStore(mini / "runs").runs()) == 5  # nothing was written


@pytest.mark.parametrize(
    "change", [{"seed": 99}, {"attempt_timeout_s": 7.0}], ids=["seed", "timeout"]
)
def test_shards_run_with_other_settings_are_refused(mini: Path, change: dict[str, object]) -> None:
    """The merged config records the first shard's seed and timeout, and verify cannot see
    another's: shards of two commands were merged as one run."""
    ids = shards(mini, count=2)
    other, _ = start_run(request(mini, shard=Shard(1, 2), **change))
    code, message = code_of([ids[0], other.run_id], mini)
    assert code == "MERGE_FINGERPRINT" and other.run_id in message
    assert next(iter(change)) in message


def test_incomplete_and_unsharded_runs_are_refused(mini: Path) -> None:
    ids = shards(mini, count=2)
    run = RunStore(mini / "runs").resolve(ids[1])
    next((run.path / "attempts").glob("*.json")).unlink()
    code, message = code_of(ids, mini)
    assert code == "MERGE_INCOMPLETE" and ids[1] in message
    whole, _ = start_run(request(mini))
    code, _ = code_of([ids[0], whole.run_id], mini)
    assert code == "MERGE_NOT_SHARD"


def test_more_shards_than_tasks_is_refused(mini: Path) -> None:
    with pytest.raises(InputError) as caught:
        start_run(request(mini, split="public", shard=Shard(3, 4)))
    assert caught.value.code == "SHARD_EMPTY"


def test_shard_and_merge_on_the_command_line(mini: Path) -> None:
    from bench.cli.main import cli

    runner = CliRunner()
    runs = str(mini / "runs")
    for index in range(2):
        result = runner.invoke(
            cli,
            [
                "run",
                "--tasks",
                str(mini / "tasks"),
                "--target",
                str(mini / "targets" / "good.yaml"),
                "--shard",
                f"{index}/2",
                "--runs-dir",
                runs,
                "--progress",
                "none",
            ],
        )
        assert result.exit_code == 0, result.output
    ids = [run.run_id for run in RunStore(mini / "runs").runs()]
    result = runner.invoke(merge, [*ids, "--runs-dir", runs, "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    merged = RunStore(mini / "runs").resolve(payload["run_id"])
    assert len(merged.attempts()) == 4
    bad = runner.invoke(cli, ["run", "--tasks", str(mini / "tasks"), "--shard", "2/2"])
    assert bad.exit_code == 2 and "SHARD_INVALID" in bad.output


def test_dataclass_default_is_unsharded(mini: Path) -> None:
    assert dataclasses.replace(request(mini)).shard is None


def test_judge_usage_of_shards_adds_up_with_a_shard_that_bought_nothing() -> None:
    """A shard whose judge answered from its cache spent ``None`` (nothing priced bought):
    merged after it, a shard that spent dollars was ``None + 0.05`` (a TypeError), merged
    before it, the sum was that shard's alone only by luck."""
    from types import SimpleNamespace

    from bench.runner.merge import _sum_usage

    def shard(cost: float | None, requests: int) -> Any:
        usage = {"requests": requests, "cache_hits": 2, "outages": 0, "retries": 1,
                 "no_verdicts": 0, "cost_usd": cost}  # fmt: skip
        return SimpleNamespace(status=SimpleNamespace(judge_usage=usage))

    for order in ([shard(None, 0), shard(0.05, 3)], [shard(0.05, 3), shard(None, 0)]):
        total = _sum_usage(order)  # type: ignore[arg-type]
        assert total is not None
        assert total["cost_usd"] == 0.05 and total["requests"] == 3 and total["retries"] == 2
    both = _sum_usage([shard(0.05, 1), shard(0.25, 1)])  # type: ignore[arg-type]
    assert both is not None and both["cost_usd"] == 0.30
    unknown = _sum_usage([shard(None, 1), shard(None, 1)])  # type: ignore[arg-type]
    assert unknown is not None and unknown["cost_usd"] is None
