"""First-use faults, the fourteenth round (helper F14): ``bench probe`` and ``bench verify
--live`` now send a target's ``headers:`` as ``bench run`` does (a gateway that routes by them,
as Portkey does, answered neither); ``--replay`` with ``--system-prompt`` (silently dropped);
a header value of only spaces; ``bench schema check`` of a directory that is not there
(reported as drift); and ``bench board build --strict --results reslts`` in a repository (built
the empty page). Each refusal is one line naming the file or option, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from bench.cli.main import main
from bench.targets.base import TargetSpec
from bench.testing.mock_server import MockServer
from bench.verify import VerifyOptions
from bench.verify.failure import VerifyFailure
from bench.verify.live import LiveOptions
from bench.verify.live import _endpoint as live_endpoint
from bench.verify.live_allowlist import AllowedEndpoint, load_allowlist
from bench.verify.live_run import live_target

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
ROUTE = {"x-portkey-provider": "openai"}


def _bench(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        status = main(args) or 0
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_error(err: str) -> str:
    """The one line a refused command prints: an error with a code, no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error["), err
    assert "Traceback" not in err
    return lines[0]


def _target(path: Path, **fields: Any) -> Path:
    data = {"format_version": 1, "kind": "openai", "entrant": "gw", "display_name": "gw",
            "model": "bench-mock", **fields}  # fmt: skip
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# --- 1. bench probe --target: the target's headers go with the probe --------------------------


def test_probe_of_a_target_sends_its_headers_and_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("BENCH_F14_KEY", "k-f14-probe")
    with MockServer(api_key="k-f14-probe") as server:
        target = _target(tmp_path / "gw.yaml", base_url=server.url + "/v1",
                         api_key_env="BENCH_F14_KEY", headers=ROUTE)  # fmt: skip
        status, out, err = _bench(["probe", "--target", str(target)], capsys)
        seen = server.requests("/v1/models")
    assert status == 0, err
    assert "reachable  engine: bench-mock" in out, out
    assert seen and all(
        r.headers.get("x-portkey-provider") == "openai"
        and r.headers.get("authorization") == "Bearer k-f14-probe"
        for r in seen
    ), [r.headers for r in seen]
    assert "k-f14-probe" not in out + err


def test_probe_of_a_target_takes_base_url_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with MockServer() as server:
        target = _target(tmp_path / "gw.yaml", base_url="http://127.0.0.1:9/v1", headers=ROUTE)
        args = ["probe", "--target", str(target), "--base-url", server.url, "--format", "json"]
        status, out, err = _bench(args, capsys)
        seen = server.requests("/v1/models")
    assert status == 0, err
    assert json.loads(out)[0]["engine"] == "bench-mock"
    assert seen and seen[0].headers.get("x-portkey-provider") == "openai"


@pytest.mark.parametrize(
    ("fields", "extra", "starts"),
    [
        ({"kind": "scripted", "callable": "x.py:f"}, [],
         "error[USAGE]: {t}: a scripted target: only an openai or anthropic target has a "),
        ({"base_url": "http://127.0.0.1:9/v1"}, ["--port", "8000"],
         "error[USAGE]: give --target or --port, not both"),
        ({}, [], "error[USAGE]: {t}: names no base_url (nor does its provider's environment)"),
    ],
    ids=["scripted", "with-port", "no-url"],
)  # fmt: skip
def test_probe_of_a_target_that_has_no_server_is_one_line(
    fields: dict[str, Any],
    extra: list[str],
    starts: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    target = _target(tmp_path / "t.yaml", **fields)
    status, out, err = _bench(["probe", "--target", str(target), *extra], capsys)
    assert status == 2 and out == ""
    assert _one_error(err).startswith(starts.format(t=target)), err


# --- 1. bench verify --live: the allow-list's headers, which the bundle's must equal ----------


def _allowlist(path: Path, **changes: Any) -> Path:
    entry = {"kind": "openai", "base_url": "https://gw.example/v1", "model": "m",
             "api_key_env": None, **changes}  # fmt: skip
    path.write_text(
        yaml.safe_dump({"format_version": 1, "entrants": {"gw": [entry]}}), encoding="utf-8"
    )
    return path


def _run(**target: Any) -> Any:
    recorded = {"kind": "openai", "model": "m", "display_name": "gw",
                "endpoint_id": AllowedEndpoint(kind="openai", base_url="https://gw.example/v1",
                                               model="m", api_key_env=None).endpoint_id,
                **target}  # fmt: skip
    return SimpleNamespace(config=SimpleNamespace(target=recorded, entrant="gw",
                                                  display_name="gw"))  # fmt: skip


def test_the_live_rerun_sends_the_allowlist_s_headers(tmp_path: Path) -> None:
    from bench.targets.probe import probe_headers  # new in this round

    path = _allowlist(tmp_path / "endpoints.yaml", headers=ROUTE)
    endpoint = load_allowlist(path).entrants["gw"][0]
    # The bundle's own headers (a custom host a submitter chose) are never what is sent.
    run = _run(headers={"X-Portkey-Provider": "openai"})
    data = live_target(run.config, endpoint)
    assert data["headers"] == ROUTE
    spec = TargetSpec.model_validate(data)
    assert probe_headers(spec) == ROUTE  # the re-run's start-up probe routes as its requests
    options = VerifyOptions(tasks=tmp_path)
    found, index = live_endpoint(tmp_path, "gw", run, LiveOptions(allowlist=path), options)
    assert (found, index) == (endpoint, 0)


@pytest.mark.parametrize(
    ("allowed", "recorded"),
    [(ROUTE, None), (None, ROUTE), (ROUTE, {"x-portkey-provider": "anthropic"})],
    ids=["bundle-none", "allowlist-none", "other-value"],
)
def test_a_bundle_run_with_other_headers_is_not_the_allowed_endpoint(
    allowed: dict[str, str] | None, recorded: dict[str, str] | None, tmp_path: Path
) -> None:
    path = _allowlist(tmp_path / "endpoints.yaml", headers=allowed)
    run = _run(headers=recorded)
    with pytest.raises(VerifyFailure) as caught:
        live_endpoint(
            tmp_path, "gw", run, LiveOptions(allowlist=path), VerifyOptions(tasks=tmp_path)
        )
    assert caught.value.verify_code == "LIVE_ENDPOINT_NOT_ALLOWED"
    assert caught.value.field == "target.headers"
    assert "entrants.gw[0].headers" in caught.value.message


@pytest.mark.parametrize(
    ("headers", "says"),
    [
        ({"x-portkey-api-key": "pk-0123456789abcdef0123456789"}, "'x-portkey-api-key': "),
        ({"authorization": "x"}, "'authorization' is a header the harness sets itself"),
        ({"x-portkey-provider": " "}, "the value of 'x-portkey-provider' is empty"),
    ],
    ids=["credential", "own-header", "blank"],
)
def test_allowlist_headers_that_could_not_be_sent_are_refused(
    headers: dict[str, str], says: str, tmp_path: Path
) -> None:
    path = _allowlist(tmp_path / "endpoints.yaml", headers=headers)
    with pytest.raises(VerifyFailure) as caught:
        load_allowlist(path)
    assert caught.value.verify_code == "LIVE_ALLOWLIST_INVALID"
    assert says in caught.value.message, caught.value.message
    assert "pk-0123456789abcdef" not in caught.value.message


# --- 2. --replay with --system-prompt (or another target override) -----------------------------


@pytest.mark.parametrize(
    "given",
    [["--system-prompt", "Answer in French."], ["--model", "other"]],
    ids=["system-prompt", "model"],
)
def test_replay_refuses_what_would_change_the_target_and_writes_nothing(
    given: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    args = ["run", "--tasks", str(MINI / "tasks"), "--replay", "latest", *given,
            "--runs-dir", str(runs), "--env-file", str(tmp_path / "none.env")]  # fmt: skip
    status, out, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 2 and out == ""
    assert line.startswith(f"error[REPLAY_OVERRIDE]: {given[0]}: --replay replays"), line
    assert f"drop {given[0]}" in line
    assert not runs.exists()


# --- 3. a header value of only spaces, or empty ------------------------------------------------


@pytest.mark.parametrize(("value", "word"), [("   ", "only spaces"), ("", "empty")])
def test_a_blank_header_value_is_refused_naming_the_header(
    value: str, word: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _target(tmp_path / "gw.yaml", base_url="http://127.0.0.1:9/v1",
                     headers={"x-portkey-provider": value})  # fmt: skip
    runs = tmp_path / "runs"
    args = ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--runs-dir",
            str(runs), "--env-file", str(tmp_path / "none.env")]  # fmt: skip
    status, out, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3 and out == ""
    assert line == (
        f"error[TARGET_INVALID]: {target}: headers.x-portkey-provider: is {word}: give the "
        "header a value, or leave it out"
    ), line
    assert not runs.exists() or not any(runs.iterdir())


# --- 5. bench schema check of a directory that is not there -----------------------------------


def test_schema_check_of_a_missing_directory_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "schemaz"
    status, out, err = _bench(["schema", "check", str(missing)], capsys)
    assert status == 3 and out == ""
    assert _one_error(err) == f"error[FILE_MISSING]: {missing}: no such directory"
    assert not missing.exists()


# --- 6. bench board build --strict: a mistyped --results in a repository ----------------------


def test_strict_board_refuses_a_mistyped_results_in_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "submissions").mkdir()
    args = ["board", "build", "--no-runs", "--strict", "--out", "site", "--results", "reslts"]
    status, out, err = _bench(args, capsys)
    line = _one_error(err)
    assert status == 3 and out == ""
    assert line.startswith(
        "error[BOARD_STRICT]: reslts: --results: does not exist, and a repository of this "
        "project keeps its bundles in results/ (a mistyped path?)"
    ), line
    assert not (tmp_path / "site").exists()
    # The repository's own results/, not there yet (no bundle), still builds the empty page.
    args[-1] = "results"
    status, _, err = _bench(args, capsys)
    assert status == 0, err
    assert (tmp_path / "site" / "index.html").is_file()


# --- sweep: Ctrl-C while bench run loads and checks, before any run exists -------------------


@pytest.mark.parametrize("resume", [False, True], ids=["start", "resume"])
def test_an_interrupt_before_the_run_starts_is_one_line_saying_nothing_was_written(
    resume: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import bench.cli.run_cmd as run_cmd

    def interrupted(runs_dir: Path) -> set[str]:
        raise KeyboardInterrupt  # as Ctrl-C while the runner's modules load

    monkeypatch.setattr(run_cmd, "_entries", interrupted)
    runs = tmp_path / "runs"
    args = ["run", "--tasks", str(MINI / "tasks"), "--target",
            str(MINI / "targets" / "good.yaml"), "--runs-dir", str(runs), "--progress", "none",
            "--env-file", str(tmp_path / "none.env")]  # fmt: skip
    if resume:
        args += ["--resume", "20261207T000000Z-abcdef"]
    status, out, err = _bench(args, capsys)
    assert status == 130 and out == ""
    said = (
        "interrupted before run 20261207T000000Z-abcdef resumed: it is as it was; run the "
        "same command to resume it"
        if resume
        else "interrupted before the run started: nothing was written, nothing to resume"
    )
    assert err.strip() == said, err
    assert not runs.exists() or not any(runs.iterdir())


# --- sweep: two bench runs writing one run at once ---------------------------------------------


def test_an_attempt_another_process_wrote_first_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ``bench run --resume`` of one run at once: the slower finds the attempt file the
    other wrote. It stops in one line saying so, and the file stays the other's."""
    import bench.records.store as store_module

    real = store_module.write_once
    theirs = b'{"written": "by the other process"}'

    def other_process_first(target: Path, data: bytes, **kwargs: Any) -> None:
        if target.parent.name == "attempts":
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(theirs)
        real(target, data, **kwargs)

    monkeypatch.setattr(store_module, "write_once", other_process_first)
    runs = tmp_path / "runs"
    args = ["run", "--tasks", str(MINI / "tasks"), "--target",
            str(MINI / "targets" / "good.yaml"), "--runs-dir", str(runs), "--progress", "none",
            "--env-file", str(tmp_path / "none.env")]  # fmt: skip
    status, _, err = _bench(args, capsys)
    line = _one_error(err)
    assert line.startswith("error[ATTEMPT_EXISTS]: "), line
    assert status == 4, line
    assert "another bench process is writing this run at the same time?" in line
    assert "--resume the run to finish what is left" in line
    written = list(runs.glob("*/attempts/*.json"))
    assert written and all(path.read_bytes() == theirs for path in written)


def test_a_stopped_run_names_the_attempt_files_on_disk_not_the_events_told(
    tmp_path: Path,
) -> None:
    """Attempts written in parallel when a run stops (Ctrl-C, a full disk) can be on disk
    before their progress event: the line said 52 of 86 with 54 files there."""
    from bench.cli.run_cmd import _Tracked
    from bench.runner import NullProgress

    tracked = _Tracked(NullProgress(), tmp_path)
    tracked.started("20261207T000000Z-abcdef", 86, 0)
    attempts = tmp_path / "20261207T000000Z-abcdef" / "attempts"
    attempts.mkdir(parents=True)
    for name in ("a--r0.json", "b--r0.json", "c--r0.json", ".tmp-x.part"):
        (attempts / name).write_text("{}")
    tracked.done = 2
    assert tracked.written() == 3
