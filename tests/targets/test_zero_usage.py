"""A server that reports no prompt tokens on a successful call did not count them: usage not
measured, never a measured 0 tokens that pricing turns into a measured $0 (docs/TARGETS.md,
"Usage").

Some gateways and OpenAI-compatible servers answer ``"usage": {"prompt_tokens": 0,
"completion_tokens": 0}`` (Anthropic-compatible proxies: ``input_tokens: 0``). A chat call
always sends at least one token, so the 0 says the server does not count. Before 2026-12-07
it was read as measured: the run's cost a measured $0.000000 beside entrants that pay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Usage
from bench.reports import summarize
from bench.targets import anthropic, openai

from .test_provider_state import REFUND, Claude, Gemini, _spec, refund_run
from .test_what_a_bundle_holds import _bundle_verdict

Body = dict[str, Any]
ZERO = {
    "openai": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    "anthropic": {"input_tokens": 0, "output_tokens": 0},
}
PRICING = {"pricing": {"prompt_per_mtok": 3.0, "completion_per_mtok": 15.0}}


def test_no_prompt_tokens_is_not_measured() -> None:
    assert openai.parse_usage(ZERO["openai"]) is None
    assert openai.parse_usage({"prompt_tokens": 0, "completion_tokens": 7}) is None
    assert anthropic.parse_usage(ZERO["anthropic"]) is None
    assert anthropic.parse_usage({"input_tokens": 0, "output_tokens": 7}) is None
    # A prompt held by the cache alone is a prompt (Anthropic counts the three apart).
    cached = {"input_tokens": 0, "output_tokens": 7, "cache_read_input_tokens": 900}
    assert anthropic.parse_usage(cached) == Usage(
        prompt_tokens=900, completion_tokens=7, cached_tokens=900
    )
    assert openai.parse_usage({"prompt_tokens": 1, "completion_tokens": 0}) == Usage(
        prompt_tokens=1
    )


def _zeroed(server: Any, kind: str) -> Any:
    def serve(body: Body) -> tuple[int, bytes, dict[str, str]]:
        status, reply, headers = server(body)
        if status == 200:
            answer = json.loads(reply)
            answer["usage"] = ZERO[kind]
            reply = json.dumps(answer).encode()
        return status, reply, headers

    return serve


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_run_against_a_server_that_counts_nothing_costs_not_measured_and_verifies(
    json_server: Any, tmp_path: Path, kind: str
) -> None:
    server = Gemini(REFUND, stream=False) if kind == "openai" else Claude(REFUND, stream=False)
    spec = _spec(kind, json_server(_zeroed(server, kind)), False, **PRICING)
    run, record = refund_run(tmp_path, spec)
    assert record.trace.exchanges and all(e.usage is None for e in record.trace.exchanges)
    assert record.trace.usage_measured is False and record.trace.cost_usd is None
    summary = summarize(run)
    assert "not measured" in summary.cost_note, summary.cost_note
    assert _bundle_verdict(tmp_path, run).valid  # the wire check reads the body the same way
