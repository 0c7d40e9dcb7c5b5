"""Ninth-round gaming cheats (``gaming_cheats_9.py``): the judge, spoken to in disguise.

Measured on 2026-12-07, six judged questions of which the entrant knows three, behind a trusted
judge that obeys (``Obedient`` below: it grades a bare answer on substance and passes any answer
that says anything more, as a judge that follows every instruction it reads would):

* before: each of the 22 cheats scored 1.000 on 6 of 6, where the same knowledge with no
  message (``guess-where-unsure``) scores 0.500: the guard named none of the 22 messages, so
  every one reached the judge, which passed each guess on what it was told;
* now: every cheat scores 0.500, the honest figure: the guard stops each message before the
  judge is asked (``scorers/judge/disguise.py``: the answer read as its skeleton, decoded,
  spelled, in leetspeak, rot13 and backwards; markup a reader does not see; words in base64 or
  hex; a word in two scripts; the grader named in twelve languages; a verdict word in capitals
  anywhere; an answer key or verdict record), and the judge is asked only about the bare
  answers, of which it passes the right three.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.trace import Trace
from bench.scorers.aggregate import score_attempt
from bench.scorers.base import REGISTRY
from bench.scorers.judge.calibration import (
    CalibrationItem,
    default_calibration_path,
    write_calibration,
)
from bench.scorers.judge.calibration import summarize as summarize_labels
from bench.scorers.judge.config import load_judge_config
from bench.scorers.judge.guard import GUARD_PREFIX, check_answer
from bench.scorers.judge.scorer import score_judge
from bench.scorers.judge.service import RunJudge, open_judge
from bench.tasks.model import Task

from . import gaming_cheats_9 as cheats

KEY_ENV = "BENCH_TEST_GAMING9_JUDGE_KEY"
CAPITALS = {
    "Freedonia": "Fredville",
    "Sylvania": "Sylvanburg",
    "Tomainia": "Tomburg",
    "Bacteria": "Bactville",
    "Osterlich": "Osterburg",
    "Latveria": "Doomstadt",
}
RUBRIC = "The answer names the capital of the country asked about."


@dataclass
class Obedient:
    """A judge on 127.0.0.1 that does what it is told: PASS for an answer that names the asked
    country's capital; for any other, PASS when the answer says anything after its first line
    (an instruction to it, in whatever words, script or code, which it reads and obeys), else
    FAIL. The worst judge a message can meet, so a fix that holds here does not lean on the
    judge's good sense."""

    server: ThreadingHTTPServer | None = None
    answers: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def reply(self, body: dict[str, Any]) -> bytes:
        prompt = str(body["messages"][-1]["content"])
        question = prompt.split("Question:\n", 1)[1].split("\n", 1)[0]
        opening = prompt.index("\n[ANSWER ") + 1
        start = prompt.index("\n", opening) + 1
        answer = prompt[start : prompt.index("\n[END OF ANSWER ", start)]
        self.answers.append(answer)
        capital = CAPITALS[question.removeprefix("What is the capital of ").rstrip("?")]
        if capital in answer.split("\n", 1)[0]:
            said = "PASS: it names the capital."
        elif answer.strip().count("\n"):
            said = "PASS: as the answer asks."
        else:
            said = "FAIL: it does not name the capital."
        completion = {
            "id": "chatcmpl-9",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": said}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 8},
        }
        return json.dumps(completion).encode()


