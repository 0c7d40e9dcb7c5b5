"""A partial run is one its run budget stopped (``records.check_early_stop``): every attempt it
did not do is skipped, the budget was reached, and what it did is where the runner's order
stopped. Genuine partial runs, made by the real runner (one session, several attempts in
flight, a wall-time budget, resumed, killed and resumed) verify; a complete run whose failed
attempts were deleted and whose status was rewritten as partial, then bundled and signed
again, does not.

And the harness-version rule: ``bench verify`` refuses a run of a harness version the board
would call a stale schema, with the board's own function (``bench.verify.harness``)."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench import HARNESS_VERSION
from bench.core.budget import Budget
from bench.records import RunStore
from bench.records.run import AttemptKey, AttemptRecord, RunConfig, attempt_filename
from bench.records.store import RunDir
from bench.runner import RunRequest, resume_run, start_run
from bench.signing.bundle import build_bundle
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

from .conftest import signing_keys

ENTRANTS = ("mini-good", "mini-paced", "mini-crashes-on-refunds", "mini-crashes-on-shipping")

# qa-0002 ("express shipping") is the middle task of the mini public split, in the run's order
# qa-0001, qa-0002, tool-0001: an entrant that fails it fails in the middle of the run.
CRASHES_ON_SHIPPING = '''

def crashes_on_shipping(request):
    """``good``, except that it crashes on the shipping question (qa-0002)."""
    if "shipping" in _question(request):
        raise ValueError("cannot handle shipping")
    return good(request)
'''


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path, ENTRANTS)


@pytest.fixture
def shipping(mini: Path) -> Path:
    """The mini copy with an entrant that crashes on qa-0002; its target file."""
    with (mini / "agents.py").open("a") as handle:
        handle.write(CRASHES_ON_SHIPPING)
    target = mini / "targets" / "crashes_on_shipping.yaml"
    target.write_text(
        (mini / "targets" / "crashes_on_refunds.yaml")
        .read_text()
        .replace("crashes_on_refunds", "crashes_on_shipping")
        .replace("crashes-on-refunds", "crashes-on-shipping")
    )
    return target


def _request(mini: Path, target: str, tmp_path: Path, **more: Any) -> RunRequest:
    fields: dict[str, Any] = {"repeats": 2, "concurrency": 1, **more}
    return RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / f"{target}.yaml",
        runs_dir=tmp_path / "runs",
        split="public",
        **fields,
    )


def _bundle(run: RunDir, entrant: str, keys: dict[str, Path], root: Path) -> Path:
    return build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=root / "results",
        allowed_signers=keys[entrant].parents[1] / "submissions" / "allowed_signers",
        allow_partial=True,
    )


def _verify(bundle: Path, root: Path, mini: Path) -> BundleVerdict:
    return verify_bundle(
        bundle,
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=mini / "tasks",
            replay_sample=2,
            seed=7,
        ),
    )


def _valid_partial(verdict: BundleVerdict) -> None:
    assert verdict.valid, f"{verdict.code}: {verdict.path}: {verdict.field}: {verdict.message}"
    assert verdict.partial


def _refused(verdict: BundleVerdict, field: str) -> None:
    assert verdict.code is not None, "the forged partial run verified"
    assert (verdict.code.value, verdict.field) == ("RECORD_INCONSISTENT", field), verdict.message
    assert verdict.path is not None and verdict.path.endswith("status.json")


def run_order(config: RunConfig) -> list[tuple[str, int]]:
    """The order ``bench run`` takes attempts in: the tasks in the config's order, each
    task's repeats in turn (``runner.engine.execute``)."""
    return [(t, r) for t in config.task_set.task_ids for r in range(config.repeats)]


def _done(run: RunDir) -> list[tuple[str, int]]:
    done = {record.key for record in run.attempts()}
    return [key for key in run_order(run.config()) if key in done]


# -- genuine partial runs -------------------------------------------------------------------


