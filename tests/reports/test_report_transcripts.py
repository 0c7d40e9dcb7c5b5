"""``bench run``'s report reads only each failed attempt's transcript back from its file and
puts it into the record its summary holds: the same report as from whole records, without
validating the files' exchanges again (docs/PERFORMANCE.md, issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.core.errors import RunStoreError
from bench.records import AttemptRecord
from bench.records.run import SharedParts, without_transcript
from bench.records.store import RunDir
from bench.reports import render_markdown, summarize
from bench.reports.markdown import markdown_pieces
from bench.reports.transcripts import records_from_files, with_transcript
from bench.runner import NullProgress, RunRequest, start_run


def _run(mini: Path, target: str) -> RunDir:
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / target,
        runs_dir=mini / "runs",
        repeats=2,
        concurrency=2,
    )
    run, _ = start_run(request, NullProgress())
    return run


@pytest.mark.parametrize("target", ["crashes_on_refunds.yaml", "bad_arguments.yaml"])
def test_the_report_reads_transcripts_only_and_is_the_same(
    mini: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(mini, target)
    whole = summarize(run)
    assert whole.failures and any(r.trace.tool_calls for r in whole.records)
    expected = render_markdown(whole)
    shared = SharedParts()
    held = summarize(run, records=[without_transcript(r, shared) for r in whole.records])

    def refused(*args: object, **kwargs: object) -> AttemptRecord:
        raise AssertionError("a whole attempt file validated again")

    monkeypatch.setattr(AttemptRecord, "model_validate_json", refused)
    assert "".join(markdown_pieces(held, records_from_files(held, run))) == expected
    for slim, full in zip(held.records, whole.records, strict=True):
        back = with_transcript(slim, run)
        assert back.trace.messages == full.trace.messages
        assert back.trace.tool_calls == full.trace.tool_calls
        assert (back.trace.retrieved, back.trace.answers) == (
            full.trace.retrieved,
            full.trace.answers,
        )


def test_a_missing_or_broken_transcript_is_a_corrupt_run(mini: Path) -> None:
    run = _run(mini, "crashes_on_refunds.yaml")
    record = without_transcript(run.attempts()[0])
    file = next((run.path / "attempts").glob(f"{record.task_id}--r{record.repeat}.json"))
    data = json.loads(file.read_text())
    data["trace"]["messages"] = [{"role": "wizard", "content": "x"}]
    file.chmod(0o644)
    file.write_text(json.dumps(data))
    with pytest.raises(RunStoreError) as broken:
        with_transcript(record, run)
    assert broken.value.code == "RUN_CORRUPT"
    assert "trace.messages[0].role" in str(broken.value)
    file.unlink()
    with pytest.raises(RunStoreError) as missing:
        with_transcript(record, run)
    assert missing.value.code == "RUN_CORRUPT"
    assert "missing" in str(missing.value)