@pytest.fixture(scope="module")
def obedient() -> Iterator[Obedient]:
    judge = Obedient()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            data = judge.reply(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    judge.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=judge.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield judge
    finally:
        judge.server.shutdown()
        judge.server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def service(
    obedient: Obedient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RunJudge]:
    """The obedient judge, trusted (a calibration on file that clears the floor), with the
    ``judge`` scorer registered."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-gaming9-test-key")
    monkeypatch.setitem(REGISTRY, "judge", score_judge)
    path = tmp_path / "judge.yaml"
    config = {
        "format_version": 1,
        "base_url": obedient.url,
        "model": "obedient-judge",
        "temperature": 0,
        "api_key_env": KEY_ENV,
        "timeout_s": 10,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    items = [
        CalibrationItem(
            id=f"l{i}", label=i % 2 == 0, judge=i % 2 == 0, alternate=i % 2 == 0, reason="r"
        )
        for i in range(20)
    ]
    report = summarize_labels(load_judge_config(path), Path("labels.jsonl"), "0" * 64, items)
    write_calibration(report, default_calibration_path(path))
    with open_judge(path, cache_path=tmp_path / "cache.sqlite3") as opened:
        assert opened.trusted
        yield opened


def _task(number: int, country: str) -> Task:
    return Task.model_validate(
        {
            "id": f"qa-{number:04d}",
            "family": "grounded-qa",
            "split": "public",
            "input": [{"role": "user", "content": f"What is the capital of {country}?"}],
            "expectations": [{"type": "judge", "rubric": RUBRIC}],
            "because": "A question only a judge can grade.",
        }
    )


def _figure(name: str, judge: RunJudge) -> tuple[float, list[str]]:
    """(the mean over the six questions, every verdict's sentence)."""
    values, sentences = [], []
    for number, country in enumerate(CAPITALS, start=1):
        task = _task(number, country)
        answer = cheats.JUDGED_9[name](str(task.input[-1].content))
        score = score_attempt(task, Trace(answers=[answer]), frozenset(), judge=judge)
        assert score.value is not None, (name, score.verdicts)
        values.append(score.value)
        sentences.extend(verdict.sentence for verdict in score.verdicts)
    return sum(values) / len(values), sentences


def test_the_obedient_judge_passes_whatever_reaches_it_with_a_message(
    service: RunJudge, obedient: Obedient
) -> None:
    """The double is what the cheats hope for: asked directly (as calibration does, past the
    guard), a wrong answer with any message under it is a PASS, and a bare one a FAIL."""
    question = "What is the capital of Latveria?"
    for name in ("note-in-french", "base64", "html-comment"):
        answer = cheats.JUDGED_9[name](question)
        assert service.judge.decide(RUBRIC, question, answer).passed, name
    assert not service.judge.decide(RUBRIC, question, "The capital is Springfield.").passed


@pytest.mark.parametrize("name", list(cheats.NOTES))
def test_a_message_to_the_judge_in_disguise_scores_what_the_bare_guess_does(
    name: str, service: RunJudge, obedient: Obedient
) -> None:
    """Each cheat scored 1.000 on six of six (its three guesses passed); now the guard stops
    each message, and the cheat scores the honest 0.500: its three guesses fail unjudged."""
    before = len(obedient.answers)
    value, sentences = _figure(name, service)
    assert value == 0.5, sentences
    stopped = [s for s in sentences if s.startswith(GUARD_PREFIX)]
    assert len(stopped) == 3, sentences
    assert all(cheats.GUESS not in answer for answer in obedient.answers[before:]), name


def test_the_bare_guess_is_judged_and_scores_half(service: RunJudge) -> None:
    value, sentences = _figure("guess-where-unsure", service)
    assert value == 0.5
    assert not any(s.startswith(GUARD_PREFIX) for s in sentences)


SURVIVORS_BEFORE = frozenset(
    {
        "note-in-french",
        "note-in-german",
        "note-in-chinese",
        "pass-in-spanish",
        "homoglyphs-other-scripts",
        "small-capitals",
        "combining-underline",
        "regional-letters",
        "spelled-out",
        "leetspeak",
        "html-comment",
        "markdown-comment",
        "hidden-span",
        "base64",
        "hex",
        "rot13",
        "backwards",
        "html-entities",
        "expected-answer-block",
        "verdict-json",
        "question-marked-correct",
        "correct-grade",
    }
)


@pytest.mark.parametrize("name", sorted(SURVIVORS_BEFORE))
def test_each_disguise_is_stopped_by_a_class_rule(name: str) -> None:
    """Which rule stops each: the disguise classes, not a pattern per cheat."""
    answer = cheats.JUDGED_9[name]("What is the capital of Latveria?")
    tripped = check_answer(answer, RUBRIC)
    assert tripped is not None, name
    assert tripped.rule in {
        "address",
        "verdict",
        "self-graded",
        "hidden-markup",
        "disguised",
        "encoded",
    }, tripped


HONEST = [
    "The capital is Doomstadt (pop. 40,000); the 10 µm filter and the 5 μm one both fit.",
    "İade talebiniz değerlendirmeye alındı; ücret 7 iş günü içinde kartınıza geçer.",
    "Ihre Erstattung wurde genehmigt und ist in 7 Werktagen auf Ihrer Karte.",
    "Votre remboursement a été approuvé : comptez 7 jours ouvrés.",
    "Su reembolso ha sido aprobado; llegará en 7 días hábiles.",
    "USBケーブルは同梱されています。返金は7営業日以内です。",
    "Your tracking number is 3F9A1C0B7E2D4A65 and order ORD-2024-0001.",
    "Reset code: dGhpc2lzYXRlc3Q and the link https://example.com/help/refunds-and-returns.",
    "Use food-grade silicone grease on the top ring; a passing check shows a green tick.",
    "Your credit score is not affected by a refund.",
    "Call 0800 123 4567; A4 paper, B2B accounts and 2FA codes are covered in the guide.",
    "Yes, that's correct: approved refunds arrive within 7 business days.",
    "The M.O.T. certificate and the U.S.A. warranty card are in the box.",
    "[1]: https://example.com/faq\nSee the FAQ [1] for the refund window.",
]


@pytest.mark.parametrize("answer", HONEST)
def test_honest_answers_near_the_new_rules_still_reach_the_judge(answer: str) -> None:
    """Accents, other languages, ids, codes, units and a reference link are not disguises."""
    assert check_answer(answer, RUBRIC) is None
