"""Where an HTTP target's settings come from, what a run may record of them, and the wire
bodies built from a model request."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from bench.core.errors import InputError
from bench.core.trace import Message, ToolCallRequest, ToolDef
from bench.targets import (
    ModelRequest,
    RetrySettings,
    TargetSpec,
    backoff_delay,
    build_target,
    load_target,
    parse_retry_after,
    read_dotenv,
    resolve_spec,
)
from bench.targets.anthropic import request_body as anthropic_body
from bench.targets.openai import request_body as openai_body
from bench.targets.openai import tool_arguments


def http_spec(**changes: object) -> TargetSpec:
    values: dict[str, object] = {
        "kind": "openai",
        "entrant": "cfg",
        "display_name": "cfg",
        "model": "file-model",
        "base_url": "http://file.example/v1",
    }
    values.update(changes)
    return TargetSpec.model_validate(values)


def test_priority_is_overrides_then_environment_then_dotenv_then_file(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "# providers\n"
        "export BENCH_LOCAL_BASE_URL=http://dotenv.example/v1\n"
        "BENCH_LOCAL_MODEL='dotenv-model'\n"
        'BENCH_LOCAL_API_KEY="sk-from-dotenv-123"  \n'
    )
    spec = http_spec(provider="local")
    from_file = resolve_spec(spec, env={})
    assert (from_file.base_url, from_file.model, from_file.api_key()) == (
        "http://file.example/v1",
        "file-model",
        None,
    )
    from_dotenv = resolve_spec(spec, env={}, dotenv_path=dotenv)
    assert (from_dotenv.base_url, from_dotenv.model, from_dotenv.api_key()) == (
        "http://dotenv.example/v1",
        "dotenv-model",
        "sk-from-dotenv-123",
    )
    env = {"BENCH_LOCAL_BASE_URL": "http://env.example/v1", "BENCH_LOCAL_API_KEY": "sk-env-4567"}
    from_env = resolve_spec(spec, env=env, dotenv_path=dotenv)
    assert (from_env.base_url, from_env.model, from_env.api_key()) == (
        "http://env.example/v1",
        "dotenv-model",  # the environment does not set it; .env still does
        "sk-env-4567",
    )
    flags = {"base_url": "http://flag.example/v1", "model": "flag-model"}
    from_flags = resolve_spec(spec, env=env, dotenv_path=dotenv, overrides=flags)
    assert (from_flags.base_url, from_flags.model) == ("http://flag.example/v1", "flag-model")
    other = resolve_spec(spec, env=env, overrides={"provider": "other"})
    assert other.provider == "other" and other.base_url == "http://file.example/v1"


def test_the_key_comes_from_the_variable_the_file_names(tmp_path: Path) -> None:
    spec = http_spec(api_key_env="MY_KEY")
    assert resolve_spec(spec, env={"MY_KEY": "sk-mine-98765"}).api_key() == "sk-mine-98765"
    dotenv = tmp_path / ".env"
    dotenv.write_text("MY_KEY=sk-dotenv-98765 # a comment\n")
    assert resolve_spec(spec, env={}, dotenv_path=dotenv).api_key() == "sk-dotenv-98765"
    with pytest.raises(InputError) as info:
        resolve_spec(spec, env={}, source="t.yaml")
    assert info.value.code == "TARGET_KEY_MISSING"
    assert info.value.field == "api_key_env"
    assert "MY_KEY" in str(info.value)
    named = resolve_spec(spec, env={"OTHER": "sk-other-12345"}, overrides={"api_key_env": "OTHER"})
    assert named.api_key() == "sk-other-12345"


def test_the_key_is_in_no_dump_record_or_repr() -> None:
    spec = resolve_spec(http_spec(api_key_env="K"), env={"K": "sk-secret-abcdef"})
    assert spec.api_key() == "sk-secret-abcdef"
    for text in (repr(spec), str(spec), str(spec.model_dump()), str(spec.recorded())):
        assert "sk-secret-abcdef" not in text
    assert "sk-secret-abcdef" not in spec.model_dump_json()
    # A copy keeps it (in memory); a round trip through a dump never has it.
    assert spec.model_copy().api_key() == "sk-secret-abcdef"
    assert TargetSpec.model_validate(spec.model_dump()).api_key() is None


def test_a_target_file_may_not_hold_a_key(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "kind: openai\nentrant: x\ndisplay_name: x\nmodel: m\n"
        "base_url: http://127.0.0.1:9/v1\napi_key: sk-in-the-file\n"
    )
    with pytest.raises(InputError) as info:
        load_target(path, env={})
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", "api_key")
    assert "sk-in-the-file" not in str(info.value)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"base_url": None}, "base_url", "an openai target needs a base_url"),
        ({"base_url": "ftp://x.example"}, "base_url", "http:// or https://"),
        ({"base_url": None, "provider": "gpu"}, "base_url", "BENCH_GPU_BASE_URL"),
        ({"kind": "anthropic", "base_url": None}, "base_url", "an anthropic target needs"),
    ],
)
def test_http_kinds_are_checked(changes: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        build_target(http_spec(**changes), Path("."), Path("t.yaml"), env={})
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", field)
    assert words in str(info.value)


def test_the_recorded_spec_redacts_the_endpoint() -> None:
    spec = http_spec(base_url="https://user:pw@gpu.example:8443/tenant/sk-path-token/v1?key=abc")
    recorded = spec.recorded()
    assert recorded["base_url"] == "https://gpu.example:8443"
    assert len(recorded["endpoint_id"]) == 12
    assert "sk-path-token" not in str(recorded) and "pw" not in recorded["base_url"]
    # The id tells endpoints apart; the redacted URL alone could not.
    other = http_spec(base_url="https://gpu.example:8443/tenant/other/v1").recorded()
    assert other["base_url"] == recorded["base_url"]
    assert other["endpoint_id"] != recorded["endpoint_id"]
    # Recording a recorded spec keeps its id; replay can load it as a cassette target.
    again = TargetSpec.model_validate(recorded)
    assert again.recorded()["endpoint_id"] == recorded["endpoint_id"]
    replay = TargetSpec.model_validate({**recorded, "kind": "cassette", "cassette": "c"})
    assert replay.kind == "cassette"
    # The endpoint is not part of comparability: the same model and settings compare.
    assert spec.comparable() == http_spec().comparable()
    assert set(spec.comparable()) == {"kind", "model", "params", "system_prompt", "tool_choice"}


def test_dotenv_lines() -> None:
    assert read_dotenv(Path("/nonexistent/.env")) == {}


def test_full_jitter_backoff_is_capped_and_seeded() -> None:
    settings = RetrySettings(base_s=0.5, cap_s=4.0)
    draws = [backoff_delay(n, settings, random.Random(5)) for n in range(1, 8)]
    assert draws == [backoff_delay(n, settings, random.Random(5)) for n in range(1, 8)]
    ceilings = [min(4.0, 0.5 * 2 ** (n - 1)) for n in range(1, 8)]
    assert all(0 <= d <= c for d, c in zip(draws, ceilings, strict=True))
    rng = random.Random(5)
    assert backoff_delay(3, settings, rng) == random.Random(5).uniform(0, 2.0)


def test_retry_after_is_seconds_or_an_http_date() -> None:
    now = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3", now) == 3.0
    assert parse_retry_after(" 0.5 ", now) == 0.5
    assert parse_retry_after(format_datetime(now + timedelta(seconds=7), usegmt=True), now) == 7.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=7), usegmt=True), now) == 0.0
    for unreadable in (None, "", "soon", "nan", "inf"):
        assert parse_retry_after(unreadable, now) is None
    assert parse_retry_after("-4", now) == 0.0


def test_tool_arguments_must_be_a_json_object() -> None:
    assert tool_arguments('{"a": 1}') == ({"a": 1}, None)
    assert tool_arguments("") == ({}, None)
    assert tool_arguments({"a": 1}) == ({"a": 1}, None)
    for bad, words in (
        ('{"a": 1', "Expecting"),
        ("[1, 2]", "a JSON array, not an object"),
        ('{"a": NaN}', "NaN is not JSON"),
        ("42", "a JSON number"),
    ):
        arguments, problem = tool_arguments(bad)
        assert arguments == {} and problem is not None and words in problem, (bad, problem)


REQUEST = ModelRequest(
    model="m",
    messages=[
        Message(role="system", content="Be brief."),
        Message(role="user", content="Refund 1041."),
        Message(
            role="assistant",
            tool_calls=[
                ToolCallRequest(id="c1", name="get_order", arguments={"order_id": "1041"}),
                ToolCallRequest(id="c2", name="note", arguments={}),
            ],
        ),
        Message(
            role="tool", content='{"status": "delivered"}', tool_call_id="c1", name="get_order"
        ),
        Message(role="tool", content='{"ok": true}', tool_call_id="c2", name="note"),
    ],
    tools=[ToolDef(name="get_order", parameters={"type": "object"}), ToolDef(name="note")],
    params={"temperature": 0, "max_tokens": 99, "tool_choice": "required"},
)


def test_the_openai_body() -> None:
    body = openai_body(REQUEST, http_spec())
    assert body["max_tokens"] == 99 and body["tool_choice"] == "required"
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert body["messages"][2]["content"] == ""  # never null: strict servers refuse it
    assert body["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"order_id": "1041"}'
    assert body["messages"][4] == {"role": "tool", "tool_call_id": "c2", "content": '{"ok": true}'}
    assert body["tools"][1]["function"]["parameters"] == {"type": "object", "properties": {}}
    renamed = openai_body(REQUEST, http_spec(max_tokens_param="max_completion_tokens"))
    assert renamed["max_completion_tokens"] == 99 and "max_tokens" not in renamed


def test_the_anthropic_body() -> None:
    body = anthropic_body(REQUEST, http_spec(kind="anthropic"))
    assert body["system"] == "Be brief."
    assert body["tool_choice"] == {"type": "any"}
    assert body["max_tokens"] == 99
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user"]  # both tool results in one user turn
    assert [b["type"] for b in body["messages"][2]["content"]] == ["tool_result", "tool_result"]
    assert body["tools"][0] == {
        "name": "get_order",
        "description": "",
        "input_schema": {"type": "object"},
    }
    plain = anthropic_body(REQUEST.model_copy(update={"params": {}}), http_spec(kind="anthropic"))
    # named even when it is the default: LiteLLM passes tool_choice to an OpenAI-compatible
    # server only when it is named, and llama-cpp-python's drops the tools without it
    assert plain["max_tokens"] == 4096 and plain["tool_choice"] == {"type": "auto"}
    bare = REQUEST.model_copy(update={"params": {}, "tools": []})
    assert "tool_choice" not in anthropic_body(bare, http_spec(kind="anthropic"))


@pytest.mark.parametrize(
    ("kind", "extra", "field"),
    [
        ("openai", "callable: x.py:f\n", "callable"),
        ("anthropic", "max_tokens_param: max_completion_tokens\n", "max_tokens_param"),
        ("openai", "anthropic_version: '2023-06-01'\n", "anthropic_version"),
        ("openai", "endpoint_id: 0123456789ab\n", "endpoint_id"),
        ("scripted", "callable: x.py:f\nbase_url: http://h.example\n", "base_url"),
    ],
)
def test_a_field_of_another_kind_is_refused(
    tmp_path: Path, kind: str, extra: str, field: str
) -> None:
    path = tmp_path / "t.yaml"
    base = "base_url: http://127.0.0.1:9/v1\n" if kind != "scripted" else ""
    path.write_text(f"kind: {kind}\nentrant: x\ndisplay_name: x\nmodel: m\n{base}{extra}")
    with pytest.raises(InputError) as info:
        load_target(path, env={})
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", field)
    assert f"unknown field for a {kind} target" in str(info.value)


def test_a_key_a_header_cannot_carry_is_refused_without_showing_it() -> None:
    with pytest.raises(InputError) as info:
        resolve_spec(http_spec(api_key_env="K"), env={"K": "sk-has a space"})
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", "api_key_env")
    assert "the key in K has characters an HTTP header cannot carry" in str(info.value)
    assert "sk-has" not in str(info.value)
