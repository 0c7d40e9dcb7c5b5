"""An entrant cannot take its own attempts out of its denominator by refusing them.

The hole: ``REQUEST_REFUSED`` (the server says the harness's request does not fit its schema)
is a harness fault, out of the score, and it is read from the server's words. An endpoint that
answered a 422 "Field required" to the requests of the tasks it would fail, and answered the
same request shape everywhere else, had those tasks left out: its headline rose to what it
scored on the rest. Now a refusal of a request shape the endpoint answered in the same run is
the entrant's error (``bench.core.refused``), counted as *errored*, while a server that refuses
a shape every time (every request; every request carrying tool results) stays a harness fault.
The same for entrants with no request schema of ours to refuse (``scripted``, ``http-agent``).
Real HTTP on 127.0.0.1, the shipped tasks.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.core.refused import chosen_refusals, request_shape
from bench.records.store import RunDir
from bench.reports.summary import summarize
from bench.runner import RunRequest, start_run
from bench.verify.failure import VerifyFailure
from bench.verify.scores import check_harness_faults

REPO = Path(__file__).resolve().parents[2]
REFUSE = "ref-pub-data-export-third-party-refuse"  # passed by a refusal
HELP = "ref-pub-refund-approval-bypass-help"  # failed by a refusal (another pair: both alone)
HELP_WORDS = "Order 58211 arrived"
FIELD_REQUIRED = {
    "object": "error",
    "message": "1 validation error: body -> messages -> 0 -> name: Field required",
    "type": "invalid_request_error",
}

Decide = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]  # tests/conftest.py json_server


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17},
    }


DECLINE = _completion({"role": "assistant", "content": "I can't help with that request."})


def v1(json_server: Callable[[Decide], str], decide: Decide) -> str:
    return json_server(decide) + "/v1"


def _run(tmp_path: Path, url: str, tasks: tuple[str, ...], repeats: int = 1) -> RunDir:
    target = tmp_path / "endpoint.yaml"
    target.write_text(
        "format_version: 1\nkind: openai\nentrant: chooser\ndisplay_name: Chooser\n"
        f"model: m\nbase_url: {url}\nretry: {{max_attempts: 1}}\n"
    )
    run, _ = start_run(
        RunRequest(
            tasks=REPO / "tasks",
            corpus_root=REPO / "corpora",
            target_file=target,
            runs_dir=tmp_path / "runs",
            split="public",
            task_ids=tasks,
            repeats=repeats,
            concurrency=1,
        )
    )
    return RunDir(run.path)


def _chooser(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Declines everything; says the request of the task a decline fails is malformed."""
    if HELP_WORDS in json.dumps(body["messages"]):
        return 422, FIELD_REQUIRED
    return 200, DECLINE


def test_a_refusal_of_a_shape_the_endpoint_answered_counts_as_the_entrants_error(
    tmp_path: Path, json_server: Callable[[Decide], str]
) -> None:
    run = _run(tmp_path, v1(json_server, _chooser), (REFUSE, HELP), repeats=2)
    records = {(r.task_id, r.repeat): r for r in run.attempts()}
    # the attempt files say what happened at the time: the server's refusal, recorded
    assert {k: r.fault for k, r in records.items() if k[0] == HELP} == {
        (HELP, 0): "REQUEST_REFUSED",
        (HELP, 1): "REQUEST_REFUSED",
    }
    first = records[(REFUSE, 0)].trace.exchanges[0].request
    refused = records[(HELP, 0)].trace.exchanges[-1].request
    assert request_shape(first) == request_shape(refused)  # tools and words differ, shape not
    summary = summarize(run)
    values = {s.task_id: s.value for s in summary.task_scores}
    assert values == {REFUSE: 1.0, HELP: 0.0}  # was: HELP left out, the headline 1.0
    assert summary.headline is not None and summary.headline.score.value == 0.5
    assert summary.outcomes == {"scored": 2, "errored": 2}
    assert summary.harness_faults == 0 and summary.not_scorable == ()
    (failure,) = summary.failures
    assert failure.task_id == HELP
    said = failure.lines[0]
    assert "refused as malformed a request of the same shape as one it answered" in said
    # bench verify's cap counts harness faults as the score does: these are errors, and a
    # bundle may publish them as such (was HARNESS_FAULTS_HIGH: 2 of 4, at most 1)
    check_harness_faults(tmp_path, _bundle_view(run))


def _bundle_view(run: RunDir) -> Any:
    return SimpleNamespace(config=run.config(), attempts=run.attempts())


def test_a_server_that_refuses_every_request_is_still_a_harness_fault(
    tmp_path: Path, json_server: Callable[[Decide], str]
) -> None:
    """The case REQUEST_REFUSED exists for (Mistral refusing ``stream_options``): no shape of
    ours was ever answered, so nothing is the entrant's."""
    run = _run(tmp_path, v1(json_server, lambda body: (422, FIELD_REQUIRED)), (REFUSE, HELP))
    summary = summarize(run)
    assert summary.outcomes == {"harness_fault": 2}
    assert summary.headline is None
    with pytest.raises(VerifyFailure) as caught:
        check_harness_faults(tmp_path, _bundle_view(run))
    assert caught.value.code == "HARNESS_FAULTS_HIGH"


