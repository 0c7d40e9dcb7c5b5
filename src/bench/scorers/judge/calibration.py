"""Calibration: the judge against a person, on a file of hand labels.

A label file is JSON Lines, one hand-labelled answer a line::

    {"id": "cal-01", "question": "...", "answer": "...", "rubric": "...", "label": true,
     "note": "why the label is what it is", "alternate_rubric": "optional rewording"}

Every label is put to the judge twice: with its rubric, and with the rubric in other words
(``alternate_rubric`` when the label gives one, else the judge file's
``alternate_rubric_template``). The report holds:

* ``agreement`` (p_o), Cohen's ``kappa`` (None when undefined: both raters gave one and the
  same label to every item; never 1.0) and ``pabak`` (2 p_o − 1), over the ``n`` labels the
  judge decided;
* ``false_passes`` (the judge said PASS, the person FAIL) and ``false_fails`` (the reverse);
* ``flip_rate``: the share of labels, among those decided under both wordings, whose verdict
  changes when the rubric is reworded (a judge that reads phrasing rather than substance);
* ``usable``: κ is defined, κ ≥ 0.70 and n ≥ 20 (docs/JUDGE.md, "Calibration"). Below the
  floor, judged expectations are reported and excluded, never scored.

Labels the judge could not decide (an outage) are listed in ``unscored``
and left out of n: an outage is not a disagreement. After ``GIVE_UP_AFTER`` such labels in a
row the rest are not asked (and are listed too). The report carries the judge's
fingerprint, so a changed judge (model, temperature, prompt) no longer counts as calibrated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, StrictBool, ValidationError

from bench.core.atomic import write_atomic
from bench.core.canonical import sha256_hex
from bench.core.clock import iso_z, utc_now
from bench.core.errors import BenchError
from bench.core.files import read_json
from bench.core.models import FORMAT_VERSION, Strict

from .cache import JudgeCache
from .client import Judge
from .config import JudgeConfig
from .errors import JudgeCalibrationError, JudgeLabelsError, JudgeUnavailable

KAPPA_FLOOR = 0.70
"""A judge decides a score only at κ ≥ this against hand labels (docs/JUDGE.md, "Calibration")."""
LABELS_FLOOR = 20
"""... over at least this many labels the judge decided."""
GIVE_UP_AFTER = 3
"""After this many labels in a row the judge could not decide, the rest are not asked (a judge
that is down would otherwise cost a full timeout per label)."""


class Label(Strict):
    """One hand-labelled answer."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True)

    id: str = Field(min_length=1, max_length=128)
    question: str = Field(min_length=1)
    answer: str
    rubric: str = Field(min_length=1)
    label: StrictBool = Field(description="the person's verdict: true = the answer passes")
    note: str | None = Field(None, description="why the label is what it is")
    alternate_rubric: str | None = Field(
        None, min_length=1, description="the rubric in other words, for the flip check"
    )


class CalibrationItem(Strict):
    id: str
    label: bool
    judge: bool | None = Field(description="the judge's verdict; None when it could not decide")
    alternate: bool | None = Field(description="its verdict under the reworded rubric")
    reason: str = Field(description="the judge's reason, or why it could not decide")


class CalibrationReport(Strict):
    """What ``bench judge calibrate`` writes (``<judge stem>.calibration.json``)."""

    format_version: Literal[1] = FORMAT_VERSION
    judge_fingerprint: str
    model: str
    temperature: float
    labels_file: str
    labels_sha256: str
    labels_total: int = Field(ge=0, description="labels in the file")
    n: int = Field(ge=0, description="labels the judge decided: the numbers below rest on these")
    agreement: float | None = Field(description="p_o; None when n is 0")
    kappa: float | None = Field(description="Cohen's κ; None when undefined or n is 0")
    pabak: float | None
    false_passes: list[str] = Field(description="ids: the judge said PASS, the person FAIL")
    false_fails: list[str] = Field(description="ids: the judge said FAIL, the person PASS")
    flip_rate: float | None = Field(description="share of verdicts a reworded rubric changes")
    flip_n: int = Field(ge=0, description="labels decided under both wordings")
    flips: list[str]
    unscored: list[str] = Field(description="ids the judge could not decide")
    kappa_floor: float = KAPPA_FLOOR
    labels_floor: int = LABELS_FLOOR
    usable: bool
    why: str = Field(description="why the judge is usable or not, in one line")
    created_at: str
    items: list[CalibrationItem]


