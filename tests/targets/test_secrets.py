"""The one secret rule and the one path rule (bench.core.secrets), and ``bench run`` refusing a
target that carries a secret (``TARGET_SECRET``) before anything is built or written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.errors import InputError
from bench.core.secrets import (
    PortablePaths,
    credential_name,
    find_secrets,
    local_path_problem,
    path_field_problem,
    secret_problem,
    secret_shape,
)
from bench.targets import build_target, read_target_spec

CREDENTIAL_NAMES = [
    "api_key",
    "apikey",
    "apiKey",
    "API_KEY",
    "x-api-key",
    "X-Api-Key",
    "key",
    "token",
    "access_token",
    "auth_token",
    "refresh_token",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "authorization",
    "Authorization",
    "cookie",
    "Set-Cookie",
    "bearer",
    "private_key",
    "openai_api_key",
    "api_keys",
    "basic_auth",
    "credentials",
]
SETTING_NAMES = [
    "max_tokens",
    "max_tokens_param",
    "max_completion_tokens",
    "max_new_tokens",
    "min_tokens",
    "tokens",
    "top_k",
    "top_p",
    "keep_alive",
    "temperature",
    "seed",
    "stop",
    "tokenizer",
    "eos_token",
    "stop_token_ids",
    "skip_special_tokens",
    "prompt_cache_key",
    "cache_key",
    "idempotency_key",
    "api_key_env",
    "presence_penalty",
    "response_format",
    "keyword",
    "monkey",
    "author",
]


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_credential_names_are_secrets(name: str) -> None:
    assert credential_name(name)
    assert secret_problem(name, "some-value") is not None
    assert secret_problem(name, 12345) is not None


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_sampling_settings_are_not(name: str) -> None:
    assert not credential_name(name)
    assert secret_problem(name, 64) is None
    assert secret_problem(name, "auto") is None


def test_an_empty_or_structured_credential_name_is_not_a_value() -> None:
    assert secret_problem("token", "") is None
    assert secret_problem("token", None) is None
    assert secret_problem("token", True) is None
    # A JSON Schema property called "password" is a schema, not a password.
    schema = {"json_schema": {"schema": {"properties": {"password": {"type": "string"}}}}}
    assert list(find_secrets(schema, "params")) == []


@pytest.mark.parametrize(
    "text",
    [
        "sk-proj-" + "a1B2" * 8,
        "sk-ant-api03-" + "x" * 24,
        "Bearer eyJhbGciOiJIUzI1NiJ9abc123",
        "Authorization: bearer 0123456789abcdef0123",
        "ghp_" + "A1b2" * 9,
        "github_pat_" + "a1" * 15,
        "xoxb-1234567890-abcdefghij",
        "AKIAIOSFODNN7EXAMPLE",
        "AIza" + "A" * 35,
        "hf_" + "a1" * 16,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXBhcnQ",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "https://user:hunter2@proxy.example.com/v1",
        "https://maps.example.com/api?key=abc123",
    ],
)
def test_known_key_shapes_are_secrets(text: str) -> None:
    assert secret_shape(text) is not None
    assert secret_problem("note", text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "sk-short",
        "task-abcdefghijklmnopqrstuvwxyz0123",
        "Use Bearer authentication for every call.",
        "Bearer tokens expire",
        "https://api.example.com/v1",
        "http://localhost:8000/v1?api-version=2024-01-01",
        "You are a helpful assistant. Count the tokens.",
    ],
)
def test_ordinary_text_is_not(text: str) -> None:
    assert secret_shape(text) is None


def test_find_secrets_names_the_field_never_the_value() -> None:
    params = {
        "temperature": 0,
        "max_tokens": 64,
        "extra_headers": {"Authorization": "Bearer abcdef0123456789abcd"},
        "stop": ["</s>"],
        "keys": [{"api_key": "plain-value-123"}],
    }
    found = dict(find_secrets(params, "params"))
    assert set(found) == {"params.extra_headers.Authorization", "params.keys[0].api_key"}
    assert all(
        "abcdef" not in problem and "plain-value" not in problem for problem in found.values()
    )


@pytest.mark.parametrize(
    "text",
    [
        "/home/alice/bench/tasks",
        "cannot read '/Users/bob/x.yaml'",
        "recorded in /tmp/pytest-of-carol/cassette.jsonl",
        "/root",
        "/root/runs/x",
        "/var/folders/xy/T/run",
        "/private/var/folders/x",
        "C:\\Users\\dave\\bench\\tasks",
        "c:/users/dave/tasks",
        "file:///etc/hosts",
        "/mnt/c/Users/erin",
    ],
)
def test_local_paths_are_found(text: str) -> None:
    assert local_path_problem(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "mini/tasks",
        "../agents.py:good",
        "replay:20260101T000000Z-000a11",
        "HTTP 404: no route POST /api/v1/chat/completions",
        "GET https://example.com/home/alice ok",
        "a/tmp/b",
        "/rootless",
        "~/bench/tasks",
        "no expectation could decide: answer mentions 14 days",
    ],
)
def test_relative_paths_and_urls_are_not(text: str) -> None:
    assert local_path_problem(text) is None


def test_a_path_field_must_be_relative() -> None:
    assert path_field_problem("mini/tasks") is None
    for absolute in ("/opt/bench/tasks", "~/tasks", "C:\\bench", "\\\\server\\share"):
        assert path_field_problem(absolute) is not None


def test_portable_paths_make_local_paths_relative_or_drop_them() -> None:
    home = Path("/tmp/xyz/home/zq-user")
    paths = PortablePaths.here(cwd=home / "proj", home=home)
    assert paths.path(str(home / "proj" / "mini" / "tasks")) == "mini/tasks"
    assert paths.path(str(home / "proj")) == "."
    assert paths.path(str(home / "elsewhere" / "tasks")) == "tasks"
    assert paths.path("/opt/bench/tasks") == "tasks"  # nothing to anchor it: its name
    assert paths.path("mini/tasks") == "mini/tasks"
    assert paths.text(f"cannot read {home}/elsewhere/x.yaml") == "cannot read ~/elsewhere/x.yaml"
    assert paths.text("in /home/alice/runs/r1/cassette.jsonl)") == "in <local>/cassette.jsonl)"
    assert paths.text("/home/alice") == "<local>"
    assert paths.text("/mnt/c/Users/alice") == "<local>"  # a home's last name is its user's
    assert paths.path("../../home/alice/tasks") == "tasks"  # climbing into a home directory
    assert paths.path("../tasks") == "../tasks"
    assert paths.callable("/home/alice/agents/bot.py:respond") == "bot.py:respond"
    assert paths.callable("../agents.py:good") == "../agents.py:good"
    assert paths.callable("package.module:respond") == "package.module:respond"
    for text in (paths.text("at /home/alice/x"), paths.path("/Users/bob/y")):
        assert local_path_problem(text) is None and "alice" not in text and "bob" not in text


# -- bench run refuses a target that carries a secret ----------------------------------------

KEY_ENV = "BENCH_TEST_SECRET_KEY"
KEY = "zq-planted-value-4417-abcdef"


def _target(tmp_path: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "format_version": 1,
        "kind": "openai",
        "entrant": "secret-test",
        "display_name": "secret test",
        "model": "bench-mock",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": KEY_ENV,
        "params": {"temperature": 0},
    }
    data.update(fields)
    path = tmp_path / "target.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _build(path: Path) -> Any:
    return build_target(read_target_spec(path), path.parent, path, env={KEY_ENV: KEY})


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"params": {"temperature": 0, "api_key": "anything-at-all"}}, "params.api_key"),
        ({"params": {"extra_body": {"note": KEY}}}, "params.extra_body.note"),
        ({"params": {"extra_headers": {"X-Api-Key": "v"}}}, "params.extra_headers.X-Api-Key"),
        ({"params": {"user": "sk-" + "q" * 32}}, "params.user"),
        ({"system_prompt": f"Your key is {KEY}."}, "system_prompt"),
        ({"system_prompt": "Send Bearer abc0123456789defgh0"}, "system_prompt"),
        ({"base_url": f"http://127.0.0.1:9/{KEY}/v1"}, "base_url"),
        ({"model": KEY}, "model"),
    ],
)
def test_a_target_carrying_a_secret_is_refused(
    tmp_path: Path, fields: dict[str, Any], field: str
) -> None:
    path = _target(tmp_path, **fields)
    with pytest.raises(InputError) as info:
        _build(path)
    assert info.value.code == "TARGET_SECRET"
    assert info.value.field == field
    assert info.value.path == str(path)
    assert KEY not in str(info.value) and "anything-at-all" not in str(info.value)


def test_max_tokens_and_other_settings_are_accepted(tmp_path: Path) -> None:
    params = {"temperature": 0, "max_tokens": 64, "top_k": 40, "keep_alive": "5m", "seed": 3}
    path = _target(tmp_path, params=params, max_tokens_param="max_completion_tokens")
    target = _build(path)
    assert target.spec.params == params and target.spec.api_key() == KEY


def test_a_scripted_target_is_held_to_the_same_rule(mini: Path) -> None:
    path = mini / "targets" / "planted.yaml"
    text = (mini / "targets" / "good.yaml").read_text()
    path.write_text(text.replace("params: {temperature: 0}", "params: {access_token: abc}"))
    with pytest.raises(InputError) as info:
        build_target(read_target_spec(path), path.parent, path)
    assert (info.value.code, info.value.field) == ("TARGET_SECRET", "params.access_token")


def test_a_short_key_is_not_searched_for(tmp_path: Path) -> None:
    """A key under 8 characters would match ordinary words: only the name and shape rules."""
    path = _target(tmp_path, system_prompt="Be a test bot.")
    target = build_target(read_target_spec(path), path.parent, path, env={KEY_ENV: "test"})
    assert target.spec.api_key() == "test"


def test_a_directory_the_path_rule_cannot_know_is_still_found() -> None:
    """A home outside /home and /Users (``/srv/alice``): the bundle knows it from $HOME."""
    paths = PortablePaths.here(cwd=Path("/srv/alice/proj"), home=Path("/srv/alice"))
    config = {
        "task_set": {"path": "mini/tasks"},
        "target": {"model": "/srv/alice/models/x", "params": {"note": "/srv/alice"}},
    }
    assert [f.field for f in paths.leftovers(config)] == ["target.model"]
    assert paths.text("read /srv/alice/proj/mini/x.yaml") == "read mini/x.yaml"
