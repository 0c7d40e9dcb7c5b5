"""The honest user's sharded and resumed runs, bundled, signed and verified.

A run split into three shards and merged verifies and gives exactly the figures of the same
run done whole with the same seed (headline, interval, family means, cost, outcomes, failed
tasks; each attempt's latency is measured, so the p95 latency is the shards' own, pooled). A
run stopped with SIGINT and resumed verifies and gives the scores of one never stopped.
The forger's side (shards of another target, attempts copied between runs, a failed attempt
deleted and resumed) is refused before a bundle exists: tests/shards/test_merge_forged.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.records import RunStore
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.runner.merge import merge_runs
from bench.runner.shards import Shard
from bench.signing.bundle import build_bundle
from bench.verify import VerifyOptions, verify_bundle

from .conftest import signing_keys

ENTRANTS = ("mini-crashes-on-refunds", "mini-paced")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path, ENTRANTS)


def _request(mini: Path, target: str, **more: Any) -> RunRequest:
    return RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / f"{target}.yaml",
        runs_dir=mini / "runs",
        repeats=2,
        seed=11,
        **more,
    )


def _valid(run: RunDir, entrant: str, keys: dict[str, Path], root: Path, mini: Path) -> None:
    bundle = build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )
    verdict = verify_bundle(
        bundle,
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=mini / "tasks",
            replay_sample=1000,  # every attempt
            seed=7,
        ),
    )
    assert verdict.valid, f"{verdict.code}: {verdict.path}: {verdict.field}: {verdict.message}"


def _shown(run: RunDir) -> dict[str, Any]:
    from bench.cli.main import cli

    result = CliRunner().invoke(
        cli, ["show", str(run.path), "--runs-dir", str(run.path.parent), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    shown: dict[str, Any] = json.loads(result.output)
    assert shown.pop("run_id") == run.run_id
    return shown


def _latencies(runs: list[RunDir]) -> list[float]:
    return sorted(r.trace.latency_s for run in runs for r in run.attempts())


def test_three_shards_merged_verify_and_give_the_whole_runs_figures(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    whole, _ = start_run(_request(mini, "crashes_on_refunds"))
    shards = [
        start_run(_request(mini, "crashes_on_refunds", shard=Shard(i, 3)))[0] for i in range(3)
    ]
    merged, _ = merge_runs([run.run_id for run in shards], mini / "runs")
    for run in (whole, merged):
        _valid(run, "mini-crashes-on-refunds", keys, tmp_path, mini)

    one, joined = _shown(whole), _shown(merged)
    assert joined["outcomes"].get("errored")  # failures and errors to agree on, not all passes
    p95 = joined.pop("p95_latency_s"), one.pop("p95_latency_s")
    assert joined == one  # every other figure, to the last digit
    assert _latencies([merged]) == _latencies(shards)
    assert p95[0] is not None and p95[0] <= max(_latencies(shards))


def _bench(*args: str, cwd: Path) -> subprocess.Popen[str]:
    code = "import sys; from bench.cli.main import main; sys.argv[0] = 'bench'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_run_stopped_with_sigint_then_resumed_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["run", "--tasks", "tasks", "--target", "targets/paced.yaml", "--repeats", "2"]
    args += ["--seed", "11", "--concurrency", "2", "--runs-dir", "runs", "--progress", "none"]
    process = _bench(*args, cwd=mini)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(mini.glob("runs/*/attempts/*.json"))) < 2:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    [stopped] = RunStore(mini / "runs").runs()
    assert stopped.status().status == "started"
    assert f"--resume {stopped.run_id}" in err
    kept = {p.name: p.read_bytes() for p in (stopped.path / "attempts").glob("*.json")}
    assert 2 <= len(kept) < stopped.status().attempts_total

    resumed = _bench(*args, "--resume", stopped.run_id, cwd=mini)
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert (stopped.status().status, stopped.status().sessions) == ("complete", 2)
    for name, data in kept.items():
        assert (stopped.path / "attempts" / name).read_bytes() == data

    monkeypatch.chdir(mini)  # bundled from where it ran: its recorded paths are relative
    _valid(stopped, "mini-paced", keys, tmp_path, mini)
    fresh, _ = start_run(_request(mini, "paced", concurrency=2))
    one, again = _shown(fresh), _shown(stopped)
    for shown in (one, again):
        shown.pop("p95_latency_s")
    assert again == one
