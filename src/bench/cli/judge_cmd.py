"""``bench judge calibrate`` and ``bench judge status``.

Exit codes: 0 the judge is usable (calibrate) / trusted (status); 2 it is not (κ undefined or
below 0.70, fewer than 20 labels decided, no calibration on file, or one for another judge);
3 a bad judge file, label file or cache (``JUDGE_*`` codes, docs/JUDGE.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT, NOT_PACKAGED, in_project, require_exists, with_hint

if TYPE_CHECKING:
    from bench.scorers.judge.calibration import CalibrationReport

UNUSABLE_EXIT = 2
"""Exit code when the judge may not decide scores."""


def _number(value: float | None, undefined: str = "undefined") -> str:
    return undefined if value is None else f"{value:.3f}"


def _ids(ids: list[str], limit: int = 8) -> str:
    if not ids:
        return ""
    shown = ", ".join(ids[:limit]) + (f", … (+{len(ids) - limit} more)" if len(ids) > limit else "")
    return f"  ({shown})"


def _report_lines(report: CalibrationReport) -> list[str]:
    from bench.scorers.judge.client import NO_VERDICT

    no_verdict = [
        item.id
        for item in report.items
        if item.judge is False and item.reason.startswith(NO_VERDICT)
    ]
    kappa = _number(report.kappa, "undefined" if report.n else "n/a")
    if report.kappa is None and report.n:
        kappa += " (both raters gave one and the same label throughout)"
    flip = (
        "not measured (no label decided under both wordings)"
        if report.flip_rate is None
        else f"{report.flip_rate:.3f}  ({len(report.flips)} of {report.flip_n} change "
        "when the rubric is reworded)"
    )
    return [
        f"  agreement (p_o)  {_number(report.agreement, 'n/a')}",
        f"  Cohen's κ        {kappa}",
        f"  PABAK            {_number(report.pabak, 'n/a')}",
        f"  false passes     {len(report.false_passes)}{_ids(report.false_passes)}",
        f"  false fails      {len(report.false_fails)}{_ids(report.false_fails)}",
        f"  no verdict       {len(no_verdict)}{_ids(no_verdict)} (replied twice without one: "
        "counted as FAIL)",
        f"  flip rate        {flip}",
        f"  n                {report.n} of {report.labels_total} labels decided"
        + (
            f"; could not decide {len(report.unscored)}{_ids(report.unscored)}"
            if report.unscored
            else ""
        ),
    ]


@click.group(context_settings=CONTEXT)
def judge() -> None:
    """Calibrate an LLM judge against hand labels, and see what calibration is on file."""


@judge.command()
@click.option(
    "--judge",
    "judge_file",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Judge file (judge.yaml).",
)
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Hand labels, JSON Lines (labels.jsonl).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Calibration file to write (default: <judge stem>.calibration.json beside it).",
)
@click.option(
    "--cache",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Verdict cache (default: <judge stem>.cache.sqlite3 beside the judge file).",
)
@click.pass_context
def calibrate(
    ctx: click.Context, judge_file: Path, labels_file: Path, out: Path | None, cache: Path | None
) -> None:
    """Put every hand label to the judge and compare: agreement, κ, PABAK, false passes and
    fails, and how many verdicts flip when the rubric is reworded.

    Writes the calibration file either way, unless the judge decided no label at all (it was
    down): then the calibration on file, if any, is kept. Exit 2 when the judge is unusable (κ
    undefined or below 0.70, or fewer than 20 labels decided): its verdicts would be reported,
    never scored.
    """
    from bench.core.errors import BenchError
    from bench.scorers.judge import calibration as cal
    from bench.scorers.judge.cache import JudgeCache
    from bench.scorers.judge.config import load_judge_config

    require_exists(judge_file)
    config = load_judge_config(judge_file)
    # Read before the cache is opened (made, if absent): a bad label file leaves no cache.
    try:
        cal.read_labels(labels_file)
    except BenchError as exc:
        missing = not labels_file.exists() and in_project(labels_file)
        raise (with_hint(exc, NOT_PACKAGED) if missing else exc) from None
    config.api_key()  # a missing key is an input error before any request
    out = out or cal.default_calibration_path(judge_file)
    with JudgeCache(cache or cal.default_cache_path(judge_file)) as verdicts:
        report = cal.calibrate(config, labels_file, verdicts)
        hits, misses = verdicts.hits, verdicts.misses
    # A judge that decided nothing (down, unreachable) measured nothing: replacing a
    # calibration on file with that report would lose a measurement for none.
    written = report.n > 0
    if written:
        cal.write_calibration(report, out)
    click.echo(
        f"judge {config.model} at temperature {config.temperature:g} "
        f"(fingerprint {report.judge_fingerprint}); labels {labels_file}"
    )
    for line in _report_lines(report):
        click.echo(line)
    for item in report.items:
        if item.judge is None:
            click.echo(f"  could not decide {item.id}: {item.reason}")
            break
    click.echo(
        f"  cache misses {misses} (one judge request each, two when a reply held no verdict), "
        f"cache hits {hits}"
    )
    if written:
        click.echo(f"  written to {out}")
    else:
        kept = "the calibration on file is kept" if out.exists() else "none is on file"
        click.echo(f"  not written to {out}: the judge decided no label ({kept})")
    if report.usable:
        click.echo(f"usable: {report.why}")
        return
    click.echo(f"unusable: {report.why}")
    ctx.exit(UNUSABLE_EXIT)


@judge.command()
@click.option(
    "--judge",
    "judge_file",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Judge file (judge.yaml).",
)
@click.option(
    "--calibration",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Calibration file (default: <judge stem>.calibration.json beside the judge file).",
)
@click.pass_context
def status(ctx: click.Context, judge_file: Path, calibration: Path | None) -> None:
    """Say what calibration is on file for this judge, whether it is current (made with this
    model, temperature and prompt), and whether the judge's verdicts would count.

    Exit 0 when they would, 2 when they would not. Makes no request.
    """
    from bench.scorers.judge.calibration import assess, default_calibration_path
    from bench.scorers.judge.config import load_judge_config

    require_exists(judge_file)
    config = load_judge_config(judge_file)
    path = calibration or default_calibration_path(judge_file)
    trust = assess(config, path)
    click.echo(
        f"judge {config.model} at temperature {config.temperature:g} "
        f"(fingerprint {config.fingerprint()})"
    )
    click.echo(f"calibration {path}")
    report = trust.report
    if report is not None:
        click.echo(
            f"  made {report.created_at} for {report.model} at temperature "
            f"{report.temperature:g} (fingerprint {report.judge_fingerprint}), "
            f"labels {report.labels_file}"
        )
        for line in _report_lines(report):
            click.echo(line)
        click.echo(f"  current: {'yes' if trust.current else 'no, made for another judge'}")
    if trust.trusted:
        click.echo(f"trusted: {trust.note}")
        return
    click.echo(f"untrusted: {trust.note}")
    ctx.exit(UNUSABLE_EXIT)


__all__ = ["UNUSABLE_EXIT", "calibrate", "judge", "status"]
