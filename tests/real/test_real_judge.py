"""The LLM judge against a real model server: llama.cpp's ``llama-server`` (the session fixture,
tests/real/llama_server.py) serving SmolLM2-135M-Instruct, asked as a judge.

SmolLM2-135M is a bad judge, and that is what these tests show the harness handles: asked with
the default prompt it does not start its reply with PASS or FAIL (it repeats the prompt's own
lines back, or echoes ``PASS or FAIL``, which the old parse rule read as PASS), so a reply
without a verdict is asked once more and then counted as FAIL (docs/JUDGE.md); with a terser
prompt it sometimes does give one. Its calibration on a small labelled set records its real κ,
and the floor then keeps its verdicts out of a run's score (``not scored: …``) while the run
records what it asked and what that cost. About 20 s once the server is up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from bench.records import RunStore
from bench.runner import RunRequest, start_run
from bench.scorers.judge.cache import JudgeCache
from bench.scorers.judge.calibration import floor_problems, read_calibration
from bench.scorers.judge.client import NO_VERDICT, Judge
from bench.scorers.judge.config import load_judge_config

from .conftest import REPO, bench
from .engines import Server

RUBRIC = "The answer says approved refunds arrive within 7 business days."
QUESTION = "How long does an approved refund take to reach my card?"
TERSE = (
    "Rubric: {rubric}\nQuestion: {question}\nAnswer: {answer}\n\n"
    "Does the answer meet the rubric? Reply with one word, PASS or FAIL."
)
LABELS = ("cal-01", "cal-02", "cal-03", "cal-04", "cal-05", "cal-06")
MINI_RUBRIC = "The answer says whether shipping to the moon is possible."


def judge_yaml(directory: Path, server: Server, name: str, **fields: object) -> Path:
    """A judge file as a user writes one for a local server: no key, a small reply cap."""
    data: dict[str, object] = {
        "format_version": 1,
        "base_url": server.url + "/v1",
        "model": "smollm2",
        "temperature": 0,
        "max_tokens": 24,
        "timeout_s": 60,
        "pricing": {"prompt_per_mtok": 0.10, "completion_per_mtok": 0.40},
        **fields,
    }
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Calibrated:
    judge: Path
    output: str
    exit_code: int


@pytest.fixture(scope="module")
def calibrated(llama_server: Server, tmp_path_factory: pytest.TempPathFactory) -> Calibrated:
    """``bench judge calibrate`` of the terse judge on six of the shipped labels (3 pass, 3
    fail): the real κ, written beside the judge file."""
    home = tmp_path_factory.mktemp("real-judge")
    judge = judge_yaml(home, llama_server, "terse", system_prompt="", prompt_template=TERSE)
    text = (REPO / "examples" / "labels.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    labels = home / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps(row) + "\n" for row in rows if row["id"] in LABELS), encoding="utf-8"
    )
    said = bench("judge", "calibrate", "--judge", str(judge), "--labels", str(labels))
    assert said.returncode in (0, 2), said.stdout + said.stderr + llama_server.log_tail()
    return Calibrated(judge, said.stdout, said.returncode)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[JudgeCache]:
    with JudgeCache(tmp_path / "verdicts.sqlite3") as opened:
        yield opened


def test_a_real_reply_is_read_or_asked_again_and_then_cached(
    llama_server: Server, tmp_path: Path, cache: JudgeCache
) -> None:
    """The default prompt: SmolLM2 answers with the prompt's own lines, not a verdict. It is
    asked again in the same conversation; what it says then decides, and a second reply
    without a verdict is a FAIL that says so. Either way the verdict is cached: the second ask
    makes no request."""
    judge = Judge(load_judge_config(judge_yaml(tmp_path, llama_server, "default")), cache)
    answer = "Refunds take about a month."
    first = judge.decide(RUBRIC, QUESTION, answer)
    assert not first.cached and judge.requests in (1, 2)
    assert judge.outages == 0  # the server answered: whatever it said is not an outage
    if judge.requests == 2:  # it gave no verdict at first
        assert judge.retries == 1
    if first.reason.startswith(NO_VERDICT):
        assert not first.passed and judge.no_verdicts == 1
    # llama-server reports usage; both requests are in it, and priced
    assert first.usage is not None and first.usage.prompt_tokens > 100
    assert first.cost_usd is not None and first.cost_usd > 0
    second = judge.decide(RUBRIC, QUESTION, answer)
    assert second.cached and (second.passed, second.reason) == (first.passed, first.reason)
    assert judge.requests in (1, 2) and cache.hits == 1 and len(cache) == 1


def test_a_terse_prompt_gets_real_verdicts_parsed(
    llama_server: Server, tmp_path: Path, cache: JudgeCache
) -> None:
    """With a one-line instruction SmolLM2 does reply ``PASS`` or ``FAIL`` for some answers:
    those are read as verdicts, with no second request."""
    config = load_judge_config(
        judge_yaml(tmp_path, llama_server, "terse", system_prompt="", prompt_template=TERSE)
    )
    judge = Judge(config, cache)
    answers = ("Approved refunds take 7 business days to arrive.", "Refunds take about a month.")
    decisions = [judge.decide(RUBRIC, QUESTION, answer) for answer in answers]
    parsed = [d for d in decisions if not d.reason.startswith(NO_VERDICT)]
    assert parsed, [d.reason for d in decisions]
    assert judge.requests == len(answers) + judge.retries and judge.outages == 0


def test_a_real_calibration_records_kappa_and_the_floor_keeps_the_judge_out(
    calibrated: Calibrated,
) -> None:
    calibration = calibrated.judge.with_name("terse.calibration.json")
    report = read_calibration(calibration)
    assert report.labels_total == len(LABELS) and report.unscored == []  # no outage
    assert report.n == len(LABELS)  # every label decided: a reply without a verdict is a FAIL
    assert not report.usable and calibrated.exit_code == 2
    problems = floor_problems(report.kappa, report.n)
    assert f"{report.n} labels are fewer than the floor's 20" in problems
    assert report.kappa is None or report.kappa < 0.70  # SmolLM2-135M is no judge
    assert "unusable:" in calibrated.output
    status = bench("judge", "status", "--judge", str(calibrated.judge))
    assert status.returncode == 2 and "untrusted" in status.stdout, status.stdout


def test_a_run_records_the_real_judge_and_keeps_its_verdicts_out(
    calibrated: Calibrated, mini: Path
) -> None:
    """``bench run --judge`` of a task with a judge expectation: the judge is asked, its usage
    is recorded, and under the floor its verdict is reported and excluded."""
    tasks = mini / "tasks" / "mini.yaml"
    text = tasks.read_text()
    text = text.replace(
        'type: not_contains\n        value: "yes"', f"type: judge\n        rubric: {MINI_RUBRIC}"
    )
    tasks.write_text(
        text.replace("grounded-qa\n    split: private", "grounded-qa\n    split: public")
    )
    run, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            runs_dir=mini / "runs",
            split="public",
            repeats=1,
            concurrency=1,
            judge_file=calibrated.judge,
        )
    )
    report = read_calibration(calibrated.judge.with_name("terse.calibration.json"))
    usage = status.judge_usage
    assert usage is not None and usage["requests"] >= 1 and usage["outages"] == 0
    assert usage["requests"] == usage["cache_misses"] + usage["retries"]
    assert usage["cost_usd"] is not None and usage["cost_usd"] > 0
    claim = run.config().judge
    assert claim is not None and claim["trusted"] is False and claim["model"] == "smollm2"
    assert claim["calibration"]["kappa"] == report.kappa and claim["calibration"]["n"] == report.n
    [verdict] = [
        v for r in run.attempts() if r.task_id == "qa-0003" for v in r.verdicts
        if v.type == "judge"
    ]  # fmt: skip
    assert verdict.untrusted_judge and not verdict.decided
    note = "; ".join(floor_problems(report.kappa, report.n))
    assert verdict.sentence.startswith(f"not scored: {note} (the judge said "), verdict.sentence
    again = RunStore(mini / "runs").resolve("latest")
    assert again.run_id == run.run_id
