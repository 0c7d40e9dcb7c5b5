"""A server that refuses one field of the harness's request, in words (docs/TARGETS.md, "A server
that refuses a field"), served on loopback as each provider words it:

- OpenAI's reasoning models (o-series, gpt-5): HTTP 400 "Unsupported parameter: 'max_tokens' is
  not supported with this model. Use 'max_completion_tokens' instead." (``param: max_tokens``,
  ``code: unsupported_parameter``; griptape-ai/ComfyUI-Griptape#312) and "Unsupported value:
  'temperature' does not support 0 with this model. Only the default (1) value is supported."
  (``code: unsupported_value``; gabrii/Cursor-Azure-GPT-5#33).
- Mistral's API: HTTP 422 ``extra_forbidden`` at ``["body", "max_completion_tokens"]``, "Extra
  inputs are not permitted" (editor-code-assistant/eca#231).
- Claude 4.x, on Anthropic's API or Bedrock: "`temperature` and `top_p` cannot both be specified
  for this model. Please use only one." (skydiscover-ai/skydiscover#15).
- MiniMax: "invalid params, chat content has invalid message role: system (2013)"
  (BigPizzaV3/CodexPlusPlus#267).
Before 2026-12-07 each was a failed call on every attempt of the run: the entrant's error
(``ENDPOINT_REJECTED``, scored 0) or a harness fault whose words named no fix. Now a neutral
change (the cap's other name, ``tool_choice: auto`` left out) is made once and kept; a change
of meaning is never made: one ``REQUEST_REFUSED`` naming the field and the target setting that
fixes it, and the run's later calls carrying that field fail at once, unsent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import BenchError, HarnessFault
from bench.core.trace import Message, ToolDef
from bench.targets import ModelRequest, TargetSpec, build_target
from bench.targets.base import REQUEST_REFUSED
from bench.targets.refusals import CAP_RENAMED
from bench.verify.wire import _problem

from .test_provider_state import REFUND, Gemini, _spec, refund_run
from .test_what_a_bundle_holds import _bundle_verdict

Body = dict[str, Any]
JSON = {"Content-Type": "application/json"}
TOOLS = [ToolDef(name="get_weather", parameters={"type": "object", "properties": {}})]
OPENAI_CAP = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
    "'max_completion_tokens' instead."
)
OPENAI_TEMPERATURE = (
    "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) "
    "value is supported."
)


def _openai_error(message: str, param: str, code: str) -> bytes:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return json.dumps({"error": error}).encode()


class Reasoner(Gemini):
    """An OpenAI reasoning model: refuses ``max_tokens`` and any ``temperature`` but 1 in
    OpenAI's words, and answers the refund task as ``Gemini`` does otherwise."""

    def __init__(self) -> None:
        super().__init__(REFUND, stream=False)
        self.bodies: list[Body] = []

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        self.bodies.append(body)
        if "max_tokens" in body:
            return 400, _openai_error(OPENAI_CAP, "max_tokens", "unsupported_parameter"), JSON
        if body.get("temperature", 1) != 1:
            return 400, _openai_error(OPENAI_TEMPERATURE, "temperature", "unsupported_value"), JSON
        return super().__call__(body)


def test_an_openai_reasoning_model_gets_its_cap_by_the_name_it_gives_and_verifies(
    json_server: Any, tmp_path: Path
) -> None:
    """Was: every call refused (``ENDPOINT_REJECTED``), the attempt errored, scored 0."""
    server = Reasoner()
    run, record = refund_run(tmp_path, _spec("openai", json_server(server), False))
    sent = [
        sorted(k for k in ("max_tokens", "max_completion_tokens") if k in b) for b in server.bodies
    ]
    assert sent == [
        ["max_tokens"],
        ["max_completion_tokens"],
        ["max_completion_tokens"],
        ["max_completion_tokens"],
    ]
    warned = [e.response["raw"].get("warnings") for e in record.trace.exchanges]
    assert warned == [[CAP_RENAMED], None, None]  # once, then kept for the run
    assert all(
        e.response["raw"]["request"]["max_completion_tokens"] == 2048
        for e in record.trace.exchanges
    )
    assert _bundle_verdict(tmp_path, run).valid