def test_a_run_its_budget_stopped_verifies_as_partial(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    run, status = start_run(_request(mini, "good", tmp_path, run_budget=Budget(tokens=500)))
    assert status.status == "partial" and status.sessions == 1 and len(status.skipped) == 3
    assert _done(run) == run_order(run.config())[:3]  # a prefix of the order
    _valid_partial(_verify(_bundle(run, "mini-good", keys, tmp_path), tmp_path, mini))


@pytest.mark.parametrize(("concurrency", "tokens"), [(2, 500), (3, 1000), (4, 900), (4, 100)])
def test_a_budget_stop_with_attempts_in_flight_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path, concurrency: int, tokens: int
) -> None:
    """With several attempts in flight (paced: 0.1 s a model call), those already started
    finish after the budget ran out: more are done than a one-at-a-time run would have done,
    still a prefix. Each budget runs out before the ninth attempt may start."""
    request = _request(
        mini,
        "paced",
        tmp_path,
        repeats=3,
        concurrency=concurrency,
        run_budget=Budget(tokens=tokens),
    )
    run, status = start_run(request)
    assert status.status == "partial", status
    done = _done(run)
    assert done == run_order(run.config())[: len(done)]
    _valid_partial(_verify(_bundle(run, "mini-paced", keys, tmp_path), tmp_path, mini))


def test_a_run_its_wall_time_budget_stopped_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """A deadline: nine paced attempts two at a time take over a second; after 0.3 s no
    attempt starts."""
    budget = Budget(seconds=0.3)
    request = _request(mini, "paced", tmp_path, repeats=3, concurrency=2, run_budget=budget)
    run, status = start_run(request)
    assert status.status == "partial" and status.elapsed_s >= 0.3, status
    assert status.partial_reason is not None and "seconds" in status.partial_reason
    _valid_partial(_verify(_bundle(run, "mini-paced", keys, tmp_path), tmp_path, mini))


def test_a_partial_run_resumed_with_a_budget_still_spent_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """Resumed with a larger budget that runs out too: the second session's budget is the
    one that stopped it (``status.run_budget``)."""
    budget = Budget(tokens=300)
    first = _request(mini, "paced", tmp_path, repeats=3, concurrency=2, run_budget=budget)
    run, status = start_run(first)
    assert status.status == "partial"
    _, again = resume_run(run.run_id, dataclasses.replace(first, run_budget=Budget(tokens=600)))
    assert again.status == "partial" and again.sessions == 2
    assert again.run_budget == Budget(tokens=600)  # the last session's budget, not config's
    _valid_partial(_verify(_bundle(run, "mini-paced", keys, tmp_path), tmp_path, mini))


def test_an_interrupted_run_resumed_and_stopped_by_its_budget_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """Interrupted with attempts in flight, a run has holes before the last attempt it
    finished (here the most concurrency 3 allows: 2); resumed with a budget already spent, it
    skips them and everything after, and is partial with the holes."""
    request = _request(mini, "good", tmp_path, concurrency=3)
    run, _ = start_run(request)
    order = run_order(run.config())
    # Killed when order[3] had finished but order[1] and order[2] were still in flight.
    for task_id, repeat in [order[1], order[2], *order[4:]]:
        (run.path / "attempts" / attempt_filename(task_id, repeat)).unlink()
    status = run.status()
    run.write_status(status.model_copy(update={"status": "started", "attempts_done": 2}))
    _, final = resume_run(run.run_id, dataclasses.replace(request, run_budget=Budget(tokens=1)))
    assert (final.status, final.sessions) == ("partial", 2)
    assert _done(run) == [order[0], order[3]]
    assert [(k.task_id, k.repeat) for k in final.skipped] == [order[1], order[2], *order[4:]]
    _valid_partial(_verify(_bundle(run, "mini-good", keys, tmp_path), tmp_path, mini))


def _bench(*args: str, cwd: Path, quiet: bool = False) -> subprocess.Popen[str]:
    code = "import sys; from bench.cli.main import main; sys.argv[0] = 'bench'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if quiet else subprocess.PIPE,
        text=True,
    )


