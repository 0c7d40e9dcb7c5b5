"""``bench run``."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT, NOT_PACKAGED, require_exists, runs_dir_option

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from bench.records.run import AttemptRecord, RunStatus
    from bench.runner.progress import ProgressSink


def _budget_options(prefix: str, scope: str) -> list[click.Option]:
    return [
        click.Option([f"--{prefix}tokens"], type=click.IntRange(min=0), help=f"{scope}: tokens."),
        click.Option(
            [f"--{prefix}tool-calls"], type=click.IntRange(min=0), help=f"{scope}: tool calls."
        ),
        click.Option(
            [f"--{prefix}seconds"],
            type=click.FloatRange(min=0, min_open=True),
            help=f"{scope}: seconds.",
        ),
        click.Option([f"--{prefix}dollars"], type=click.FloatRange(min=0), help=f"{scope}: US$."),
    ]


class _Tracked:
    """Passes every progress event on and remembers the run id and how many attempts are
    written, so an interrupted run can say which run to resume."""

    def __init__(self, sink: ProgressSink, runs_dir: Path | None = None) -> None:
        self.sink = sink
        self.runs_dir = runs_dir
        self.run_id = ""
        self.done = 0
        self.total = 0

    def started(self, run_id: str, total: int, done: int) -> None:
        self.run_id, self.total, self.done = run_id, total, done
        if self.runs_dir is not None:
            for line in _name_warnings(self.runs_dir / run_id):
                click.echo(line, err=True)
        self.sink.started(run_id, total, done)

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        self.done, self.total = done, total
        self.sink.attempt(record, done, total)

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        self.sink.skipped(task_id, repeat, reason)

    def finished(self, status: RunStatus) -> None:
        self.sink.finished(status)

    def written(self) -> int:
        """The attempt files on disk: what a resume keeps. Attempts written in parallel when
        the run stopped can be on disk before their progress event (``done``) is told."""
        if self.runs_dir is None or not self.run_id:
            return self.done
        try:
            names = os.listdir(self.runs_dir / self.run_id / "attempts")
        except OSError:
            return self.done
        return max(self.done, sum(1 for n in names if n.endswith(".json") and n[0] != "."))


def _name_warnings(run_path: Path) -> list[str]:
    """One line for each name the run shows (its display name, its model) that ``bench
    verify`` will refuse: said at the start, not after hours of running and signing. A
    warning only: a local run is the user's to make."""
    from bench.core.errors import BenchError
    from bench.core.shownnames import name_refusal, run_names
    from bench.records import RunDir

    try:
        config = RunDir(run_path).config()
    except (BenchError, OSError, ValueError):  # a warning never stops the run it is about
        return []
    lines = []
    for field, name in run_names(config.display_name, config.comparable):
        refusal = name_refusal(field, name)
        if refusal is not None:
            code, problem = refusal
            lines.append(
                f"warning: the {field.replace('comparable.', '')} {name!a} {problem}: bench "
                f"bundle will not sign this run and bench verify refuses it ({code})"
            )
    return lines


def _entries(runs_dir: Path) -> set[str]:
    """The names under ``runs_dir``: a run created before an interrupt is a new one."""
    try:
        return set(os.listdir(runs_dir))
    except OSError:
        return set()


def _error_lines(records: Iterable[AttemptRecord], width: int = 110) -> list[str]:
    """Why attempts errored, one line per code, most frequent first: a wrong port or key errors
    every attempt, and the summary should say so without `bench show`."""
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for record in records:
        if record.outcome != "errored" or not record.reason:
            continue
        code, _, text = record.reason.partition(": ")
        counts[code] = counts.get(code, 0) + 1
        first.setdefault(code, text)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        text = first[code]
        if len(text) > width:
            text = text[: width - 1] + "…"
        lines.append(
            f"  errored {count} × {code}: {text}" if text else f"  errored {count} × {code}"
        )
    return lines


UNSCORED_NAMED = 10  # not-scorable tasks named in the summary; bench show lists every one