def test_a_changed_sampling_setting_is_never_sent_and_stops_the_fields_calls(
    json_server: Any,
) -> None:
    """Was: ``ENDPOINT_REJECTED`` (the entrant's error, a 0) on every call, each one sent."""
    server = Reasoner()
    url = json_server(server)
    spec = TargetSpec.model_validate(
        _spec("openai", url, False, params={"max_completion_tokens": 512, "temperature": 0})
        | {"max_tokens_param": "max_completion_tokens"}
    )
    errors = _calls(spec, 2)
    first, second = errors
    assert isinstance(first, HarnessFault) and first.code == REQUEST_REFUSED
    assert "params.temperature = 0" in first.message
    assert "change or remove params.temperature in the target file" in first.message
    assert OPENAI_TEMPERATURE in first.message
    assert isinstance(second, HarnessFault) and second.code == REQUEST_REFUSED
    assert second.message.startswith("not sent: ")
    assert len(server.bodies) == 1  # the second call never reached the server
    assert all(b.get("temperature") == 0 for b in server.bodies)  # never changed to be taken


def _calls(spec: TargetSpec, count: int) -> list[BenchError | None]:
    async def go() -> list[BenchError | None]:
        target = build_target(spec, Path("."), Path("t.yaml"), env={})
        out: list[BenchError | None] = []
        try:
            for _ in range(count):
                request = ModelRequest(
                    model=spec.model,
                    messages=[
                        *(
                            [Message(role="system", content="Be brief.")]
                            if spec.system_prompt
                            else []
                        ),
                        Message(role="user", content="Weather?"),
                    ],
                    tools=TOOLS,
                    params=dict(spec.params),
                )
                try:
                    await target.complete(request)
                    out.append(None)
                except BenchError as exc:
                    out.append(exc)
        finally:
            await target.aclose()
        return out

    return asyncio.run(go())


def _answer_openai(body: Body) -> bytes:
    message = {"role": "assistant", "content": "Sunny."}
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        }
    ).encode()