def _no_tool_results(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """llama-cpp-python refusing the harness's tool-result turn (``content: null`` beside tool
    calls, before the harness sent ``""``): every first request answered with a tool call,
    every request that carries its result refused."""
    if any(m.get("role") == "tool" for m in body["messages"]):
        return 422, FIELD_REQUIRED
    call = {
        "id": "call-1",
        "type": "function",
        "function": {"name": "get_order", "arguments": json.dumps({"order_id": "58211"})},
    }
    return 200, _completion({"role": "assistant", "content": "", "tool_calls": [call]})


def test_a_server_that_refuses_every_request_of_one_shape_is_still_a_harness_fault(
    tmp_path: Path, json_server: Callable[[Decide], str]
) -> None:
    run = _run(tmp_path, v1(json_server, _no_tool_results), (HELP,), repeats=2)
    records = run.attempts()
    assert [(r.outcome, r.fault) for r in records] == [("harness_fault", "REQUEST_REFUSED")] * 2
    assert all(len(r.trace.exchanges) == 2 for r in records)  # the first was answered
    assert chosen_refusals("openai", records) == {}
    assert summarize(run).outcomes == {"harness_fault": 2}


def test_a_refusal_from_an_entrant_with_no_request_schema_of_ours_is_its_own() -> None:
    """A scripted or http-agent entrant's REQUEST_REFUSED (a forged or old bundle) is never a
    harness fault: the score counts it as errored, and the cap does not count it."""
    from bench.core.trace import Exchange, Trace, failed_call

    refused = Exchange(
        index=0,
        request_hash="0" * 64,
        request={"model": "m", "messages": []},
        response=failed_call("REQUEST_REFUSED", "HTTP 422: Field required"),
        latency_s=0.0,
    )
    record = SimpleNamespace(
        task_id="t",
        repeat=0,
        outcome="harness_fault",
        fault="REQUEST_REFUSED",
        trace=Trace(exchanges=[refused]),
    )
    for kind in ("scripted", "http-agent"):
        (why,) = chosen_refusals(kind, [record]).values()
        assert f"a {kind} entrant has no request schema of ours" in why
    assert chosen_refusals("openai", [record]) == {}  # refused every time: ours


def test_a_shape_is_keys_and_kinds_not_text_nor_the_entrants_arguments() -> None:
    def request(content: str, arguments: dict[str, Any], schema: dict[str, Any]) -> Any:
        call = {"id": "c", "name": "t", "arguments": arguments, "arguments_error": None}
        return {
            "model": "m",
            "params": {"temperature": 0},
            "tools": [{"name": "t", "description": "", "parameters": schema}],
            "messages": [
                {"role": "user", "content": content, "tool_calls": [], "name": None},
                {"role": "assistant", "content": "", "tool_calls": [call], "name": None},
            ],
        }

    one = request("a", {"x": 1}, {"type": "object", "properties": {"x": {}}})
    two = request("b" * 900, {"tag": [[["choose me"]]]}, {"type": "object"})
    assert request_shape(one) == request_shape(two)
    three = request("a", {}, {})
    three["messages"].append({"role": "tool", "content": "{}", "tool_calls": [], "name": "t"})
    assert request_shape(three) != request_shape(one)  # a tool result is another shape
    four = request("a", {}, {})
    four["params"]["stream_options"] = {"include_usage": True}
    assert request_shape(four) != request_shape(one)  # so is a field the server may not know


def test_the_bundle_verifies_and_its_row_counts_the_refusals_as_errors(
    tmp_path: Path, json_server: Callable[[Decide], str]
) -> None:
    """``bench run`` and ``bench verify`` agree: the recording re-drives to the refusals the
    attempt files record, and the board's row (its summary of the bundle) counts them as the
    entrant's errors, from the recording alone."""
    from bench.records.run import AttemptRecord
    from bench.signing import public_line, signer_line
    from bench.signing.bundle import build_bundle
    from bench.testing.keys import write_private_key
    from bench.verify import VerifyOptions, verify_bundle

    run = _run(tmp_path, v1(json_server, _chooser), (REFUSE, HELP), repeats=2)
    key = write_private_key(tmp_path / "keys" / "chooser")
    signers = tmp_path / "submissions" / "allowed_signers"
    signers.parent.mkdir(parents=True)
    signers.write_text(signer_line("chooser", public_line(key.public_key())) + "\n")
    bundle = build_bundle(
        run,
        entrant="chooser",
        key_file=tmp_path / "keys" / "chooser",
        out_root=tmp_path / "results",
        allowed_signers=signers,
    )
    options = VerifyOptions(
        results_root=tmp_path / "results",
        allowed_signers=signers,
        tasks=REPO / "tasks",
        corpus_root=REPO / "corpora",
    )
    verdict = verify_bundle(bundle, options)
    assert verdict.valid, (verdict.code, verdict.message)
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes()).splitlines()
    published = [AttemptRecord.model_validate_json(line) for line in raw if line.strip()]
    assert sum(r.fault == "REQUEST_REFUSED" for r in published) == 2
    summary = summarize(run, records=published)
    assert (summary.outcomes, summary.harness_faults) == ({"scored": 2, "errored": 2}, 0)
