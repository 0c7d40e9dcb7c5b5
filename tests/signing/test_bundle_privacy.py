"""A bundle publishes no secret and no local path (docs/SUBMISSIONS.md, "Secrets and local
paths"): real runs made from a distinctive home directory, with a real key, against the mock
OpenAI-compatible server, are bundled and every byte of every file is searched; a target that
plants the key in its params is refused at run start; ``bench bundle`` refuses a run that holds
a secret; ``bench verify``'s ``check_privacy`` fails what the rules forbid and passes the rest."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.core.errors import InputError
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.mock_server import MockServer
from bench.verify.codes import Code
from bench.verify.failure import VerifyFailure
from bench.verify.privacy import check_privacy
from bench.verify.records import load_run
from bench.verify.verifier import VerifyOptions, verify_bundle

MINI = Path(__file__).resolve().parent.parent / "fixtures" / "mini"
USER = "zq-distinctive-user-7731"
KEY_ENV = "ZQ_BENCH_PRIVACY_KEY"
KEY = "zq-planted-key-7731-3f9c2e41d8b6a0"
ENTRANT = "zq-privacy"
FAST_RETRY: dict[str, Any] = {"max_attempts": 2, "base_s": 0.01, "cap_s": 0.05, "seed": 7}
FAST_TIMEOUTS: dict[str, Any] = {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10}


@dataclasses.dataclass(frozen=True)
class Home:
    root: Path  # the pytest temp dir: nothing under it may be published
    home: Path  # $HOME, .../home/zq-distinctive-user-7731
    cwd: Path  # the working directory, $HOME/proj
    key_file: Path
    signers: Path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    home = tmp_path / "xyz" / "home" / USER
    cwd = home / "proj"
    shutil.copytree(MINI, cwd / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    key = Ed25519PrivateKey.generate()
    key_file = home / ".ssh" / "bench_ed25519"
    key_file.parent.mkdir(parents=True)
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    signers = cwd / "submissions" / "allowed_signers"
    signers.parent.mkdir()
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(cwd)
    return Home(tmp_path, home, cwd, key_file, signers)


def _target(where: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "format_version": 1,
        "kind": "openai",
        "entrant": ENTRANT,
        "display_name": "privacy bot",
        "model": "bench-mock",
        "api_key_env": KEY_ENV,
        "params": {"temperature": 0},
        "retry": FAST_RETRY,
        "timeouts": FAST_TIMEOUTS,
    }
    data.update(fields)
    data = {name: value for name, value in data.items() if value is not None}  # None: unset
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return where


def _run(home: Home, target: Path) -> RunDir:
    """Every path absolute, as a script or a CI job would give them."""
    run, status = start_run(
        RunRequest(
            tasks=home.cwd / "mini" / "tasks",
            target_file=target,
            runs_dir=home.cwd / "runs",
            split="public",
            concurrency=1,
        )
    )
    assert status.status == "complete", status
    return run


def _bundle(home: Home, run: RunDir, out: str = "results") -> Path:
    return build_bundle(
        run,
        entrant=ENTRANT,
        key_file=home.key_file,
        out_root=home.cwd / out,
        allowed_signers=home.signers,
    )


def _every_byte(bundle: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(bundle.iterdir()):
        data = path.read_bytes()
        yield path.name, gzip.decompress(data) if path.name.endswith(".gz") else data


def _run_bytes(run: RunDir) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(run.path.rglob("*")) if p.is_file())


def _assert_private(home: Home, bundle: Path) -> None:
    needles = {
        "the key": KEY.encode(),
        "the user name": USER.encode(),
        "the home directory": str(home.home).encode(),
        "the temp directory": str(home.root).encode(),
    }
    for name, data in _every_byte(bundle):
        for what, needle in needles.items():
            assert needle not in data, f"{name} publishes {what}"
    check_privacy(bundle, load_run(bundle))  # and bench verify agrees


def test_a_bundle_publishes_neither_the_key_nor_a_local_path(home: Home) -> None:
    with MockServer(api_key=KEY, max_seconds=60) as server:
        target = _target(
            home.cwd / "mini" / "targets" / "live.yaml",
            base_url=server.url + "/v1",
            params={"temperature": 0, "max_tokens": 64},
            max_tokens_param="max_completion_tokens",
        )
        run = _run(home, target)
        sent = server.model_requests()
        assert sent and {r.headers["authorization"] for r in sent} == {f"Bearer {KEY}"}
    assert USER.encode() in _run_bytes(run)  # the run, local, says where it was made
    bundle = _bundle(home, run)
    _assert_private(home, bundle)
    config = json.loads((bundle / "config.json").read_text())
    assert config["task_set"]["path"] == "mini/tasks"
    assert config["target_file"] == "mini/targets/live.yaml"
    # A cap is not a credential: target.json keeps it, and the bundle replays and verifies.
    target_json = json.loads((bundle / "target.json").read_text())
    assert target_json == config["target"]
    assert target_json["params"] == {"temperature": 0, "max_tokens": 64}
    assert target_json["max_tokens_param"] == "max_completion_tokens"
    verdict = verify_bundle(
        bundle,
        VerifyOptions(
            results_root=home.cwd / "results",
            allowed_signers=home.signers,
            tasks=home.cwd / "mini" / "tasks",
            seed=0,
        ),
    )
    assert verdict.valid, (verdict.code, verdict.path, verdict.field, verdict.message)
    assert len(verdict.replayed) == 3


def test_error_reasons_and_cassette_paths_are_made_portable(home: Home) -> None:
    """A cassette outside the home directory that answers nothing: every attempt errors with
    a reason naming the cassette's absolute path, and the target records that path."""
    empty = home.root / "outside" / "empty.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    target = _target(
        home.home / "elsewhere" / "replay.yaml",  # under $HOME, outside the working directory
        kind="cassette",
        cassette=str(empty),
        api_key_env=None,
        retry=None,
        timeouts=None,
    )
    run = _run(home, target)
    records = list(run.attempts())
    assert records and all(r.outcome == "errored" for r in records)
    assert all(str(empty) in (r.reason or "") for r in records)
    bundle = _bundle(home, run, out="results-miss")
    _assert_private(home, bundle)
    config = json.loads((bundle / "config.json").read_text())
    assert config["target_file"] == "replay.yaml"  # ~/elsewhere/replay.yaml: its name only
    assert config["target"]["cassette"] == "empty.jsonl"
    lines = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes()).splitlines()
    reasons = [json.loads(line)["reason"] for line in lines]
    assert all("<local>/empty.jsonl" in reason for reason in reasons), reasons


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"temperature": 0, "api_key": KEY}, "params.api_key"),
        ({"temperature": 0, "metadata": {"note": KEY}}, "params.metadata.note"),
        ({"temperature": 0, "api_key": "not-the-key-but-named-so"}, "params.api_key"),
    ],
)
def test_a_key_planted_in_params_is_refused_at_run_start(
    home: Home, params: dict[str, Any], field: str
) -> None:
    with MockServer(api_key=KEY, max_seconds=60) as server:
        target = _target(
            home.cwd / "mini" / "targets" / "planted.yaml",
            base_url=server.url + "/v1",
            params=params,
        )
        with pytest.raises(InputError) as info:
            _run(home, target)
        assert server.requests() == []  # refused before the probe, before any model call
    assert (info.value.code, info.value.field) == ("TARGET_SECRET", field)
    assert info.value.path == str(target)
    assert KEY not in str(info.value)
    assert not (home.cwd / "runs").exists() or not any((home.cwd / "runs").iterdir())