def _unscored_line(unscored: tuple[tuple[str, str], ...]) -> str:
    """``2 task(s) not scorable, left out of the score: qa-0002 (why), …``: each named with its
    reason (the first 10; the rest counted)."""
    named = "; ".join(f"{task_id} ({reason})" for task_id, reason in unscored[:UNSCORED_NAMED])
    more = len(unscored) - UNSCORED_NAMED
    if more > 0:
        named += f"; … and {more} more"
    return f"{len(unscored)} task(s) not scorable, left out of the score: {named}"


@contextlib.contextmanager
def _interrupted_before_start(resume_ref: str | None) -> Iterator[None]:
    """Ctrl-C (or SIGTERM) while the command loads and checks, before a run is created or
    resumed: one line saying nothing was written (it said 'aborted', which left that open)."""
    try:
        yield
    except KeyboardInterrupt:
        from .signals import interrupted_exit_code, interrupted_word

        word = interrupted_word()
        if resume_ref:
            said = f"{word} before run {resume_ref} resumed: it is as it was; run the same "
            said += "command to resume it"
        else:
            said = f"{word} before the run started: nothing was written, nothing to resume"
        click.echo(said, err=True)
        raise SystemExit(interrupted_exit_code()) from None


def _refuse_replay_overrides(**given: str | None) -> None:
    """A replay sends what the recorded run sent, from its cassette: an option that would change
    the target (a system prompt, a model, an endpoint) cannot apply, and was silently dropped."""
    from bench.core.errors import UsageError

    named = [f"--{name.replace('_', '-')}" for name, value in given.items() if value is not None]
    if named:
        raise UsageError(
            f"--replay replays the recorded run's target as it ran (its system prompt, model and "
            f"endpoint come from the run): drop {', '.join(named)}, or run a target file with "
            "--target to change them",
            code="REPLAY_OVERRIDE",
            field=named[0],
        )