def test_mistral_refusing_max_completion_tokens_gets_max_tokens(json_server: Any) -> None:
    bodies: list[Body] = []

    def mistral(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        if "max_completion_tokens" in body:
            detail = [
                {
                    "type": "extra_forbidden",
                    "loc": ["body", "max_completion_tokens"],
                    "msg": "Extra inputs are not permitted",
                    "input": 512,
                }
            ]
            error = {
                "object": "error",
                "message": {"detail": detail},
                "type": "invalid_request_error",
            }
            return 422, json.dumps(error).encode(), JSON
        return 200, _answer_openai(body), JSON

    spec = TargetSpec.model_validate(
        _spec("openai", json_server(mistral), False, params={"max_tokens": 512})
        | {"max_tokens_param": "max_completion_tokens"}
    )
    assert _calls(spec, 2) == [None, None]
    assert [
        ("max_tokens" in b, b.get("max_tokens", b.get("max_completion_tokens"))) for b in bodies
    ] == [
        (False, 512),
        (True, 512),
        (True, 512),
    ]


def test_a_cap_too_large_for_the_conversation_is_not_renamed(json_server: Any) -> None:
    """vLLM names both caps when one is too large for the context left: the request's size,
    not a name it does not take; asking under the other name would not mend it."""
    bodies: list[Body] = []

    def vllm(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        message = (
            "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum "
            "context length is 8192 tokens and your request has 5000 input tokens"
        )
        return 400, json.dumps({"object": "error", "message": message, "code": 400}).encode(), JSON

    spec = TargetSpec.model_validate(_spec("openai", json_server(vllm), False))
    errors = _calls(spec, 2)
    assert all(e is not None and e.code == "ENDPOINT_REJECTED" for e in errors)
    assert len(bodies) == 2 and all("max_tokens" in b for b in bodies)  # each asked, as before


def test_claude_refusing_temperature_beside_top_p_names_both(json_server: Any) -> None:
    bodies: list[Body] = []

    def claude(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        message = (
            "`temperature` and `top_p` cannot both be specified for this model. Please use "
            "only one."
        )
        error = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
        return 400, json.dumps(error).encode(), JSON

    spec = TargetSpec.model_validate(
        _spec("anthropic", json_server(claude), False, params={"temperature": 0, "top_p": 0.9})
    )
    first, second = _calls(spec, 2)
    assert first is not None and first.code == REQUEST_REFUSED
    assert "params.temperature = 0 and params.top_p = 0.9" in first.message
    assert "keep one of them" in first.message
    assert second is not None and second.message.startswith("not sent: ")
    assert len(bodies) == 1


def test_minimax_refusing_a_system_message_says_which_setting(json_server: Any) -> None:
    bodies: list[Body] = []

    def minimax(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        if any(m["role"] == "system" for m in body["messages"]):
            error = {
                "type": "bad_request_error",
                "message": "invalid params, chat content has invalid message role: system (2013)",
            }
            return 400, json.dumps({"type": "error", "error": error}).encode(), JSON
        return 200, _answer_openai(body), JSON

    spec = TargetSpec.model_validate(
        _spec("openai", json_server(minimax), False, system_prompt="Be brief.")
    )
    first, second = _calls(spec, 2)
    assert first is not None and first.code == REQUEST_REFUSED
    assert "remove system_prompt from the target file" in first.message
    assert second is not None and second.message.startswith("not sent: ")
    assert len(bodies) == 1  # never folded into a user message to get an answer


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_refused_default_tool_choice_is_left_out(json_server: Any, kind: str) -> None:
    bodies: list[Body] = []

    def server(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        if "tool_choice" in body:
            message = "tool_choice is not supported for this model"
            return 400, json.dumps({"error": {"message": message}}).encode(), JSON
        if kind == "openai":
            return 200, _answer_openai(body), JSON
        answer = {
            "id": "msg",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": "Sunny."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 5, "output_tokens": 2},
        }
        return 200, json.dumps(answer).encode(), JSON

    spec = TargetSpec.model_validate(
        _spec(kind, json_server(server), False, params={"max_tokens": 64})
    )
    assert _calls(spec, 2) == [None, None]
    assert ["tool_choice" in b for b in bodies] == [True, False, False]


def test_the_wire_check_takes_the_neutral_variants_and_no_other() -> None:
    """A forged body: what the harness never sends (a setting left out, a forced tool_choice
    dropped) is ``RECORDING_MISMATCH``; the cap's other name and ``tool_choice: auto`` left out
    are bodies it sends."""
    spec = TargetSpec.model_validate(
        _spec("openai", "http://127.0.0.1:9", False, params={"max_tokens": 64, "temperature": 0})
    )
    request = ModelRequest(
        model=spec.model,
        messages=[Message(role="user", content="Weather?")],
        tools=TOOLS,
        params=dict(spec.params),
    )
    answer = json.loads(_answer_openai({"model": spec.model}))
    recorded = {
        "content": "Sunny.",
        "tool_calls": [],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "cached_tokens": 0},
    }
    from bench.targets.openai import request_body

    built = request_body(request, spec)

    def problem(body: Body) -> str | None:
        raw = {"path": "/chat/completions", "request": body, "response": answer}
        return _problem({**recorded, "raw": raw}, request.wire(), spec)

    assert problem(built) is None
    renamed = {("max_completion_tokens" if k == "max_tokens" else k): v for k, v in built.items()}
    assert problem(renamed) is None
    assert problem({k: v for k, v in built.items() if k != "tool_choice"}) is None
    assert problem({k: v for k, v in renamed.items() if k != "tool_choice"}) is None
    for forged in (
        {k: v for k, v in built.items() if k != "temperature"},
        {**built, "temperature": 1},
        {k: v for k, v in built.items() if k != "max_tokens"},
        {**built, "tool_choice": "none"},
    ):
        assert problem(forged) is not None, forged
