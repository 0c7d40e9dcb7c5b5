"""``bench judge calibrate`` / ``status`` through CliRunner on the click group itself; and the
API key, which must never reach a file or a message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bench.cli.judge_cmd import UNUSABLE_EXIT, judge
from bench.core.trace import Trace
from bench.scorers.aggregate import score_attempt
from bench.scorers.judge.errors import JudgeKeyMissing
from bench.scorers.judge.service import open_judge
from bench.tasks.model import Task


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(judge, [str(arg) for arg in args])


def write_labels(tmp_path: Path, person: list[bool], verdicts: list[bool]) -> Path:
    path = tmp_path / "labels.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index, (label, verdict) in enumerate(zip(person, verdicts, strict=True)):
            answer = f"answer {index} [judge:{'PASS' if verdict else 'FAIL'}]"
            record = {"id": f"l{index:02d}", "question": "q?", "answer": answer}
            record |= {"rubric": "says 7 business days", "label": label}
            handle.write(json.dumps(record) + "\n")
    return path


@pytest.fixture(autouse=True)
def by_tag(server: Any) -> Any:
    def respond(body: dict[str, Any]) -> Any:
        prompt = body["messages"][-1]["content"]
        if "[echo]" in prompt:
            return server.Reply(status=500, echo_auth=True)
        if "[down]" in prompt:
            return server.Reply(status=503)
        if any("[judge:NONE]" in str(m["content"]) for m in body["messages"]):  # nor asked again
            return server.Reply("I would rather not say.")
        verdict = "PASS" if "[judge:PASS]" in prompt else "FAIL"
        return server.Reply(f"{verdict}: scripted")

    server.responder = respond
    return server


def test_an_unusable_judge_exits_2_and_says_why(judge_file: Any, tmp_path: Path) -> None:
    path = judge_file()
    labels = write_labels(tmp_path, [True, True, False, False] * 5, [True, False, False, False] * 5)
    result = invoke("calibrate", "--judge", path, "--labels", labels)
    assert result.exit_code == UNUSABLE_EXIT == 2, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("judge fake-judge-1 at temperature 0 (fingerprint ")
    assert "  agreement (p_o)  0.750" in lines
    assert "  Cohen's κ        0.500" in lines
    assert "  PABAK            0.500" in lines
    assert "  false passes     0" in lines
    assert "  false fails      5  (l01, l05, l09, l13, l17)" in lines
    assert "  no verdict       0 (replied twice without one: counted as FAIL)" in lines
    assert "  flip rate        0.000  (0 of 20 change when the rubric is reworded)" in lines
    assert "  n                20 of 20 labels decided" in lines
    assert (
        "  cache misses 40 (one judge request each, two when a reply held no verdict), cache hits 0"
        in lines
    )
    assert lines[-1] == "unusable: κ 0.50 is below the floor 0.70"
    written = tmp_path / "judge.calibration.json"  # default: beside the judge file
    assert f"  written to {written}" in lines
    assert json.loads(written.read_text())["usable"] is False
    assert (tmp_path / "judge.cache.sqlite3").exists()


def test_a_usable_judge_exits_0_and_status_agrees(judge_file: Any, tmp_path: Path) -> None:
    path = judge_file()
    labels = write_labels(tmp_path, [True, False] * 10, [True, False] * 10)
    out, cache = tmp_path / "cal" / "mine.json", tmp_path / "verdicts.sqlite3"
    result = invoke(
        "calibrate", "--judge", path, "--labels", labels, "--out", out, "--cache", cache
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        "usable: κ 1.00 over 20 labels clears the floor (κ ≥ 0.70 over ≥ 20)"
    )
    assert out.exists() and cache.exists()
    assert not (tmp_path / "judge.calibration.json").exists()

    status = invoke("status", "--judge", path, "--calibration", out)
    assert status.exit_code == 0, status.output
    assert "  current: yes" in status.output.splitlines()
    assert status.output.splitlines()[-1] == "trusted: κ 1.00 over 20 labels (floor 0.70 over 20)"

    again = invoke("calibrate", "--judge", path, "--labels", labels, "--out", out, "--cache", cache)
    assert (
        "  cache misses 0 (one judge request each, two when a reply held no verdict), cache hits 40"
        in again.output.splitlines()
    )


def test_status_without_a_calibration_or_with_a_stale_one_exits_2(
    judge_file: Any, tmp_path: Path, server: Any
) -> None:
    path = judge_file()
    none = invoke("status", "--judge", path)
    assert none.exit_code == 2
    assert none.output.splitlines()[-1] == (
        f"untrusted: no calibration on file for this judge "
        f"({tmp_path / 'judge.calibration.json'} does not exist): write one with "
        f"'bench judge calibrate --judge {path} --labels <labels.jsonl>'"
    )
    labels = write_labels(tmp_path, [True, False] * 10, [True, False] * 10)
    assert invoke("calibrate", "--judge", path, "--labels", labels).exit_code == 0
    assert invoke("status", "--judge", path).exit_code == 0
    judge_file(prompt_template="Rubric {rubric}. Q {question}. A {answer}. PASS or FAIL?")
    stale = invoke("status", "--judge", path)
    assert stale.exit_code == 2
    assert "  current: no, made for another judge" in stale.output.splitlines()
    assert "untrusted: the calibration on file is for another judge" in stale.output
    assert server.count == 40  # status never asks the judge


def test_undefined_kappa_is_printed_as_undefined(judge_file: Any, tmp_path: Path) -> None:
    labels = write_labels(tmp_path, [True] * 20, [True] * 20)
    result = invoke("calibrate", "--judge", judge_file(), "--labels", labels)
    assert result.exit_code == 2
    assert (
        "  Cohen's κ        undefined (both raters gave one and the same label throughout)"
        in result.output.splitlines()
    )
    assert result.output.splitlines()[-1].startswith("unusable: κ is undefined")


def test_bad_input_raises_a_bench_error_with_its_code(
    judge_file: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Any
) -> None:
    labels = write_labels(tmp_path, [True], [True])
    monkeypatch.delenv("BENCH_TEST_JUDGE_KEY")
    result = invoke("calibrate", "--judge", judge_file(), "--labels", labels)
    assert isinstance(result.exception, JudgeKeyMissing)
    assert result.exception.exit_code == 3
    assert server.count == 0


@pytest.mark.usefixtures("judge_scorer")
def test_the_api_key_never_reaches_a_file_or_a_message(
    judge_file: Any, tmp_path: Path, api_key: str, server: Any
) -> None:
    path = judge_file(pricing={"prompt_per_mtok": 1, "completion_per_mtok": 2})
    person = [True, False] * 11
    labels = write_labels(tmp_path, person, person)
    # Two labels hit a careless server whose error page echoes the Authorization header.
    labels.write_text(labels.read_text().replace("answer 3 ", "answer 3 [echo] "))
    labels.write_text(labels.read_text().replace("answer 8 ", "answer 8 [echo] "))
    result = invoke("calibrate", "--judge", path, "--labels", labels)
    assert result.exit_code == 0, result.output
    assert "could not decide l03: HTTP 500" in result.output
    assert "[redacted]" in result.output
    status = invoke("status", "--judge", path)

    task = Task.model_validate(
        {
            "id": "gqa-1",
            "family": "grounded-qa",
            "split": "public",
            "input": [{"role": "user", "content": "q?"}],
            "expectations": [{"type": "judge", "rubric": "r"}],
            "because": "b",
        }
    )
    server.script(server.Reply(f"PASS: your key {api_key} looks fine"))
    with open_judge(path) as service:
        # (The scripted reply answers it: "[judge:PASS]" would tell the grader what to say,
        # and the guard would fail it unjudged.)
        fine = score_attempt(task, Trace(answers=["A fine answer."]), frozenset(), judge=service)
        echoed = score_attempt(task, Trace(answers=["[echo]"]), frozenset(), judge=service)
        open_files = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert any(p.name.endswith("-wal") for p in open_files)
        assert [p.name for p in open_files if api_key.encode() in p.read_bytes()] == []
    assert echoed.verdicts[0].sentence.startswith("the judge could not decide: HTTP 500")
    assert fine.verdicts[0].sentence == "the judge said PASS: your key [redacted] looks fine"
    assert server.headers[-1]["Authorization"] == f"Bearer {api_key}"  # it was sent...

    texts = [result.output, status.output, repr(echoed), repr(fine)]
    assert not [text for text in texts if api_key in text]
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"judge.calibration.json", "judge.cache.sqlite3", "judge.yaml"} <= names
    leaked = [p.name for p in files if api_key.encode() in p.read_bytes()]
    assert leaked == []  # ...and is nowhere on disk: not the cache, its WAL, the calibration


def test_the_labels_the_judge_gave_no_verdict_on_are_named(judge_file: Any, tmp_path: Path) -> None:
    """A FAIL for want of a verdict is a false fail when the person said PASS; the report
    names which labels it was, apart from the judge's own FAILs."""
    labels = write_labels(tmp_path, [True, False] * 10, [True, False] * 10)
    lines = labels.read_text().splitlines()
    for index in (0, 4):
        lines[index] = lines[index].replace("[judge:PASS]", "[judge:NONE]")
    labels.write_text("\n".join(lines) + "\n")
    result = invoke("calibrate", "--judge", judge_file(), "--labels", labels)
    printed = result.output.splitlines()
    assert "  false fails      2  (l00, l04)" in printed, result.output
    named = "  no verdict       2  (l00, l04) (replied twice without one: counted as FAIL)"
    assert named in printed


def test_a_judge_that_decided_nothing_keeps_the_calibration_on_file(
    judge_file: Any, tmp_path: Path
) -> None:
    """Calibrating again while the judge was down replaced a good calibration with one of no
    labels decided: the measurement on file was lost for none."""
    path = judge_file()
    labels = write_labels(tmp_path, [True, False] * 10, [True, False] * 10)
    assert invoke("calibrate", "--judge", path, "--labels", labels).exit_code == 0
    written = tmp_path / "judge.calibration.json"
    before = written.read_bytes()
    down = tmp_path / "down.jsonl"
    down.write_text(labels.read_text().replace("answer ", "[down] answer "))
    result = invoke("calibrate", "--judge", path, "--labels", down)
    assert result.exit_code == UNUSABLE_EXIT, result.output
    assert "  n                0 of 20 labels decided" in result.output
    assert (
        f"  not written to {written}: the judge decided no label (the calibration on file is "
        "kept)" in result.output
    )
    assert written.read_bytes() == before
    assert invoke("status", "--judge", path).exit_code == 0  # still trusted
