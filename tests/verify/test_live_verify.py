"""``bench verify --live --endpoint-allowlist FILE`` against the real mock server on 127.0.0.1.

The bundle comes from a real run of the grounded-qa family (public split, 40 tasks; the mock
policy passes some and fails others) through an ``openai`` target that needs an API key, bundled
and signed. The mock server is deterministic, so a re-run on the same URL reproduces the claim;
the live tests start a fresh server on the same port (the bundle's ``endpoint_id`` hashes the
full URL), sometimes with a fault plan that changes the answers. No internet, no real keys.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.cli.main import cli
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.stats import sign_flip_pvalue as stats_sign_flip
from bench.testing.keys import write_private_key
from bench.testing.mock_server import MockServer
from bench.verify import VerifyOptions
from bench.verify import live_run as live_run_module
from bench.verify.codes import LIVE_CODES, UNUSABLE, Code
from bench.verify.failure import VerifyFailure
from bench.verify.live import LiveOptions, decide, sample_tasks, verify_live
from bench.verify.live_allowlist import load_allowlist
from bench.verify.live_stats import sign_flip_pvalue, smallest_rejectable
from bench.verify.records import load_run

REPO = Path(__file__).resolve().parents[2]
ENTRANT = "live-bot"
KEY_ENV = "BENCH_TEST_LIVE_KEY"
FAST_RETRY: dict[str, Any] = {"max_attempts": 2, "base_s": 0.01, "cap_s": 0.02, "seed": 7}
FAST_TIMEOUTS: dict[str, Any] = {"connect_s": 1, "read_s": 5, "request_s": 5, "deadline_s": 10}
SAMPLE = 20


# -- the bundle: one real run against the mock server, signed ---------------------------------


@dataclass(frozen=True)
class Live:
    base: Path
    tasks: Path
    run: Path  # the run directory the bundle was made from
    bundle: Path
    key_file: Path
    port: int
    url: str  # the full base URL the run used (…/v1)
    secret: str


def _private_key_file(path: Path, key: Ed25519PrivateKey) -> Path:
    write_private_key(path, key)
    return path


def _first_sentences(corpora: Path) -> None:
    """Cut every passage to its first sentence. The mock answers with the top passage whole,
    and a pasted passage of 20 words or more is not an answer (docs/SCORING.md, "The answer as
    a whole"); on one-sentence passages it passes the tasks whose fact is in that sentence."""
    for doc in corpora.glob("*.md"):
        kept: list[str] = []
        for section in re.split(r"(?m)^(?=## )", doc.read_text(encoding="utf-8")):
            head, _, body = section.partition("\n")
            if head.startswith("## "):
                sentence = re.split(r"(?<=[.!?])\s", " ".join(body.split()), maxsplit=1)[0]
                section = f"{head}\n\n{sentence}\n\n"
            kept.append(section)
        doc.write_text("".join(kept), encoding="utf-8")


def _keep_passes_and_as_many_failures(tasks: Path, run: RunDir) -> None:
    """Keep the public tasks the mock passed and as many it failed (ids in order), so that any
    sample of ``SAMPLE`` holds passes and failures in proportions the p-value tests need."""
    passed = {r.task_id for r in run.attempts() if r.passed}
    path = tasks / "grounded-qa.public.yaml"
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    failed = [t["id"] for t in document["tasks"] if t["id"] not in passed][: len(passed)]
    keep = passed | set(failed)
    assert len(keep) >= SAMPLE
    document["tasks"] = [t for t in document["tasks"] if t["id"] in keep]
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), "utf-8")
    shutil.rmtree(run.path)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Live:
    base = tmp_path_factory.mktemp("live-verify")
    (base / "tasks").mkdir()
    for source in sorted((REPO / "tasks").glob("grounded-qa.*.yaml")):
        shutil.copy(source, base / "tasks" / source.name)
    shutil.copytree(REPO / "corpora", base / "corpora")
    _first_sentences(base / "corpora")
    key = Ed25519PrivateKey.generate()
    key_file = _private_key_file(base / "entrant-key", key)
    (base / "submissions").mkdir()
    (base / "submissions" / "allowed_signers").write_text(
        signer_line(ENTRANT, public_line(key.public_key())) + "\n"
    )
    secret = "sk-live-" + secrets.token_hex(16)
    with MockServer(api_key=secret, max_seconds=120) as server, pytest.MonkeyPatch.context() as mp:
        mp.setenv(KEY_ENV, secret)
        url = server.url + "/v1"
        target = base / "target.yaml"
        target.write_text(
            yaml.safe_dump(
                {
                    "format_version": 1,
                    "kind": "openai",
                    "entrant": ENTRANT,
                    "display_name": "Live bot",
                    "model": "bench-mock",
                    "base_url": url,
                    "api_key_env": KEY_ENV,
                    "params": {"temperature": 0},
                    "retry": FAST_RETRY,
                    "timeouts": FAST_TIMEOUTS,
                }
            )
        )
        request = RunRequest(
            tasks=base / "tasks",
            target_file=target,
            runs_dir=base / "runs",
            split="public",
            concurrency=8,
        )
        first, _ = start_run(request)
        _keep_passes_and_as_many_failures(base / "tasks", first)
        run, status = start_run(request)
        port = server.port
    assert status.status == "complete"
    bundle = build_bundle(
        run,
        entrant=ENTRANT,
        key_file=key_file,
        out_root=base / "results",
        allowed_signers=base / "submissions" / "allowed_signers",
    )
    return Live(base, base / "tasks", run.path, bundle, key_file, port, url, secret)