def fmt_kappa(kappa: float, floor: float = KAPPA_FLOOR) -> str:
    """Two decimals, or as many as it takes not to print a value below the floor as the floor."""
    shown = f"{kappa:.2f}"
    digits = 2
    while kappa < floor and float(shown) >= floor and digits < 6:
        digits += 1
        shown = f"{kappa:.{digits}f}"
    return shown


def floor_problems(kappa: float | None, n: int) -> list[str]:
    """Why a judge with this κ over n labels may not decide a score (empty: it may)."""
    problems = []
    if n == 0:
        problems.append("the judge decided none of the labels")
    elif kappa is None:
        problems.append(
            "κ is undefined: the person and the judge gave one and the same label to every "
            "item, which measures nothing"
        )
    elif kappa < KAPPA_FLOOR:
        problems.append(f"κ {fmt_kappa(kappa)} is below the floor {KAPPA_FLOOR:.2f}")
    if 0 < n < LABELS_FLOOR:
        problems.append(f"{n} labels are fewer than the floor's {LABELS_FLOOR}")
    return problems


def read_labels(path: Path) -> list[Label]:
    """Parse a label file; a malformed line is refused as ``file:line: field: problem``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JudgeLabelsError("file not found", path=path) from None
    except IsADirectoryError:
        raise JudgeLabelsError("is a directory, expected a file", path=path) from None
    except UnicodeDecodeError as exc:
        raise JudgeLabelsError(f"not UTF-8 (byte {exc.start})", path=path) from None
    labels: list[Label] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise JudgeLabelsError(f"malformed JSON: {exc}", path=where) from None
        if not isinstance(data, dict):
            raise JudgeLabelsError("a label is a JSON object", path=where) from None
        try:
            label = Label.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors(include_input=False, include_url=False)
            first = errors[0]
            field = ".".join(str(part) for part in first["loc"]) or None
            message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
            raise JudgeLabelsError(message, path=where, field=field) from None
        if label.id in seen:
            raise JudgeLabelsError(
                f"duplicate id '{label.id}' (first on line {seen[label.id]})",
                path=where,
                field="id",
            )
        seen[label.id] = number
        labels.append(label)
    if not labels:
        raise JudgeLabelsError("no labels in the file", path=path)
    return labels


def calibrate(config: JudgeConfig, labels_path: Path, cache: JudgeCache) -> CalibrationReport:
    """Put every label to the judge (twice: rubric and reworded rubric) and compare."""
    labels = read_labels(labels_path)
    labels_sha256 = sha256_hex(labels_path.read_bytes())
    judge = Judge(config, cache)
    items: list[CalibrationItem] = []
    in_a_row, last = 0, ""
    for label in labels:
        if in_a_row >= GIVE_UP_AFTER:
            reason = f"not asked: the judge could not decide {in_a_row} labels in a row ({last})"
            items.append(
                CalibrationItem(
                    id=label.id, label=label.label, judge=None, alternate=None, reason=reason
                )
            )
            continue
        try:
            decision = judge.decide(label.rubric, label.question, label.answer)
        except JudgeUnavailable as exc:
            in_a_row, last = in_a_row + 1, exc.reason
            items.append(
                CalibrationItem(
                    id=label.id, label=label.label, judge=None, alternate=None, reason=exc.reason
                )
            )
            continue
        in_a_row = 0
        rubric = label.alternate_rubric or config.alternate_rubric(label.rubric)
        try:
            alternate: bool | None = judge.decide(rubric, label.question, label.answer).passed
        except JudgeUnavailable:
            alternate = None
        items.append(
            CalibrationItem(
                id=label.id,
                label=label.label,
                judge=decision.passed,
                alternate=alternate,
                reason=decision.reason,
            )
        )
    return summarize(config, labels_path, labels_sha256, items)


def summarize(
    config: JudgeConfig, labels_path: Path, labels_sha256: str, items: list[CalibrationItem]
) -> CalibrationReport:
    """The numbers, from per-label outcomes."""
    from bench.stats.kappa import cohen_kappa  # lazily: bench.stats pulls in numpy

    decided = [item for item in items if item.judge is not None]
    person = [item.label for item in decided]
    verdicts = [bool(item.judge) for item in decided]
    agreement = kappa = pabak = None
    if decided:
        result = cohen_kappa(person, verdicts)
        agreement, kappa, pabak = result.p_o, result.kappa, result.pabak
    both = [item for item in decided if item.alternate is not None]
    flips = [item.id for item in both if item.alternate != item.judge]
    problems = floor_problems(kappa, len(decided))
    if problems:
        why = "; ".join(problems)
    else:
        assert kappa is not None
        why = (
            f"κ {fmt_kappa(kappa)} over {len(decided)} labels clears the floor "
            f"(κ ≥ {KAPPA_FLOOR:.2f} over ≥ {LABELS_FLOOR})"
        )
    return CalibrationReport(
        judge_fingerprint=config.fingerprint(),
        model=config.model,
        temperature=config.temperature,
        labels_file=str(labels_path),
        labels_sha256=labels_sha256,
        labels_total=len(items),
        n=len(decided),
        agreement=agreement,
        kappa=kappa,
        pabak=pabak,
        false_passes=[item.id for item in decided if item.judge and not item.label],
        false_fails=[item.id for item in decided if not item.judge and item.label],
        flip_rate=len(flips) / len(both) if both else None,
        flip_n=len(both),
        flips=flips,
        unscored=[item.id for item in items if item.judge is None],
        usable=not problems,
        why=why,
        created_at=iso_z(utc_now()),
        items=items,
    )


def default_calibration_path(judge_file: Path) -> Path:
    """``<judge stem>.calibration.json`` beside the judge file."""
    return judge_file.with_name(f"{judge_file.stem}.calibration.json")


def default_cache_path(judge_file: Path) -> Path:
    """``<judge stem>.cache.sqlite3`` beside the judge file."""
    return judge_file.with_name(f"{judge_file.stem}.cache.sqlite3")


def write_calibration(report: CalibrationReport, path: Path) -> None:
    data = json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, data.encode("utf-8"))


def read_calibration(path: Path) -> CalibrationReport:
    """Raises ``BenchError`` (``FILE_MISSING``, ``JSON_INVALID``…) for a missing or bad file."""
    data = read_json(path)
    try:
        return CalibrationReport.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        raise JudgeCalibrationError(
            f"not a calibration report: {first['msg']}", path=path, field=field
        ) from None


@dataclass(frozen=True)
class Trust:
    """Whether a judge may decide scores, and the one line that says why."""

    trusted: bool
    note: str
    report: CalibrationReport | None
    current: bool
    """A calibration is on file and was made with this judge (same fingerprint)."""


def calibrate_command(config: JudgeConfig, calibration_path: Path) -> str:
    """The command that writes ``calibration_path`` for the judge ``config`` was read from
    (``--out`` only when the path is not the default beside the judge file)."""
    judge_file = config.source
    judge = judge_file or "<judge.yaml>"
    command = f"bench judge calibrate --judge {judge} --labels <labels.jsonl>"
    if judge_file is None or calibration_path != default_calibration_path(judge_file):
        command += f" --out {calibration_path}"
    return command


def assess(config: JudgeConfig, calibration_path: Path) -> Trust:
    """Read the calibration on file for ``config`` and decide whether its verdicts count.

    The floor is re-checked from the numbers, not read from the file's ``usable``."""
    if not calibration_path.exists():
        return Trust(
            False,
            f"no calibration on file for this judge ({calibration_path} does not exist): "
            f"write one with '{calibrate_command(config, calibration_path)}'",
            None,
            False,
        )
    try:
        report = read_calibration(calibration_path)
    except BenchError as exc:
        return Trust(False, f"the calibration on file cannot be read ({exc.render()})", None, False)
    fingerprint = config.fingerprint()
    if report.judge_fingerprint != fingerprint:
        return Trust(
            False,
            f"the calibration on file is for another judge (fingerprint "
            f"{report.judge_fingerprint}, this judge {fingerprint}): calibrate again",
            report,
            False,
        )
    problems = floor_problems(report.kappa, report.n)
    if problems:
        return Trust(False, "; ".join(problems), report, True)
    assert report.kappa is not None
    return Trust(
        True,
        f"κ {fmt_kappa(report.kappa)} over {report.n} labels "
        f"(floor {KAPPA_FLOOR:.2f} over {LABELS_FLOOR})",
        report,
        True,
    )


__all__ = [
    "GIVE_UP_AFTER",
    "KAPPA_FLOOR",
    "LABELS_FLOOR",
    "CalibrationItem",
    "CalibrationReport",
    "Label",
    "Trust",
    "assess",
    "calibrate",
    "calibrate_command",
    "default_cache_path",
    "default_calibration_path",
    "floor_problems",
    "fmt_kappa",
    "read_calibration",
    "read_labels",
    "summarize",
    "write_calibration",
]
