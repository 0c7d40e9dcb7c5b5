"""Calibration against hand labels over real HTTP: the numbers (docs/JUDGE.md known answers), the
floor, the flip check, outages left out rather than counted, and malformed label files."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench.scorers.judge.cache import JudgeCache
from bench.scorers.judge.calibration import (
    CalibrationReport,
    assess,
    calibrate,
    fmt_kappa,
    read_calibration,
    read_labels,
    write_calibration,
)
from bench.scorers.judge.config import load_judge_config
from bench.scorers.judge.errors import JudgeCalibrationError, JudgeLabelsError

REPO = Path(__file__).resolve().parents[2]
REWORDED = "Accept the answer if, and only if, this holds:"


def labels_file(
    tmp_path: Path,
    person: Sequence[bool],
    judge: Sequence[bool],
    flips: set[int] = frozenset(),  # type: ignore[assignment]
    down: set[int] = frozenset(),  # type: ignore[assignment]
    name: str = "labels.jsonl",
) -> Path:
    """One label per pair; the answer tells the fake judge what to say ([judge:PASS]), whether
    the reworded rubric flips it ([flip]) and whether to fail with a 500 ([down])."""
    lines = []
    for index, (label, verdict) in enumerate(zip(person, judge, strict=True)):
        tags = f"[judge:{'PASS' if verdict else 'FAIL'}]"
        tags += " [flip]" if index in flips else ""
        tags += " [down]" if index in down else ""
        lines.append(
            json.dumps(
                {
                    "id": f"l{index:02d}",
                    "question": "How long does a refund take?",
                    "answer": f"answer {index} {tags}",
                    "rubric": "The answer says 7 business days.",
                    "label": label,
                    "note": "made up",
                }
            )
        )
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def by_tag(server: Any) -> Any:
    def respond(body: dict[str, Any]) -> Any:
        prompt = body["messages"][-1]["content"]
        if "[down]" in prompt:
            return server.Reply(status=500)
        passed = "[judge:PASS]" in prompt
        if "[flip]" in prompt and REWORDED in prompt:
            passed = not passed
        return server.Reply(f"{'PASS' if passed else 'FAIL'}: scripted")

    server.responder = respond
    return server


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[JudgeCache]:
    with JudgeCache(tmp_path / "cache.sqlite3") as opened:
        yield opened


def run(judge_file: Any, labels: Path, cache: JudgeCache, **overrides: Any) -> CalibrationReport:
    return calibrate(load_judge_config(judge_file(**overrides)), labels, cache)


def test_the_half_kappa_case_scaled_to_twenty(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    """[1,1,0,0] vs [1,0,0,0] → κ 0.5 (docs/JUDGE.md), five times over: 20 labels."""
    labels = labels_file(tmp_path, [True, True, False, False] * 5, [True, False, False, False] * 5)
    report = run(judge_file, labels, cache)
    assert report.n == report.labels_total == 20
    assert report.agreement == pytest.approx(0.75)
    assert report.kappa == pytest.approx(0.5)
    assert report.pabak == pytest.approx(0.5)
    assert report.false_passes == []
    assert report.false_fails == ["l01", "l05", "l09", "l13", "l17"]
    assert (report.flip_rate, report.flip_n, report.flips) == (0.0, 20, [])
    assert not report.usable
    assert report.why == "κ 0.50 is below the floor 0.70"
    assert report.judge_fingerprint == load_judge_config(judge_file()).fingerprint()
    assert by_tag.count == 40  # every label twice: its rubric and the reworded one
    assert sum(REWORDED in prompt for prompt in by_tag.user_messages()) == 20


def test_false_passes_and_a_usable_judge(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    person = [True, False] * 10
    judge = list(person)
    judge[1] = True  # one false pass: p_o 0.95, p_e 0.5, κ 0.9
    report = run(judge_file, labels_file(tmp_path, person, judge), cache)
    assert report.kappa == pytest.approx(0.9)
    assert report.false_passes == ["l01"] and report.false_fails == []
    assert report.usable
    assert report.why == "κ 0.90 over 20 labels clears the floor (κ ≥ 0.70 over ≥ 20)"


def test_kappa_is_undefined_not_one_when_nobody_varies(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    report = run(judge_file, labels_file(tmp_path, [True] * 24, [True] * 24), cache)
    assert report.kappa is None
    assert report.agreement == 1.0 and report.pabak == 1.0
    assert not report.usable
    assert report.why.startswith("κ is undefined")


def test_a_constant_judge_against_a_varying_person_is_zero(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    report = run(
        judge_file, labels_file(tmp_path, [True, True, False, False] * 5, [True] * 20), cache
    )
    assert report.kappa == 0.0
    assert report.false_passes == [f"l{i:02d}" for i in range(20) if i % 4 >= 2]


def test_too_few_labels_is_unusable_whatever_kappa(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    report = run(judge_file, labels_file(tmp_path, [True, False] * 6, [True, False] * 6), cache)
    assert report.kappa == 1.0 and report.n == 12
    assert not report.usable
    assert report.why == "12 labels are fewer than the floor's 20"


def test_the_flip_rate_counts_verdicts_a_reworded_rubric_changes(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    person = [True, False] * 10
    report = run(judge_file, labels_file(tmp_path, person, person, flips={0, 3, 4, 9}), cache)
    assert report.kappa == 1.0 and report.usable  # flips inform; the floor is κ and n
    assert report.flips == ["l00", "l03", "l04", "l09"]
    assert report.flip_rate == pytest.approx(0.2)
    flipped = next(item for item in report.items if item.id == "l03")
    assert (flipped.label, flipped.judge, flipped.alternate) == (False, False, True)


def test_a_label_may_word_its_own_alternate_rubric(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, server: Any
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "own",
                "question": "q?",
                "answer": "a",
                "rubric": "The answer says 7 business days.",
                "alternate_rubric": "Pass only if a week of working days is given.",
                "label": True,
            }
        )
        + "\n"
    )
    run(judge_file, path, cache)
    second = server.user_messages()[1]
    assert "Pass only if a week of working days is given." in second
    assert REWORDED not in second


def test_labels_the_judge_could_not_decide_are_left_out_not_counted(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    person = [True, False] * 11
    labels = labels_file(tmp_path, person, person, down={2, 7})
    report = run(judge_file, labels, cache)
    assert report.labels_total == 22 and report.n == 20
    assert report.unscored == ["l02", "l07"]
    assert report.kappa == 1.0 and report.usable
    down = next(item for item in report.items if item.id == "l02")
    assert down.judge is None and down.reason.startswith("HTTP 500 from")
    # Not cached: calibrating again asks only for the two it could not decide.
    before = by_tag.count
    labels.write_text(labels.read_text().replace(" [down]", ""))
    again = run(judge_file, labels, cache)
    assert again.n == 22 and again.unscored == []
    assert by_tag.count - before == 4  # the two labels, each under both wordings


def test_a_judge_that_decides_nothing_is_unusable(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    report = run(judge_file, labels_file(tmp_path, [True] * 3, [True] * 3, down={0, 1, 2}), cache)
    assert (report.n, report.kappa, report.agreement, report.flip_rate) == (0, None, None, None)
    assert report.why == "the judge decided none of the labels"


def test_recalibrating_costs_nothing(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    labels = labels_file(tmp_path, [True, False] * 10, [True, False] * 10)
    first = run(judge_file, labels, cache)
    count = by_tag.count
    second = run(judge_file, labels, cache)
    assert by_tag.count == count
    assert first.model_dump(exclude={"created_at"}) == second.model_dump(exclude={"created_at"})


def test_the_report_round_trips_and_decides_trust(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    path = judge_file()
    report = calibrate(
        load_judge_config(path),
        labels_file(tmp_path, [True, False] * 10, [True, False] * 10),
        cache,
    )
    out = tmp_path / "out" / "cal.json"
    write_calibration(report, out)
    assert read_calibration(out) == report
    assert json.loads(out.read_text())["judge_fingerprint"] == report.judge_fingerprint
    assert not list(out.parent.glob(".tmp-*"))  # written atomically, no debris
    trust = assess(load_judge_config(path), out)
    assert trust.trusted and trust.current
    moved = assess(load_judge_config(judge_file(temperature=0.3)), out)
    assert not moved.trusted and not moved.current
    assert "for another judge" in moved.note


def test_a_corrupt_calibration_file_is_untrusted_not_a_crash(
    tmp_path: Path, judge_file: Any
) -> None:
    out = tmp_path / "cal.json"
    out.write_text('{"format_version": 1}')
    with pytest.raises(JudgeCalibrationError) as info:
        read_calibration(out)
    assert info.value.code == "JUDGE_CALIBRATION_INVALID"
    trust = assess(load_judge_config(judge_file()), out)
    assert not trust.trusted and "cannot be read" in trust.note


def test_a_kappa_just_under_the_floor_is_not_printed_as_the_floor() -> None:
    assert fmt_kappa(0.41) == "0.41"
    assert fmt_kappa(0.6999) == "0.6999"
    assert fmt_kappa(0.7) == "0.70"
    assert fmt_kappa(-0.0526) == "-0.05"


# --- label files ----------------------------------------------------------------------------

GOOD = {"id": "a", "question": "q?", "answer": "", "rubric": "r", "label": False}


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("{not json", None, "malformed JSON"),
        ("[1, 2]", None, "a label is a JSON object"),
        (json.dumps({**GOOD, "label": "true"}), "label", "valid boolean"),
        (json.dumps({**GOOD, "label": 1}), "label", "valid boolean"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "rubric"}), "rubric", "required"),
        (json.dumps({**GOOD, "verdict": True}), "verdict", "unknown field"),
        (json.dumps({**GOOD, "id": "first"}), "id", "duplicate id 'first' (first on line 1)"),
    ],
)
def test_a_malformed_line_is_refused_with_file_and_line(
    tmp_path: Path, line: str, field: str | None, words: str
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({**GOOD, "id": "first"}) + "\n\n" + line + "\n")
    with pytest.raises(JudgeLabelsError) as info:
        read_labels(path)
    assert info.value.code == "JUDGE_LABELS_INVALID" and info.value.exit_code == 3
    assert info.value.path == f"{path}:3"
    assert info.value.field == field
    assert words in info.value.message


def test_an_empty_or_missing_label_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n  \n")
    with pytest.raises(JudgeLabelsError, match="no labels in the file"):
        read_labels(path)
    with pytest.raises(JudgeLabelsError, match="file not found"):
        read_labels(tmp_path / "missing.jsonl")


def test_the_example_labels() -> None:
    labels = read_labels(REPO / "examples" / "labels.jsonl")
    assert len(labels) >= 24
    assert {label.label for label in labels} == {True, False}
    assert all(label.note for label in labels)
    borderline = [label for label in labels if (label.note or "").startswith("Borderline")]
    assert abs(len(borderline) - len(labels) / 2) <= 2
    assert {label.label for label in borderline} == {True, False}


def test_a_judge_that_is_down_is_not_asked_label_after_label(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    labels = labels_file(tmp_path, [True] * 6, [True] * 6, down={0, 1, 2, 3, 4, 5})
    report = run(judge_file, labels, cache)
    assert by_tag.count == 3  # three in a row, then the rest are not asked
    assert report.unscored == [f"l{i:02d}" for i in range(6)]
    assert report.items[3].reason.startswith(
        "not asked: the judge could not decide 3 labels in a row (HTTP 500 from"
    )


def test_an_outage_between_decided_labels_resets_the_count(
    judge_file: Any, tmp_path: Path, cache: JudgeCache, by_tag: Any
) -> None:
    labels = labels_file(tmp_path, [True] * 6, [True] * 6, down={0, 1, 3, 4})
    report = run(judge_file, labels, cache)
    assert report.unscored == ["l00", "l01", "l03", "l04"] and report.n == 2
