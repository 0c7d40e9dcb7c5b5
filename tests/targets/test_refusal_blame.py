"""A refusal blames a setting of the target only where its words refuse it (``refusals.subject``):
not in a suggestion, a list of what the server takes, or an echo of the request. Each shape is
a real server's words, served on loopback.

Before 2026-12-07 Groq's "property 'store' is unsupported, did you mean 'stop'?" blamed a
target's ``stop`` (``REQUEST_REFUSED``, the target's later calls not sent); serde's "unknown
field `store`, expected one of `model`, …, `max_tokens`, `temperature`" renamed the token cap
for the rest of the run and then blamed ``temperature``; pydantic's and FastAPI's echo of the
whole request blamed every setting in it; and two fields Gemini does not know were told "keep
one of them".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.targets import TargetSpec
from bench.targets.base import REQUEST_REFUSED

from .test_field_refusals import JSON, _calls
from .test_provider_state import _spec

Body = dict[str, Any]
GROQ = "property 'store' is unsupported, did you mean 'stop'?"
SERDE = (
    "Failed to deserialize the JSON body into the target type: unknown field `store`, expected "
    "one of `model`, `messages`, `max_tokens`, `temperature`, `stop`, `tools` at line 1 column 40"
)
PYDANTIC = (
    "1 validation error for ChatCompletionRequest Value error, 'parallel_tool_calls' is not "
    "supported [type=value_error, input_value={'model': 'm', 'temperature': 0, 'stop': ['END'], "
    "'max_tokens': 64}, input_type=dict]"
)
FASTAPI = {
    "detail": [
        {
            "type": "value_error",
            "loc": ["body"],
            "msg": "Value error, streaming is not supported with tools for this model",
            "input": {"model": "m", "temperature": 0, "stop": ["END"], "max_tokens": 64},
        }
    ]
}


def _refusing(bodies: list[Body], status: int, error: Any) -> Any:
    def serve(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        return status, json.dumps(error).encode(), JSON

    return serve


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, {"error": {"message": GROQ, "type": "invalid_request_error"}}),
        (400, {"error": {"message": SERDE}}),
        (400, {"object": "error", "message": PYDANTIC, "code": 400}),
        (422, FASTAPI),
    ],
    ids=["groq-did-you-mean", "serde-expected-one-of", "pydantic-input-value", "fastapi-input"],
)
def test_a_setting_named_but_not_refused_is_not_blamed(
    json_server: Any, status: int, error: Any
) -> None:
    bodies: list[Body] = []
    params = {"max_tokens": 64, "temperature": 0, "stop": ["END"]}
    spec = TargetSpec.model_validate(
        _spec("openai", json_server(_refusing(bodies, status, error)), False, params=params)
    )
    errors = _calls(spec, 2)
    for failed in errors:
        assert failed is not None
        assert "refuses the target's" not in failed.message, failed.message
        assert not failed.message.startswith("not sent")
    # Each call sent once, as built: nothing renamed, nothing stopped for the run.
    assert [sorted(b) for b in bodies] == [sorted(bodies[0])] * 2
    assert all(b.get("max_tokens") == 64 and "max_completion_tokens" not in b for b in bodies)


def test_two_settings_refused_each_on_its_own_are_both_named_to_change(json_server: Any) -> None:
    """Gemini's OpenAI-compatible API, one line for each field it does not know."""
    message = (
        'Invalid JSON payload received. Unknown name "frequency_penalty": Cannot find field.\n'
        'Invalid JSON payload received. Unknown name "seed": Cannot find field.'
    )
    error = [{"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}]
    bodies: list[Body] = []
    params = {"max_tokens": 64, "seed": 7, "frequency_penalty": 0.5}
    spec = TargetSpec.model_validate(
        _spec("openai", json_server(_refusing(bodies, 400, error)), False, params=params)
    )
    first, second = _calls(spec, 2)
    assert first is not None and first.code == REQUEST_REFUSED
    assert "keep one of them" not in first.message
    assert "change or remove params.seed and params.frequency_penalty" in first.message
    assert second is not None and second.message.startswith("not sent: ")
    assert len(bodies) == 1


@pytest.mark.parametrize(
    "error",
    [
        {
            "error": {
                "message": "Unrecognized request argument supplied: parallel_tool_calls. Please "
                "contact us through an Azure support request at: "
                "https://go.microsoft.com/fwlink/?linkid=2213926 for further questions.",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        },
        {
            "error": {
                "message": "Unknown parameter: 'parallel_tool_calls'.",
                "type": "invalid_request_error",
                "param": "parallel_tool_calls",
                "code": "unknown_parameter",
            }
        },
    ],
    ids=["azure-unrecognized-argument", "openai-unknown-parameter"],
)
def test_a_setting_the_words_refuse_is_still_blamed(json_server: Any, error: Body) -> None:
    bodies: list[Body] = []
    params = {"max_tokens": 64, "parallel_tool_calls": False, "temperature": 0}
    spec = TargetSpec.model_validate(
        _spec("openai", json_server(_refusing(bodies, 400, error)), False, params=params)
    )
    first, second = _calls(spec, 2)
    assert first is not None and first.code == REQUEST_REFUSED
    assert "params.parallel_tool_calls = false" in first.message
    assert "temperature" not in first.message.split("(")[0]
    assert second is not None and second.message.startswith("not sent: ")
    assert len(bodies) == 1