@click.command(context_settings=CONTEXT)
@click.option(
    "--tasks",
    "tasks_path",
    type=click.Path(path_type=Path),
    required=True,
    help="Task file or directory of task files.",
)
@click.option(
    "--target",
    "target_file",
    type=click.Path(path_type=Path),
    help="Target file: who the entrant is and how to reach it (docs/TARGETS.md).",
)
@click.option("--replay", help="Replay a recorded run's cassette instead of a target (run ref).")
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    help="Corpus root (default: the 'corpora' directory beside the task directory).",
)
@click.option("--split", type=click.Choice(["public", "private"]), help="Only this split.")
@click.option(
    "--task",
    "task_ids",
    multiple=True,
    help="Only this task id (repeatable); leaving tasks of the split out makes a subset run.",
)
@click.option("--language", help="Only tasks written in this language (e.g. tr).")
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Attempts per task; a task's score is the mean of its repeats.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Attempts running at once (an HTTP target's max_in_flight may lower its requests).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Per-attempt timeout (s), replacing each task's own limit (up or down).",
)
@click.option(
    "--wait-ready",
    type=click.FloatRange(min=0),
    default=120.0,
    show_default=True,
    metavar="SECONDS",
    help="Wait this long for an HTTP target's server that refuses connections (not started "
    "yet) or answers 503 (loading its model) before the run starts; 0: do not wait.",
)
@click.option(
    "--stop-unreachable",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    metavar="N",
    help="Stop the run (resumable) after N attempts in a row could not connect to the "
    "endpoint at all; they are left for --resume. 0: never stop.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed recorded with the run; its headline interval is drawn with it everywhere.",
)
@click.option("--resume", "resume_ref", help="Continue this run (id, prefix, path or 'latest').")
@click.option(
    "--shard",
    "shard_text",
    metavar="K/N",
    help="Run only shard K of N (0-based; tasks sorted by id, task i in shard i mod N); "
    "join the shards with 'bench merge'.",
)
@click.option(
    "--progress",
    type=click.Choice(["auto", "bar", "json", "none"]),
    default="auto",
    show_default=True,
    help="auto: a bar on a terminal, nothing otherwise; json: JSON Lines events on stdout.",
)
@click.option(
    "--judge",
    "judge_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Judge file for 'judge' expectations (see docs/JUDGE.md).",
)
@click.option(
    "--judge-cache",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Judge verdict cache (default: <runs-dir>/judge-cache.sqlite3).",
)
@click.option("--provider", help="Named provider: BENCH_<NAME>_BASE_URL/_API_KEY/_MODEL.")
@click.option("--base-url", help="Override the target file's base URL (HTTP kinds).")
@click.option("--model", help="Override the target file's model (changes the fingerprint).")
@click.option("--api-key-env", help="Name of the environment variable holding the API key.")
@click.option(
    "--system-prompt",
    help="A system message sent first in every attempt (any kind; changes the fingerprint).",
)
@click.option(
    "--env-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path(".env"),
    show_default=True,
    help="A .env file read for provider settings (ignored when absent).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="The summary at the end: text, or the versioned JSON report (schema/report.schema.json).",
)
@click.option(
    "--fail-on-safety",
    is_flag=True,
    help="Exit 1 when any attempt recorded a safety violation (for CI).",
)
@runs_dir_option
def run(
    tasks_path: Path,
    target_file: Path | None,
    replay: str | None,
    corpora: Path | None,
    split: str | None,
    task_ids: tuple[str, ...],
    language: str | None,
    repeats: int,
    concurrency: int,
    timeout: float | None,
    wait_ready: float,
    stop_unreachable: int,
    seed: int | None,
    resume_ref: str | None,
    shard_text: str | None,
    progress: str,
    judge_file: Path | None,
    judge_cache: Path | None,
    provider: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    system_prompt: str | None,
    env_file: Path,
    fmt: str,
    fail_on_safety: bool,
    runs_dir: Path,
    **budgets: float | None,
) -> None:
    """Run an entrant through a task set; every attempt is written to runs/<run_id>/."""
    with _interrupted_before_start(resume_ref):
        from bench.core.budget import Budget
        from bench.core.errors import InputError
        from bench.core.rng import DEFAULT_SEED
        from bench.reports import render_summary, summarize
        from bench.runner import JsonLinesProgress, NullProgress, RunRequest, resume_run, start_run
        from bench.runner.progress import KeepRecords
        from bench.runner.shards import parse_shard

        def caps(prefix: str) -> Budget:
            return Budget(
                tokens=budgets.get(f"{prefix}tokens"),
                tool_calls=budgets.get(f"{prefix}tool_calls"),
                seconds=budgets.get(f"{prefix}seconds"),
                dollars=budgets.get(f"{prefix}dollars"),
            )

        if not tasks_path.exists():
            raise InputError(
                f"no such file or directory ({NOT_PACKAGED})", code="FILE_MISSING", path=tasks_path
            )
        if replay is not None:
            _refuse_replay_overrides(
                provider=provider,
                base_url=base_url,
                model=model,
                api_key_env=api_key_env,
                system_prompt=system_prompt,
            )
        for named in (target_file, judge_file):  # examples/targets/…, examples/judge.yaml
            if named is not None:
                require_exists(named)
        request = RunRequest(
            tasks=tasks_path,
            target_file=target_file,
            replay=replay,
            corpus_root=corpora,
            split=split,
            task_ids=task_ids or None,
            language=language,
            repeats=repeats,
            concurrency=concurrency,
            attempt_timeout_s=timeout,
            task_budget=caps("task_budget_"),
            run_budget=caps("run_budget_"),
            seed=DEFAULT_SEED if seed is None else seed,
            runs_dir=runs_dir,
            judge_file=judge_file,
            judge_cache=judge_cache,
            target_overrides={
                key: value
                for key, value in {
                    "provider": provider,
                    "base_url": base_url,
                    "model": model,
                    "api_key_env": api_key_env,
                    "system_prompt": system_prompt,
                }.items()
                if value is not None
            }
            or None,
            dotenv=env_file if env_file.is_file() else None,
            shard=parse_shard(shard_text) if shard_text is not None else None,
            wait_ready_s=wait_ready,
            stop_unreachable=stop_unreachable,
            on_notice=lambda text: click.echo(text, err=True),
        )
        mode = progress
        if mode == "auto":
            mode = "bar" if sys.stderr.isatty() else "none"
        tracked: _Tracked | None = None
        before = _entries(runs_dir)
        complete_before = _complete_attempts(runs_dir, resume_ref) if resume_ref else None
    try:
        with contextlib.ExitStack() as stack:
            sink: ProgressSink
            if mode == "json":
                sink = JsonLinesProgress(sys.stdout)
            elif mode == "bar":
                from .progress import BarProgress

                sink = stack.enter_context(BarProgress())
            else:
                sink = NullProgress()
            tracked = _Tracked(sink, runs_dir)
            kept = KeepRecords(tracked)
            if resume_ref:
                run_dir, status = resume_run(resume_ref, request, tracked)
            else:
                run_dir, status = start_run(request, kept)
    except OSError as exc:
        if tracked is None or not tracked.run_id or isinstance(exc, BrokenPipeError):
            raise
        # The disk filled (or went read-only) mid-run: the run stopped with a status counting
        # exactly the attempt files on disk, so it resumes like an interrupted one.
        from .main import IO_ERROR, io_message

        if exc.filename is None:
            exc.filename = str(runs_dir / tracked.run_id)
        click.echo(
            f"error[{IO_ERROR}]: {io_message(exc)}; run {tracked.run_id} keeps the "
            f"{tracked.written()} of {tracked.total} attempt(s) written: once the disk has room, "
            f"run the same command with --resume {tracked.run_id} to finish it",
            err=True,
        )
        raise SystemExit(3) from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (bench.cli.signals: exit 143, not 130)
        from .signals import interrupted_exit_code, interrupted_word

        word = interrupted_word()
        if tracked is not None and tracked.run_id:
            click.echo(
                f"{word}: run {tracked.run_id} keeps the {tracked.written()} of "
                f"{tracked.total} attempt(s) written; run the same command with "
                f"--resume {tracked.run_id} to finish it",
                err=True,
            )
            # That line is the whole story: click's blank line and "aborted" after it are not.
            raise SystemExit(interrupted_exit_code()) from None
        # Before the run started (waiting for its server, --wait-ready): one line too.
        made = sorted(_entries(runs_dir) - before)
        if resume_ref:
            said = f"{word} before run {resume_ref} resumed: it is as it was; run the same "
            said += "command to resume it"
        elif made:  # created, its first attempt not begun
            said = f"{word}: run {made[0]} was created with no attempt written; run the "
            said += f"same command with --resume {made[0]} to finish it"
        else:
            said = f"{word} before the run started: nothing was written, nothing to resume"
        click.echo(said, err=True)
        raise SystemExit(interrupted_exit_code()) from None
    if complete_before is not None and complete_before == status.attempts_done:
        click.echo(
            f"run {status.run_id} was already complete: nothing ran, its summary is the one "
            "it had (to run the tasks again, start a new run: the same command without "
            "--resume)",
            err=True,
        )
    # From here the run is finished and its files are all written: a signal (or a full disk
    # under the history or the report) stops only what is said about it, so the last line
    # says the run is whole and how to see it, not "terminated" alone, which read as a run
    # to resume.
    import shlex

    from bench.core.errors import BenchError

    stage = "before its summary was made"
    try:
        from bench.reports.history import DEFAULT_DB, index_run, open_db

        # Built once, and for a new run from the records its engine wrote: reading and
        # checking every attempt file again was most of a summary's cost. A resumed run's are
        # read.
        summary = summarize(run_dir, records=None if resume_ref else kept.records)
        del kept  # the summary holds the records now
        stage = "while it was added to the history"
        # the local history `bench history` and `leaderboard` read
        db = open_db(runs_dir / DEFAULT_DB)
        try:
            index_run(db, run_dir.path, summary)
        finally:
            db.close()
        from bench.reports.output import write_report

        # Written for every run, beside the runs: runs/reports/YYYY/MM/<run_id>.md.
        started = summary.status.started_at
        where = runs_dir / "reports" / f"{started:%Y}" / f"{started:%m}" / f"{status.run_id}.md"
        # Kept without transcripts: the report reads each failed task's from its files.
        from bench.reports.transcripts import records_from_files

        records_of = None if resume_ref else records_from_files(summary, run_dir)
        stage = f"while its report {where} was written"
        written = write_report(summary, "markdown", where, records_of)
        stage = "while its summary was printed"
        if fmt == "json":
            from bench.reports.jsonreport import build_report, render_json

            if mode == "json":  # after the events, one more line: stdout stays JSON Lines
                click.echo(build_report(summary).model_dump_json())
            else:
                click.echo(render_json(summary), nl=False)
        elif mode != "json":
            for line in render_summary(summary):
                click.echo(line)
            for line in _error_lines(summary.records):
                click.echo(line)
            click.echo(f"  run directory {run_dir.path}")
            click.echo(f"  report {written}")
            failed = len(summary.failures)
            # quoted when it must be, so the line can be pasted (a --runs-dir with spaces)
            show = f"bench show {status.run_id} --runs-dir {shlex.quote(str(runs_dir))}"
            click.echo(f"  {failed} failed task(s): {show}")
            if summary.not_scorable:
                # Left out of the score, so named here too: a reader of this summary alone
                # must not take "passed 2/2" for the whole task set (docs/SCORING.md).
                click.echo(f"  {_unscored_line(summary.not_scorable)}")
    except (KeyboardInterrupt, OSError, BenchError) as exc:
        from .main import IO_ERROR, io_message
        from .signals import interrupted_exit_code, interrupted_word

        left = (
            "nothing to resume"
            if status.status == "complete"
            else f"{status.partial_reason}: --resume with a larger run budget finishes it"
        )
        finished = (
            f"run {status.run_id} finished ({status.status}, {status.attempts_done} "
            f"attempt(s) written; {left}), {stage}: "
            f"bench show {status.run_id} --runs-dir {shlex.quote(str(runs_dir))} shows it"
        )
        if isinstance(exc, KeyboardInterrupt):
            click.echo(f"{interrupted_word()} after {finished}", err=True)
            raise SystemExit(interrupted_exit_code()) from None
        if isinstance(exc, BrokenPipeError):  # `bench run ... | head`: bench.cli.main's, quiet
            raise
        # A full disk under the history or the report (or a history that cannot be read):
        # the error, and that the run itself is whole, not a run to resume.
        said = exc.render() if isinstance(exc, BenchError) else io_message(exc)
        code = exc.code if isinstance(exc, BenchError) else IO_ERROR
        click.echo(f"error[{code}]: {said}; {finished}", err=True)
        raise SystemExit(exc.exit_code if isinstance(exc, BenchError) else 3) from None
    if status.status == "partial":
        click.echo(
            f"partial: {status.partial_reason}; run the same command with a larger run budget "
            f"(or none) and --resume {status.run_id} to finish it",
            err=True,
        )
    if fail_on_safety and summary.safety:
        click.echo(
            f"{len(summary.safety)} safety violation(s): failing (--fail-on-safety)", err=True
        )
        sys.exit(1)


def _complete_attempts(runs_dir: Path, ref: str) -> int | None:
    """The attempts of the run ``--resume`` names when it is already complete, else None
    (whatever is wrong with it, the resume itself says)."""
    from bench.core.errors import BenchError
    from bench.records.store import RunStore

    try:
        status = RunStore(runs_dir).resolve(ref).status()
    except (BenchError, OSError):
        return None
    return status.attempts_done if status.status == "complete" else None


# The budget options come after what a run needs (--tasks, --target …), where `bench run --help`
# used to open with eight of them.
_at = next(i for i, p in enumerate(run.params) if p.name == "timeout") + 1
run.params[_at:_at] = [
    *_budget_options("task-budget-", "per-attempt cap overriding the task's budget"),
    *_budget_options("run-budget-", "cap for the whole run; attempts it prevents are skipped"),
]
del _at