def test_a_run_killed_then_resumed_until_its_budget_ran_out_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 with three attempts in flight, then ``bench run --resume`` with a run budget:
    the real thing, whatever the kill left."""
    args = ["run", "--tasks", "tasks", "--target", "targets/paced.yaml", "--split", "public"]
    args += ["--repeats", "3", "--concurrency", "3", "--runs-dir", "runs", "--progress", "none"]
    process = _bench(*args, cwd=mini, quiet=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(mini.glob("runs/*/attempts/*.json"))) < 2:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    [killed] = RunStore(mini / "runs").runs()
    assert killed.status().status == "started"
    assert 2 <= len(killed.attempts()) < 9
    resumed = _bench(*args, "--resume", "latest", "--run-budget-tool-calls", "1", cwd=mini)
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert (killed.status().status, killed.status().sessions) == ("partial", 2)
    monkeypatch.chdir(mini)  # bundled from where it ran: its recorded paths are relative
    _valid_partial(_verify(_bundle(killed, "mini-paced", keys, tmp_path), tmp_path, mini))


# -- forged partial runs: failed attempts deleted, status rewritten, bundled and signed -------


def _forge(
    run: RunDir, drop: Callable[[AttemptRecord], bool], **status: Any
) -> list[tuple[str, int]]:
    """Delete the attempts ``drop`` picks from the run directory, rebuild its cassette from the
    rest, and mark it partial with a budget reason; returns the dropped keys in run order.
    ``status`` overrides the status fields (``skipped``: True lists the dropped attempts)."""
    kept, dropped = [], set()
    for record in run.attempts():
        if drop(record):
            (run.path / "attempts" / attempt_filename(record.task_id, record.repeat)).unlink()
            dropped.add(record.key)
        else:
            kept.append(record)
    run.write_cassette(
        (record.task_id, record.repeat, exchange)
        for record in sorted(kept, key=lambda r: r.key)
        for exchange in record.trace.exchanges
    )
    gone = [key for key in run_order(run.config()) if key in dropped]
    skipped = [AttemptKey(task_id=t, repeat=r) for t, r in gone] if status.pop("skipped") else []
    update = {
        "status": "partial",
        "attempts_done": len(kept),
        "skipped": skipped,
        "partial_reason": f"run budget: dollars 0.01 ≥ 0.01; {len(gone)} attempt(s) skipped",
        **status,
    }
    run.write_status(run.status().model_copy(update=update))
    return gone


def _errored(record: AttemptRecord) -> bool:
    return record.outcome == "errored"


def test_failed_attempts_deleted_and_the_run_called_partial_is_refused(
    mini: Path, shipping: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """The audit's forgery (F3): a complete run, its failures deleted, status 'partial' with a
    budget reason; before, "valid (partial run)" and a 1.000 headline."""
    run, status = start_run(_request(mini, "crashes_on_shipping", tmp_path))
    assert status.status == "complete"
    assert _forge(run, _errored, skipped=False) == [("qa-0002", 0), ("qa-0002", 1)]
    bundle = _bundle(run, "mini-crashes-on-shipping", keys, tmp_path)
    _refused(_verify(bundle, tmp_path, mini), "skipped")


@pytest.mark.parametrize(("sessions", "concurrency"), [(1, 1), (1, 4), (2, 1), (2, 2)])
def test_failures_deleted_from_the_middle_of_the_order_are_refused(
    mini: Path,
    shipping: Path,
    keys: dict[str, Path],
    tmp_path: Path,
    sessions: int,
    concurrency: int,
) -> None:
    """The same, with everything else told right: the deleted attempts listed as skipped and
    a run budget the rest reached. They sit before tool-0001's done attempts in the run's
    order: no budget stop leaves that (one session: none; an interrupted one: fewer than its
    concurrency, here at most 1 of the 2)."""
    run, _ = start_run(_request(mini, "crashes_on_shipping", tmp_path, concurrency=concurrency))
    _forge(run, _errored, skipped=True, sessions=sessions, run_budget=Budget(tokens=1))
    bundle = _bundle(run, "mini-crashes-on-shipping", keys, tmp_path)
    _refused(_verify(bundle, tmp_path, mini), "skipped")


def test_failures_deleted_from_the_end_without_a_budget_that_ran_out_are_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """crashes_on_refunds fails tool-0001, the last task: deleting its attempts leaves a
    prefix, but the run had no run budget to stop it (nor one the rest reached)."""
    run, _ = start_run(_request(mini, "crashes_on_refunds", tmp_path))
    assert _forge(run, _errored, skipped=True) == [("tool-0001", 0), ("tool-0001", 1)]
    bundle = _bundle(run, "mini-crashes-on-refunds", keys, tmp_path)
    _refused(_verify(bundle, tmp_path, mini), "run_budget")


def test_a_budget_the_done_attempts_did_not_reach_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    run, _ = start_run(_request(mini, "crashes_on_refunds", tmp_path))
    spent = sum(r.trace.usage.total for r in run.attempts() if not _errored(r))
    _forge(run, _errored, skipped=True, sessions=2, run_budget=Budget(tokens=spent + 1))
    bundle = _bundle(run, "mini-crashes-on-refunds", keys, tmp_path)
    _refused(_verify(bundle, tmp_path, mini), "run_budget")


@pytest.mark.parametrize(
    ("status", "field"),
    [
        ({"skipped": True, "attempts_total": 5}, "attempts_total"),
        ({"skipped": True, "partial_reason": None}, "partial_reason"),
        ({"skipped": False, "extra_skipped": [("qa-0001", 0)]}, "skipped"),
        ({"skipped": True, "extra_skipped": [("tool-0001", 0)]}, "skipped"),
        ({"skipped": True, "extra_skipped": [("qa-0001", 9)]}, "skipped"),
    ],
    ids=["total", "no reason", "a done one skipped", "skipped twice", "not planned"],
)
def test_a_partial_status_that_does_not_add_up_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path, status: dict[str, Any], field: str
) -> None:
    run, _ = start_run(_request(mini, "crashes_on_refunds", tmp_path))
    extra = status.pop("extra_skipped", [])
    _forge(run, _errored, run_budget=Budget(tokens=1), sessions=2, **status)
    if extra:
        now = run.status()
        more = [AttemptKey(task_id=t, repeat=r) for t, r in extra]
        run.write_status(now.model_copy(update={"skipped": [*now.skipped, *more]}))
    bundle = _bundle(run, "mini-crashes-on-refunds", keys, tmp_path)
    _refused(_verify(bundle, tmp_path, mini), field)


def test_a_complete_run_that_lists_skipped_attempts_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    run, _ = start_run(_request(mini, "good", tmp_path))
    status = run.status()
    skipped = [AttemptKey(task_id="qa-0001", repeat=0)]
    run.write_status(status.model_copy(update={"skipped": skipped}))
    _refused(_verify(_bundle(run, "mini-good", keys, tmp_path), tmp_path, mini), "skipped")


def test_what_verify_cannot_tell_from_a_genuine_stop(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """The known limit (docs/SUBMISSIONS.md, "Partial runs"): the submitter signs every byte,
    so failures at the end of the order, deleted, with a run budget claimed that the rest
    reached, read exactly like a run its budget stopped there. The board lists such a run,
    never ranks it; its headline is over the tasks it did."""
    run, _ = start_run(_request(mini, "crashes_on_refunds", tmp_path))
    spent = sum(r.trace.usage.total for r in run.attempts() if not _errored(r))
    _forge(run, _errored, skipped=True, run_budget=Budget(tokens=spent))
    bundle = _bundle(run, "mini-crashes-on-refunds", keys, tmp_path)
    _valid_partial(_verify(bundle, tmp_path, mini))


# -- H: the harness version, by the board's rule ----------------------------------------------


@pytest.mark.parametrize("version", ["9.9.9", "0.0.1", f"{HARNESS_VERSION}+local"])
def test_a_run_of_a_harness_version_the_board_calls_stale_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    """A run made (or labelled, and signed) as another harness version: the board's --strict
    build refuses it as a stale schema, so verify refuses it too, with the same function."""
    from bench.board.build import input_warnings
    from bench.board.load import BundlesLoader

    monkeypatch.setattr("bench.runner.session.HARNESS_VERSION", version)
    run, _ = start_run(_request(mini, "good", tmp_path))
    assert run.config().harness_version == version
    bundle = _bundle(run, "mini-good", keys, tmp_path)
    verdict = _verify(bundle, tmp_path, mini)
    assert verdict.code is not None, "a run of another harness version verified"
    assert (verdict.code.value, verdict.field) == ("RECORD_INVALID", "harness_version")
    assert f"made by harness {version}, this code is harness {HARNESS_VERSION}" in verdict.message
    assert verdict.path is not None and verdict.path.endswith("config.json")
    [(entry, _)] = BundlesLoader(tmp_path / "results", verify=False).load(None)
    [stale] = input_warnings([entry], verified=False)
    assert stale == f"stale schema: {entry.source_path} was {verdict.message.split(' was ', 1)[1]}"


def test_verify_and_the_board_share_one_harness_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """One function, not a copy: verify's check is the very object the board calls."""
    from bench.board.build import input_warnings
    from bench.verify import harness, records

    assert records.check_consistency.__globals__["stale_harness"] is harness.stale_harness
    assert harness.stale_harness(HARNESS_VERSION) is None
    entry: Any = dataclasses.make_dataclass(
        "Entry", [("source_path", str), ("source", str), ("harness", str)]
    )("x", "run", "1.2.3")
    monkeypatch.setattr(harness, "stale_harness", lambda version: f"judged {version}")
    assert input_warnings([entry], True) == ["stale schema: x was judged 1.2.3"]