@dataclass(frozen=True)
class World:
    root: Path
    results: Path
    signers: Path
    bundle: Path
    allowlist: Path
    temp: Path  # every temp directory of the verifier goes here


def _make_world(live: Live, root: Path, bundle_source: Path) -> World:
    results = root / "results"
    bundle = results / ENTRANT / bundle_source.name
    shutil.copytree(bundle_source, bundle)
    shutil.copytree(live.base / "submissions", root / "submissions")
    allowlist = root / "submissions" / "endpoints.yaml"
    write_allowlist(allowlist, {ENTRANT: [endpoint(live.url)]})
    return World(root, results, root / "submissions" / "allowed_signers", bundle, allowlist, root)


@pytest.fixture
def world(live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A private results/ + submissions/ (with an allow-list naming the run's endpoint), the
    key in the environment, and temp directories under ``temp`` so their removal is visible."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv(KEY_ENV, live.secret)
    made = _make_world(live, tmp_path / "w", live.bundle)
    return World(made.root, made.results, made.signers, made.bundle, made.allowlist, temp)


def endpoint(url: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "openai",
        "base_url": url,
        "model": "bench-mock",
        "api_key_env": KEY_ENV,
        "concurrency": 4,
        "retry": FAST_RETRY,
        "timeouts": FAST_TIMEOUTS,
    }
    data.update(changes)
    return data


def write_allowlist(path: Path, entrants: dict[str, list[dict[str, Any]]]) -> Path:
    path.write_text(yaml.safe_dump({"format_version": 1, "entrants": entrants}), encoding="utf-8")
    return path


@contextmanager
def serve(live: Live, **options: Any) -> Iterator[MockServer]:
    """A fresh mock server on the port the bundle recorded (so the same endpoint_id)."""
    for _ in range(50):
        try:
            server = MockServer(port=live.port, api_key=live.secret, max_seconds=120, **options)
            server.start()
            break
        except RuntimeError:  # the port is still being released
            time.sleep(0.1)
    else:
        raise RuntimeError(f"port {live.port} did not come free")
    try:
        yield server
    finally:
        server.stop()


def tree_hash(*roots: Path) -> str:
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            digest.update(str(path.relative_to(root)).encode())
            if path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.stdout)
        return value


def run_verify(
    live: Live, world: World, *extra: str, fmt: str = "json", sample: int = SAMPLE
) -> Outcome:
    """``bench verify BUNDLE --live …`` through the real CLI group; checks that nothing under
    results/ or submissions/ changed and that every temp directory is gone."""
    before = tree_hash(world.results, world.root / "submissions")
    args = [
        "verify",
        str(world.bundle),
        "--results-root",
        str(world.results),
        "--allowed-signers",
        str(world.signers),
        "--tasks",
        str(live.tasks),
        "--live",
        "--endpoint-allowlist",
        str(world.allowlist),
        "--live-sample",
        str(sample),
        "--format",
        fmt,
        *extra,
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert tree_hash(world.results, world.root / "submissions") == before
    assert list(world.temp.iterdir()) == []
    return Outcome(result.exit_code, result.stdout, result.stderr)


# -- decisions against the mock server ----------------------------------------------------------


def test_a_consistent_endpoint_passes(live: Live, world: World) -> None:
    with serve(live) as server:
        out = run_verify(live, world)
    assert out.exit_code == 0, out.stdout + out.stderr
    data = out.data
    assert data["valid"] and data["code"] is None and data["checks"][-1] == "live"
    check = data["live"]
    assert check["decision"] == "consistent" and check["n"] == SAMPLE
    assert check["excluded"] == [] and len(check["sampled"]) == SAMPLE
    assert 0 < check["claimed_passes"] < SAMPLE  # the sample holds passes and failures
    assert check["live_passes"] == check["claimed_passes"]
    assert (check["live_better"], check["live_worse"]) == (0, 0)
    assert check["p_value"] == 1.0 and check["alpha"] == 0.01
    assert check["claimed_rate"] == check["live_rate"] == check["claimed_passes"] / SAMPLE
    assert check["endpoint"] == f"http://127.0.0.1:{live.port}"
    calls = server.model_requests()
    assert len(calls) == check["requests"] > 0
    assert {r.path for r in calls} == {"/v1/chat/completions"}


def test_the_seed_option_draws_the_sample(live: Live, world: World) -> None:
    with serve(live):
        five = run_verify(live, world, "--seed", "5", sample=4).data["live"]["sampled"]
        six = run_verify(live, world, "--seed", "6", sample=4).data["live"]["sampled"]
    run = load_run(world.bundle)
    public = set(run.config.task_set.task_ids)  # a public-split run
    assert five == sample_tasks(run, public, 4, seed=5) and len(five) == 4
    assert six == sample_tasks(run, public, 4, seed=6) and six != five


def test_without_a_seed_the_sample_is_drawn_fresh_and_named(live: Live, world: World) -> None:
    """Without ``--seed`` the live sample's seed is fresh, not derived from the bundle and a
    commit (known before a merge from the base tip: a submitter could re-sign until the
    sample missed the tasks they faked); the reason names it, and ``--seed`` redraws it."""
    with serve(live):
        first = run_verify(live, world, sample=4).data["live"]
        again = run_verify(live, world, sample=4).data["live"]
        seeds = [
            int(re.findall(r"sample seed (\d+), drawn fresh", c["reason"])[0])
            for c in (first, again)
        ]
        redrawn = run_verify(live, world, "--seed", str(seeds[0]), sample=4).data["live"]
    assert seeds[0] != seeds[1]
    assert redrawn["sampled"] == first["sampled"]
    assert f"sample seed {seeds[0]}, given" in redrawn["reason"]


def test_a_changed_endpoint_is_rejected_as_inconsistent_with_its_p_value(
    live: Live, world: World
) -> None:
    # badargs: every tool call's arguments are broken JSON, so no answer is grounded any more
    # (scored failures, not errors).
    with serve(live, faults=["badargs"]):
        out = run_verify(live, world)
        # the same tasks again: the first run's fresh seed, named in its reason
        seed = re.findall(r"sample seed (\d+), drawn fresh", out.data["live"]["reason"])[0]
        text = run_verify(live, world, "--seed", seed, fmt="text")
    assert out.exit_code == 1 and text.exit_code == 1
    data = out.data
    assert data["code"] == Code.LIVE_INCONSISTENT.value and data["field"] == "live"
    check = data["live"]
    assert check["decision"] == "inconsistent" and check["live_passes"] == 0
    claimed = check["claimed_passes"]
    assert claimed >= smallest_rejectable(0.01)
    assert check["live_worse"] == claimed and check["live_better"] == 0
    assert check["p_value"] == pytest.approx(2 * 0.5**claimed) and check["p_value"] < 0.01
    p = f"{check['p_value']:.4g}"
    assert "error[LIVE_INCONSISTENT]" in text.stderr and f"p = {p}" in text.stderr
    assert f"claimed {claimed}/{SAMPLE}" in text.stderr and "live 0/" in text.stderr


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"path": "/other/v1"}, id="another-url-on-the-same-server"),
        pytest.param({"model": "bench-mock-parallel"}, id="another-model"),
        pytest.param({"kind": "anthropic", "path": ""}, id="another-kind"),
    ],
)
def test_a_bundle_whose_endpoint_is_not_allowed_is_refused_before_any_request(
    live: Live, world: World, change: dict[str, str]
) -> None:
    server_root = f"http://127.0.0.1:{live.port}"
    fields = {k: v for k, v in change.items() if k != "path"}
    url = server_root + change["path"] if "path" in change else live.url
    write_allowlist(world.allowlist, {ENTRANT: [endpoint(url, **fields)]})
    with serve(live) as server:
        out = run_verify(live, world)
        assert server.requests() == []
    assert out.exit_code == 1
    data = out.data
    assert data["code"] == Code.LIVE_ENDPOINT_NOT_ALLOWED.value and data["live"] is None
    assert data["field"] == "target.endpoint_id"
    assert "allowed for 'live-bot'" in data["message"]


