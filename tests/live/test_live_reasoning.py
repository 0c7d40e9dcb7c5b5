"""Reasoning that is not an answer, served for real by the mock server's ``thinktags`` and
``thinkonly`` faults, through a whole run:

* a reasoning model served without a reasoning parser (Ollama, Together, Groq's ``raw``
  format, vLLM and llama.cpp left to their defaults) writes its reasoning into the answer in
  ``<think>`` tags: the answer scored is the text after the block, the same as the model's
  answer from a server that splits it off (docs/DECISIONS.md 54);
* a model whose tokens ran out while it reasoned sends reasoning and no answer: the entrant's
  ``ENTRANT_EMPTY_RESPONSE``, and a stream that carried that reasoning was served, so it is not
  asked again without streaming (``stream_not_served`` is for a stream that carried nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bench.records.run import AttemptRecord
from bench.runner import RunRequest, start_run
from bench.testing.mock_server import MockServer


def _one(mini: Path, target: Path) -> AttemptRecord:
    run_dir, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            runs_dir=mini / "runs",
            split="public",
            task_ids=("qa-0001",),
            target_file=target,
        )
    )
    (record,) = list(run_dir.attempts())
    return record


def _base(server: MockServer, kind: str, plan: str | None) -> str:
    url = server.fault_url(plan) if plan else server.url
    return url + "/v1" if kind == "openai" else url


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_reasoning_in_think_tags_is_not_part_of_the_answer(
    mini: Path, server: MockServer, target_file: Callable[..., Path], kind: str, stream: bool
) -> None:
    name = f"{kind}-{int(stream)}"
    clean = _one(mini, target_file(f"clean-{name}", _base(server, kind, None), kind=kind))
    tagged = _one(
        mini,
        target_file(f"tags-{name}", _base(server, kind, "thinktags"), kind=kind, stream=stream),
    )
    assert clean.outcome == tagged.outcome == "scored", tagged.reason
    assert tagged.trace.answers == clean.trace.answers
    assert "think>" not in tagged.trace.answers[-1]
    assert (tagged.value, tagged.passed) == (clean.value, clean.passed)
    # The server's own words stay in the recorded exchange.
    raw = tagged.trace.exchanges[-1].response["raw"]
    assert "<think>" in str(raw["response"])


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_stream_that_only_reasoned_is_the_entrants_empty_answer_asked_once(
    mini: Path, server: MockServer, target_file: Callable[..., Path], kind: str
) -> None:
    base = _base(server, kind, "thinkonly")
    record = _one(mini, target_file(f"thinkonly-{kind}", base, kind=kind, stream=True))
    assert record.outcome == "errored"
    assert record.reason is not None and record.reason.startswith("ENTRANT_EMPTY_RESPONSE")
    assert "characters of reasoning" in record.reason
    sent = [r for r in server.model_requests() if "/fault/thinkonly/" in r.path]
    assert [r.body.get("stream") for r in sent] == [True]  # not asked again unstreamed


def test_a_server_that_refuses_stream_options_is_asked_without_them(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    """Mistral's API answers ``stream_options`` with HTTP 422 (``extra_forbidden``), as do
    Azure AI Foundry and Bedrock behind Databricks with a 400: every streamed call was a
    harness fault (``REQUEST_REFUSED``) and the run could not be published. Now the refused
    call is sent again without them, and so is every later call of the run."""
    base = server.fault_url("nostreamoptions") + "/v1"
    run_dir, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            runs_dir=mini / "runs",
            split="public",
            task_ids=("qa-0001", "tool-0001"),
            target_file=target_file("no-stream-options", base, stream=True),
            concurrency=1,
        )
    )
    records = list(run_dir.attempts())
    assert status.status == "complete"
    assert [r.outcome for r in records] == ["scored", "scored"], [r.reason for r in records]
    said = [e.response["raw"].get("warnings") for r in records for e in r.trace.exchanges]
    assert said[0] == ["stream_options_refused"] and not any(said[1:])
    sent = [r.body for r in server.model_requests()]
    assert ["stream_options" in body for body in sent] == [True] + [False] * (len(sent) - 1)
    assert all(body.get("stream") is True for body in sent)
    from bench.reports import summarize
    from bench.reports.terminal import render_summary

    printed = "\n".join(render_summary(summarize(run_dir)))
    assert "endpoint warning: the server refused stream_options, so the call was sent" in printed