def _scripted_run(home: Home, **fields: Any) -> RunDir:
    text = (home.cwd / "mini" / "targets" / "good.yaml").read_text()
    data = yaml.safe_load(text)
    data.update({"entrant": ENTRANT, **fields})
    target = home.cwd / "mini" / "targets" / "scripted.yaml"
    target.write_text(yaml.safe_dump(data), encoding="utf-8")
    return _run(home, target)


def _edit_json(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_bundle_refuses_a_run_whose_target_holds_a_secret(home: Home) -> None:
    """A run of an older version, made before bench run refused such targets."""
    run = _scripted_run(home)

    def plant(config: dict[str, Any]) -> None:
        for part in ("target", "comparable"):
            config[part]["params"]["client_secret"] = "s3cr3t-value"

    _edit_json(run.path / "config.json", plant)
    with pytest.raises(InputError) as info:
        _bundle(home, run)
    assert (info.value.code, info.value.field) == ("TARGET_SECRET", "target.params.client_secret")
    assert info.value.path == str(run.path / "config.json")
    assert "s3cr3t-value" not in str(info.value)
    assert not (home.cwd / "results").exists()


@pytest.mark.parametrize(
    "headers",
    [{"x-portkey-api-key": "s3cr3t-value"}, {"x-portkey-config": "sk-" + "A1b2" * 10}],
    ids=["named", "shaped"],
)
def test_bundle_refuses_a_run_whose_target_headers_hold_a_secret(
    home: Home, headers: dict[str, str]
) -> None:
    """A target's ``headers`` (a gateway's routing headers) are recorded with the run; a key
    planted there after the run started (or by a harness that did not check them) is refused
    at bundle time as one in ``params`` is, not published."""
    run = _scripted_run(home)

    def plant(config: dict[str, Any]) -> None:
        config["target"]["headers"] = headers

    _edit_json(run.path / "config.json", plant)
    with pytest.raises(InputError) as info:
        _bundle(home, run)
    assert info.value.code == "TARGET_SECRET", info.value
    assert (info.value.field or "").startswith("target.headers.x-portkey-"), info.value.field
    assert not any(value in str(info.value) for value in headers.values())
    assert not (home.cwd / "results").exists()


def test_bundle_refuses_a_run_whose_records_hold_the_key(home: Home) -> None:
    run = _scripted_run(home)
    _edit_json(run.path / "config.json", lambda c: c["target"].update(api_key_env=KEY_ENV))
    attempt = sorted((run.path / "attempts").iterdir())[0]
    _edit_json(attempt, lambda a: a.update(reason=f"the proxy said: bad key {KEY}"))
    with pytest.raises(InputError) as info:
        _bundle(home, run)
    assert info.value.code == "TARGET_SECRET" and KEY_ENV in info.value.message
    assert KEY not in str(info.value)
    assert not (home.cwd / "results").exists()


def test_bundle_refuses_a_local_path_it_cannot_rewrite(home: Home) -> None:
    """A model served under its file path (vLLM's default): every request carries it."""
    run = _scripted_run(home, model=f"{home.home}/models/llama-3-8b")
    with pytest.raises(InputError) as info:
        _bundle(home, run)
    assert info.value.code == "BUNDLE_LOCAL_PATH"
    assert info.value.field in ("target.model", "comparable.model")
    assert not (home.cwd / "results").exists()


def test_check_privacy_fails_secrets_and_local_paths(home: Home) -> None:
    run = _scripted_run(home)
    bundle = _bundle(home, run)
    loaded = load_run(bundle)
    check_privacy(bundle, loaded)
    config, status, first = loaded.config, loaded.status, loaded.attempts[0]

    def target(**change: Any) -> Any:
        return dataclasses.replace(
            loaded, config=config.model_copy(update={"target": {**config.target, **change}})
        )

    cases: list[tuple[Any, Code, str, str]] = [
        (
            target(params={"api_key": "x"}),
            Code.SECRET_PUBLISHED,
            "config.json",
            "target.params.api_key",
        ),
        (
            target(system_prompt="use sk-" + "a1" * 12),
            Code.SECRET_PUBLISHED,
            "config.json",
            "target.system_prompt",
        ),
        (
            dataclasses.replace(
                loaded,
                config=config.model_copy(
                    update={"task_set": config.task_set.model_copy(update={"path": "/opt/tasks"})}
                ),
            ),
            Code.LOCAL_PATH_PUBLISHED,
            "config.json",
            "task_set.path",
        ),
        (
            target(callable="/home/alice/bot.py:respond"),
            Code.LOCAL_PATH_PUBLISHED,
            "config.json",
            "target.callable",
        ),
        (
            dataclasses.replace(
                loaded, status=status.model_copy(update={"partial_reason": "see /Users/bob/x"})
            ),
            Code.LOCAL_PATH_PUBLISHED,
            "status.json",
            "partial_reason",
        ),
        (
            dataclasses.replace(
                loaded,
                attempts=[
                    first.model_copy(update={"reason": "cannot read C:\\Users\\carol\\a.json"}),
                    *loaded.attempts[1:],
                ],
            ),
            Code.LOCAL_PATH_PUBLISHED,
            "attempts.jsonl.gz",
            f"{first.task_id}#{first.repeat}.reason",
        ),
    ]
    for tampered, code, file, field in cases:
        with pytest.raises(VerifyFailure) as info:
            check_privacy(bundle, tampered)
        assert (info.value.verify_code, info.value.field) == (code, field)
        assert info.value.path == str(bundle / file)
    # Model and tool text may name any path: the trace is not the harness's to rewrite.
    messages = [
        m.model_copy(update={"content": "see /home/alice/notes"}) for m in first.trace.messages
    ]
    trace = first.trace.model_copy(update={"messages": messages})
    check_privacy(
        bundle,
        dataclasses.replace(loaded, attempts=[first.model_copy(update={"trace": trace})]),
    )