def test_an_entrant_missing_from_the_allowlist_is_not_rerun(live: Live, world: World) -> None:
    write_allowlist(world.allowlist, {"someone-else": [endpoint(live.url)]})
    with serve(live) as server:
        out = run_verify(live, world)
        assert server.requests() == []
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_ENTRANT_NOT_LISTED.value
    assert out.data["field"] == "entrants.live-bot"


def test_a_url_named_by_the_bundle_is_never_called(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entrant signs a bundle whose recorded base URL is its own decoy server (keeping the
    allow-listed endpoint_id): the live check still calls only the allow-listed URL."""
    monkeypatch.setenv(KEY_ENV, live.secret)
    with MockServer(api_key=live.secret, max_seconds=120) as decoy:
        runs = tmp_path / "runs"
        shutil.copytree(live.run, runs / live.run.name)
        config_file = runs / live.run.name / "config.json"
        config_file.chmod(0o644)
        config = json.loads(config_file.read_text())
        config["target"]["base_url"] = decoy.url
        config_file.write_text(json.dumps(config))
        forged = build_bundle(
            RunDir(runs / live.run.name),
            entrant=ENTRANT,
            key_file=live.key_file,
            out_root=tmp_path / "forged",
            allowed_signers=live.base / "submissions" / "allowed_signers",
        )
        assert json.loads((forged / "target.json").read_text())["base_url"] == decoy.url
        temp = tmp_path / "tmp"
        temp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
        made = _make_world(live, tmp_path / "w", forged)
        world = World(made.root, made.results, made.signers, made.bundle, made.allowlist, temp)
        with serve(live) as allowed:
            out = run_verify(live, world, sample=5)
            assert len(allowed.model_requests()) > 0
        assert decoy.requests() == []
    assert out.exit_code == 0 and out.data["live"]["decision"] == "consistent"


def test_an_unreachable_endpoint_could_not_be_rerun_and_is_not_called_cheating(
    live: Live, world: World
) -> None:
    out = run_verify(live, world)  # nothing listens on the recorded port
    assert out.exit_code == 2
    data = out.data
    assert data["code"] == Code.LIVE_RERUN_FAILED.value
    check = data["live"]
    assert check["decision"] == "could not re-run" and check["p_value"] is None
    assert check["n"] == 0 and len(check["excluded"]) == SAMPLE
    assert "ENDPOINT_UNREACHABLE" in check["reason"]
    assert "not a verdict on the entrant" in data["message"]
    assert "inconsistent" not in data["message"]
    # After the first unreachable calls the rest are not tried.
    assert check["requests"] <= 4


def test_an_endpoint_that_now_declares_another_server_is_not_rerun(
    live: Live, world: World
) -> None:
    recorded = load_run(world.bundle).config.server
    assert recorded is not None and recorded["engine"] == "bench-mock"
    with serve(live, version="2", context_window=4096) as server:
        out = run_verify(live, world)
        assert server.model_requests() == []  # decided on the probe, before any model call
    assert out.exit_code == 2
    data = out.data
    assert data["code"] == Code.LIVE_SERVER_CHANGED.value and data["live"] is None
    assert "version 2, context_window 4096" in data["message"]
    assert f"version {recorded['version']}" in data["message"]
    assert "another configuration" in data["message"]


def test_an_endpoint_whose_every_answer_errors_could_not_be_rerun(live: Live, world: World) -> None:
    with serve(live, faults=["empty"]):
        out = run_verify(live, world)
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_RERUN_FAILED.value
    assert "ENTRANT_EMPTY_RESPONSE" in out.data["live"]["reason"]


def test_max_requests_caps_the_rerun(live: Live, world: World) -> None:
    write_allowlist(world.allowlist, {ENTRANT: [endpoint(live.url, max_requests=5)]})
    with serve(live) as server:
        out = run_verify(live, world, sample=10)
        assert len(server.model_requests()) == 5
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_RERUN_FAILED.value
    assert "max_requests (5) ran out" in out.data["live"]["reason"]


def test_requests_per_minute_spaces_the_model_calls(live: Live, world: World) -> None:
    write_allowlist(world.allowlist, {ENTRANT: [endpoint(live.url, requests_per_minute=600)]})
    with serve(live) as server:
        out = run_verify(live, world, sample=3)
        times = [r.at for r in server.model_requests()]
    assert out.exit_code == 0, out.stdout
    assert len(times) == out.data["live"]["requests"] >= 3
    # 60 / 600 = 0.1 s between calls. The server stamps a request when it reads it, which lags
    # the send (most for the first call, which opens the client), so the span from the second
    # call on is checked, with 50 ms of slack; without the limit it is a few milliseconds.
    assert times[-1] - times[1] >= 0.1 * (len(times) - 2) - 0.05


# -- keys ------------------------------------------------------------------------------------------


def test_the_key_comes_from_the_named_variable_and_is_never_written(
    live: Live, world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The allow-list names another variable than the run used; only that one holds the key.
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.setenv("BENCH_TEST_MAINTAINER_KEY", live.secret)
    write_allowlist(
        world.allowlist,
        {ENTRANT: [endpoint(live.url, api_key_env="BENCH_TEST_MAINTAINER_KEY")]},
    )
    kept = tmp_path / "kept"
    real_execute = live_run_module.execute

    async def keep_scratch(plan: Any, progress: Any = None) -> Any:
        status = await real_execute(plan, progress)
        shutil.copytree(plan.run.path.parent.parent, kept / plan.run.run_id)
        return status

    monkeypatch.setattr(live_run_module, "execute", keep_scratch)
    outputs = []
    with serve(live) as server:
        for fmt in ("text", "json", "markdown"):
            out = run_verify(live, world, fmt=fmt, sample=4)
            assert out.exit_code == 0, out.stdout + out.stderr
            outputs.append(out.stdout + out.stderr)
        calls = server.model_requests()
    assert calls and {r.headers.get("authorization") for r in calls} == {f"Bearer {live.secret}"}
    markdown = outputs[2]
    assert "| live decision | **consistent** |" in markdown and "| p-value | 1 (alpha 0.01) |" in (
        markdown
    )
    assert "live: consistent" in outputs[0] and "p = 1" in outputs[0]
    for text in outputs:
        assert live.secret not in text
    written = [p for p in kept.rglob("*") if p.is_file()]
    assert len(written) > 3 and any(p.name == "target.json" for p in written)
    for path in written:
        assert live.secret.encode() not in path.read_bytes(), path
    target = json.loads(next(p for p in written if p.name == "target.json").read_text())
    assert target["api_key_env"] == "BENCH_TEST_MAINTAINER_KEY" and "api_key" not in target


def test_a_key_variable_that_is_not_set_stops_before_any_request(
    live: Live, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with serve(live) as server:
        out = run_verify(live, world)
        assert server.requests() == []
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_KEY_MISSING.value
    assert out.data["field"] == "entrants.live-bot[0].api_key_env"
    assert KEY_ENV in out.data["message"]


def test_a_wrong_key_could_not_rerun_and_is_not_echoed(
    live: Live, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "sk-wrong-" + secrets.token_hex(8)
    monkeypatch.setenv(KEY_ENV, wrong)
    with serve(live):  # its 401 body quotes the key it was given, as real providers do
        out = run_verify(live, world, sample=3)
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_RERUN_FAILED.value
    assert "ENDPOINT_AUTH" in out.data["live"]["reason"]
    assert wrong not in out.stdout + out.stderr


# -- the allow-list ---------------------------------------------------------------------------


def test_a_malformed_allowlist_is_refused_with_its_code(live: Live, world: World) -> None:
    world.allowlist.write_text("format_version: 1\nentrants:\n  live-bot: [{kind: openai}]\n")
    with serve(live) as server:
        out = run_verify(live, world)
        assert server.requests() == []
    assert out.exit_code == 2
    assert out.data["code"] == Code.LIVE_ALLOWLIST_INVALID.value
    assert out.data["path"] == str(world.allowlist)
    assert out.data["field"].startswith("entrants.live-bot[0].")


GOOD = {
    "kind": "openai",
    "base_url": "https://api.example.org/v1",
    "model": "m",
    "api_key_env": "K",
}


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("format_version: 1\nentrants: {a: [GOOD]}\nextra: 1\n", "extra", "unknown field"),
        ("entrants: {a: [GOOD]}\n", "format_version", "required"),
        ("format_version: 2\nentrants: {a: [GOOD]}\n", "format_version", ""),
        ("format_version: 1\nentrants: {a: []}\n", "entrants.a", "at least 1"),
        ("format_version: 1\nentrants: {Not_An_Id: [GOOD]}\n", "entrants", "'Not_An_Id'"),
        ("format_version: 1\nentrants: {a: [GOOD, GOOD]}\n", None, "twice"),
        ("- a\n- b\n", None, "a mapping"),
        ("format_version: 1\nformat_version: 1\nentrants: {}\n", None, "duplicate key"),
        ("format_version: 1\nentrants:\n  a: &x [GOOD]\n  b: *x\n", None, "anchors"),
        ("format_version: 1\nentrants: !!python/object:os.system {}\n", None, "YAML"),
    ],
)
def test_allowlist_files_that_break_the_format(
    tmp_path: Path, text: str, field: str | None, words: str
) -> None:
    path = tmp_path / "endpoints.yaml"
    path.write_text(text.replace("GOOD", json.dumps(GOOD)))
    with pytest.raises(VerifyFailure) as caught:
        load_allowlist(path)
    assert caught.value.verify_code == Code.LIVE_ALLOWLIST_INVALID
    assert caught.value.exit_code == 2 and caught.value.path == str(path)
    if field is not None:
        assert (caught.value.field or "").startswith(field), caught.value.field
    assert words in caught.value.message, caught.value.message


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"api_key": "sk-123"}, "api_key", "unknown field"),
        ({"api_key_env": None, "drop": "api_key_env"}, "api_key_env", "required"),
        ({"api_key_env": "has space"}, "api_key_env", ""),
        ({"kind": "http-agent"}, "kind", ""),
        ({"base_url": "https://user:pw@api.example.org/v1"}, "base_url", "credentials"),
        ({"base_url": "https://api.example.org/v1?key=abc"}, "base_url", "query"),
        ({"base_url": "ftp://api.example.org"}, "base_url", "http"),
        ({"base_url": "https://api.example.org:99999/v1"}, "base_url", "port"),
        ({"max_requests": 0}, "max_requests", ""),
        ({"requests_per_minute": 0}, "requests_per_minute", ""),
        ({"concurrency": 100}, "concurrency", ""),
        ({"retry": {"tries": 3}}, "retry.tries", "unknown field"),
    ],
)
def test_allowlist_endpoints_that_break_the_model(
    tmp_path: Path, change: dict[str, Any], field: str, words: str
) -> None:
    entry = {**GOOD, **{k: v for k, v in change.items() if k != "drop"}}
    if "drop" in change:
        del entry[change["drop"]]
    path = write_allowlist(tmp_path / "endpoints.yaml", {"a": [entry]})
    with pytest.raises(VerifyFailure) as caught:
        load_allowlist(path)
    assert caught.value.verify_code == Code.LIVE_ALLOWLIST_INVALID
    assert caught.value.field == f"entrants.a[0].{field}", caught.value.field
    assert words in caught.value.message, caught.value.message


def test_a_missing_allowlist_and_a_null_key_variable(tmp_path: Path) -> None:
    with pytest.raises(VerifyFailure) as caught:
        load_allowlist(tmp_path / "nowhere.yaml")
    assert caught.value.verify_code == Code.LIVE_ALLOWLIST_INVALID
    assert "FILE_MISSING" in caught.value.message
    # api_key_env: null is an explicit "this endpoint takes no key".
    path = write_allowlist(tmp_path / "ok.yaml", {"a": [{**GOOD, "api_key_env": None}]})
    [allowed] = load_allowlist(path).entrants["a"]
    assert allowed.api_key_env is None and allowed.concurrency == 1
    assert allowed.shown_url == "https://api.example.org"


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def test_with_base_ref_the_allowlist_comes_from_the_commit_not_the_working_tree(
    live: Live, world: World
) -> None:
    _git(world.root, "init", "-q", "-b", "main")
    _git(world.root, "add", "submissions")
    _git(world.root, "commit", "-q", "-m", "keys and endpoints")
    # The change under review rewrites the allow-list to point the entrant elsewhere.
    write_allowlist(world.allowlist, {ENTRANT: [endpoint("http://127.0.0.1:9/v1")]})
    options = VerifyOptions(
        results_root=world.results,
        tasks=live.tasks,
        replay_sample=1,
        base_ref="HEAD",
        git_dir=world.root,
    )
    relative = LiveOptions(Path("submissions/endpoints.yaml"), sample=3)
    with serve(live) as server:
        result = verify_live(world.bundle, options, relative)
        assert len(server.model_requests()) > 0
    assert result.valid and result.live is not None
    assert result.live.decision == "consistent"
    missing = LiveOptions(Path("submissions/not-there.yaml"), sample=3)
    refused = verify_live(world.bundle, options, missing)
    assert refused.verdict.code == Code.LIVE_ALLOWLIST_INVALID
    assert refused.verdict.path == "HEAD:submissions/not-there.yaml"


# -- the CLI and the offline verdict first ------------------------------------------------------


def test_an_invalid_bundle_is_never_rerun(live: Live, world: World) -> None:
    cassette = world.bundle / "cassette.jsonl"
    cassette.chmod(0o644)
    cassette.write_bytes(cassette.read_bytes() + b"\n")
    with serve(live) as server:
        out = run_verify(live, world)
        assert server.requests() == []
    assert out.exit_code == 1
    assert out.data["code"] == "FILE_SIZE_MISMATCH" and out.data["live"] is None


@pytest.mark.parametrize(
    "args",
    [
        ["--live"],
        ["--endpoint-allowlist", "x.yaml"],
        ["--live-sample", "5"],
        ["--live-alpha", "0.05"],
    ],
)
def test_live_options_need_each_other(tmp_path: Path, args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "nothing"), *args])
    assert result.exit_code == 2
    assert "error[USAGE]" in result.stderr


def test_cli_bounds_on_sample_and_alpha(tmp_path: Path) -> None:
    for args in (["--live-sample", "0"], ["--live-alpha", "1"], ["--live-alpha", "0"]):
        result = CliRunner().invoke(cli, ["verify", "x", "--live", *args])
        assert result.exit_code == 2, args


# -- the test and the decision rule, without a server -------------------------------------------


def test_sign_flip_known_answers() -> None:
    assert sign_flip_pvalue([1] * 7 + [-1]) == pytest.approx(0.0703125)
    assert sign_flip_pvalue([1] * 8) == 0.0078125
    assert sign_flip_pvalue([]) == 1.0 and sign_flip_pvalue([0, 0, 0]) == 1.0
    assert sign_flip_pvalue([-1] * 3) == 0.25
    assert smallest_rejectable(0.01) == 8 and smallest_rejectable(0.05) == 6
    assert 2 * 0.5**8 < 0.01 <= 2 * 0.5**7


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=-3, max_value=3), max_size=14))
def test_sign_flip_agrees_with_the_stats_package(differences: list[int]) -> None:
    assert sign_flip_pvalue(differences) == pytest.approx(stats_sign_flip(differences), abs=1e-12)


def _record(task_id: str, passed: bool | None, outcome: str = "scored", reason: str = "") -> Any:
    return SimpleNamespace(task_id=task_id, passed=passed, outcome=outcome, reason=reason or None)


def _run(claimed: dict[str, list[bool | None]], repeats: int = 1) -> Any:
    attempts = [_record(t, p) for t, passes in claimed.items() for p in passes]
    config = SimpleNamespace(repeats=repeats, task_set=SimpleNamespace(task_ids=list(claimed)))
    return SimpleNamespace(config=config, attempts=attempts)


def test_a_claimed_rate_of_one_survives_one_live_failure() -> None:
    ids = [f"t{i}" for i in range(10)]
    run = _run({t: [True] for t in ids})
    live = [_record(t, t != "t3") for t in ids]
    found = decide(run, ids, live, 0.01)
    assert (found.decision, found.p_value, found.live_worse) == ("consistent", 1.0, 1)
    assert (found.claimed_rate, found.live_rate) == (1.0, 0.9)


def test_a_live_rate_better_than_claimed_is_inconsistent_too() -> None:
    ids = [f"t{i}" for i in range(10)]
    run = _run({t: [False] for t in ids})
    found = decide(run, ids, [_record(t, True) for t in ids], 0.01)
    assert found.decision == "inconsistent" and found.p_value == 2 * 0.5**10
    assert found.live_better == 10 and "below alpha" in found.reason


def test_errors_can_neither_convict_nor_acquit() -> None:
    ids = [f"t{i}" for i in range(30)]
    run = _run({t: [True] for t in ids})
    errored = {f"t{i}" for i in range(7)}
    failing = {"t10", "t11"}
    live = [
        _record(t, False, "errored", "ENDPOINT_SERVER_ERROR: 503")
        if t in errored
        else _record(t, t not in failing)
        for t in ids
    ]
    found = decide(run, ids, live, 0.01)
    assert found.p_value == 0.5  # the two compared failures alone prove nothing
    assert found.p_value_errors_as_failures == 2 * 0.5**9  # with the errors, they would
    assert found.decision == "could not re-run" and "ENDPOINT_SERVER_ERROR ×7" in found.reason
    assert found.n == 23 and len(found.excluded) == 7
    too_many = [_record(t, False, "errored", "ENDPOINT_TIMEOUT: x") for t in ids[:8]]
    found = decide(run, ids, too_many + live[8:], 0.01)
    assert found.decision == "could not re-run" and "8 of 30" in found.reason


def test_repeats_are_summed_per_task() -> None:
    ids = ["a", "b", "c"]
    run = _run({"a": [True, True], "b": [True, False], "c": [False, False]}, repeats=2)
    live = [_record(t, p) for t, p in [("a", True), ("a", False), ("b", True), ("b", False)]]
    live += [_record("c", False), _record("c", False)]
    found = decide(run, ids, live, 0.01)
    assert (found.claimed_passes, found.live_passes) == (3, 2)
    assert found.p_value == 1.0 and found.decision == "consistent"
    assert found.claimed_rate == 0.5 and found.live_rate == pytest.approx(1 / 3)


def test_the_sample_is_seeded_public_and_decided() -> None:
    claimed: dict[str, list[bool | None]] = {f"t{i}": [True] for i in range(12)}
    claimed["t5"] = [None]  # not scorable: nothing to compare with
    run = _run(claimed)
    public = {f"t{i}" for i in range(10)}
    first = sample_tasks(run, public, 4, seed=3)
    assert first == sample_tasks(run, public, 4, seed=3)
    assert len(first) == 4 and set(first) <= public - {"t5"}
    assert sample_tasks(run, public, 100, seed=3) == [f"t{i}" for i in range(10) if i != 5]


def test_live_codes_are_unusable_except_the_two_verdicts_on_the_bundle() -> None:
    invalid = {Code.LIVE_INCONSISTENT, Code.LIVE_ENDPOINT_NOT_ALLOWED}
    assert {c for c in LIVE_CODES if c not in UNUSABLE} == invalid


# Which test asserts each live code (a new code without a test fails here).
EXERCISED: dict[Code, str] = {
    Code.LIVE_ALLOWLIST_INVALID: "test_a_malformed_allowlist_is_refused_with_its_code",
    Code.LIVE_ENTRANT_NOT_LISTED: "test_an_entrant_missing_from_the_allowlist_is_not_rerun",
    Code.LIVE_ENDPOINT_NOT_ALLOWED: (
        "test_a_bundle_whose_endpoint_is_not_allowed_is_refused_before_any_request"
    ),
    Code.LIVE_KEY_MISSING: "test_a_key_variable_that_is_not_set_stops_before_any_request",
    Code.LIVE_RERUN_FAILED: (
        "test_an_unreachable_endpoint_could_not_be_rerun_and_is_not_called_cheating"
    ),
    Code.LIVE_SERVER_CHANGED: "test_an_endpoint_that_now_declares_another_server_is_not_rerun",
    Code.LIVE_INCONSISTENT: "test_a_changed_endpoint_is_rejected_as_inconsistent_with_its_p_value",
}


def test_every_live_code_is_exercised() -> None:
    assert set(EXERCISED) == set(LIVE_CODES)
    module = sys.modules[__name__]
    for code, name in EXERCISED.items():
        source = inspect.getsource(getattr(module, name))
        assert f"Code.{code.name}" in source, (code, name)
