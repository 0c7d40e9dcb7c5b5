"""Scripted callables resolve or fail clearly; cassettes replay on the full request."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bench.core.errors import CassetteMiss, InputError
from bench.core.trace import Message
from bench.reports import summarize
from bench.runner import RunRequest, start_run
from bench.targets import (
    CassetteTarget,
    ModelRequest,
    TargetSpec,
    current_attempt,
    load_target,
    read_cassette,
)


def _target_file(mini: Path, callable_ref: str) -> Path:
    path = mini / "targets" / "custom.yaml"
    text = (mini / "targets" / "good.yaml").read_text().replace("../agents.py:good", callable_ref)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("../agents.py:absent", "callable: no callable 'absent' in '../agents.py'"),
        ("../nowhere.py:good", "callable: '../nowhere.py' not found"),
        ("../agents.py:NOT_CALLABLE", "'NOT_CALLABLE' in '../agents.py' is not callable"),
        ("no.such.module:fn", "cannot import module 'no.such.module'"),
        ("just-a-name", "is not 'path/to/file.py:name' or 'package.module:name'"),
    ],
)
def test_a_bad_callable_is_named(mini: Path, reference: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        load_target(_target_file(mini, reference))
    assert info.value.code == "TARGET_CALLABLE"
    assert message in str(info.value)
    assert "custom.yaml" in str(info.value)


def test_module_references_work(mini: Path) -> None:
    target = load_target(_target_file(mini, "json:dumps"))
    assert target.spec.callable == "json:dumps"


def _record(mini: Path) -> Path:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            split="public",
            repeats=2,
            runs_dir=mini / "runs",
        )
    )
    return run.path


def test_replay_gives_the_recorded_scores_without_the_entrant(mini: Path) -> None:
    recorded = _record(mini)
    (mini / "agents.py").unlink()  # the entrant is gone; only the cassette remains
    replay, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            replay=str(recorded),
            split="public",
            repeats=2,
            runs_dir=mini / "runs",
        )
    )
    assert status.status == "complete"
    original = summarize(next(r for r in [replay.__class__(recorded)]))
    again = summarize(replay)
    assert [(s.task_id, s.value) for s in again.task_scores] == [
        (s.task_id, s.value) for s in original.task_scores
    ]
    assert again.config.target_kind == "cassette"
    answers = [r.trace.answers for r in replay.attempts()]
    assert answers == [r.trace.answers for r in original.records]


def test_a_request_the_cassette_lacks_fails_that_attempt_clearly(mini: Path) -> None:
    recorded = _record(mini)
    task_file = mini / "tasks" / "mini.yaml"
    task_file.write_text(task_file.read_text().replace("Refund order 1041.", "Refund order 1042."))
    replay, _ = start_run(
        RunRequest(
            tasks=mini / "tasks", replay=str(recorded), split="public", runs_dir=mini / "runs"
        )
    )
    by_task = {r.task_id: r for r in replay.attempts()}
    assert by_task["qa-0001"].outcome == "scored"
    missed = by_task["tool-0001"]
    assert missed.outcome == "errored"
    assert missed.reason is not None
    assert missed.reason.startswith("CASSETTE_MISS: the cassette has no exchange for this request")
    assert "task tool-0001, repeat 0" in missed.reason


def test_matching_is_on_the_full_request_not_the_model_or_url(mini: Path) -> None:
    recorded = _record(mini)
    entries = read_cassette(recorded, requests=True)
    spec = TargetSpec(
        kind="cassette", entrant="x", display_name="x", model="mini-good", cassette="c"
    )
    target = CassetteTarget(spec, entries, recorded)
    first = entries[0]["request"]
    exact = ModelRequest.model_validate(first)
    reply = asyncio.run(target.complete(exact))
    assert reply.model_dump(mode="json") == entries[0]["response"]
    changed = exact.model_copy(update={"params": {"temperature": 0.7}})
    with pytest.raises(CassetteMiss):
        asyncio.run(target.complete(changed))
    extra = exact.model_copy(
        update={"messages": [*exact.messages, Message(role="user", content="and?")]}
    )
    token = current_attempt.set(("qa-0001", 0))
    try:
        with pytest.raises(CassetteMiss, match="task qa-0001, repeat 0"):
            asyncio.run(target.complete(extra))
    finally:
        current_attempt.reset(token)


def test_a_corrupt_cassette_line_is_named(tmp_path: Path) -> None:
    file = tmp_path / "cassette.jsonl"
    file.write_text(json.dumps({"request_hash": "a", "response": {}}) + "\n{broken\n")
    with pytest.raises(InputError) as info:
        read_cassette(file)
    assert info.value.code == "JSON_INVALID"
    assert "cassette.jsonl:2" in str(info.value)


def test_a_cassette_is_read_line_by_line_without_its_requests(tmp_path: Path) -> None:
    """A raw U+2028 inside a JSON string is not a line end (``str.splitlines`` would say it
    is); the recorded requests, unused by a replay, are dropped unless asked for."""
    file = tmp_path / "cassette.jsonl"
    entry = {"request_hash": "a", "request": {"messages": ["m"]}, "response": {"text": "x\u2028y"}}
    file.write_text(json.dumps(entry, ensure_ascii=False) + "\n\n" + json.dumps(entry) + "\n")
    assert "\u2028" in file.read_text(encoding="utf-8")
    slim = read_cassette(file)
    assert slim == [{"request_hash": "a", "response": {"text": "x\u2028y"}}] * 2
    assert read_cassette(file, requests=True) == [entry, entry]
    file.write_bytes(b'{"request_hash": "a", "response": {}}\n\xff\n')
    with pytest.raises(InputError) as info:
        read_cassette(file)
    assert info.value.code == "FILE_ENCODING"


def test_a_compact_cassette_answers_as_the_parsed_one(mini: Path) -> None:
    # A replay holds each response as its JSON text (read_cassette(compact=True)): the same
    # answers, a failed call still failing the same way and still picked after an answered one.
    recorded = _record(mini)
    spec = TargetSpec(
        kind="cassette", entrant="x", display_name="x", model="mini-good", cassette="c"
    )
    parsed = read_cassette(recorded, requests=True)
    compact = read_cassette(recorded, compact=True)
    assert all(isinstance(e["response"], str) and e["failed"] is False for e in compact)
    assert [json.loads(e["response"]) for e in compact] == [e["response"] for e in parsed]
    for entry in parsed:
        request = ModelRequest.model_validate(entry["request"])
        one = asyncio.run(CassetteTarget(spec, parsed, recorded).complete(request))
        two = asyncio.run(CassetteTarget(spec, compact, recorded).complete(request))
        assert one == two
    # a failed call recorded first for the same request: an answered recording is preferred
    first = parsed[0]
    failed = {
        **compact[0],
        "response": json.dumps({"error": {"code": "TIMEOUT", "message": "slow"}}),
        "failed": True,
    }
    target = CassetteTarget(spec, [failed, compact[0]], recorded)
    reply = asyncio.run(target.complete(ModelRequest.model_validate(first["request"])))
    assert reply.model_dump(mode="json") == first["response"]
    only_failed = CassetteTarget(spec, [failed], recorded)
    with pytest.raises(Exception, match="slow"):
        asyncio.run(only_failed.complete(ModelRequest.model_validate(first["request"])))
