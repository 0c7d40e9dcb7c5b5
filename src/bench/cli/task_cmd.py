"""``bench task validate``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import click

from .common import CONTEXT, NOT_PACKAGED, format_option, require_tasks


@click.group(context_settings=CONTEXT)
def task() -> None:
    """Work with task files."""


@task.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Corpus root (default: the 'corpora' directory beside the task directory).",
)
@format_option
def validate(path: Path, corpora: Path | None, fmt: str) -> None:
    """Load and check every task under PATH (a file or a directory).

    Refuses a task with no 'because', an unknown expectation type, an expectation outside
    its family's vocabulary, a missing corpus document, duplicate ids, and the same task in
    both splits under two ids, naming the file and the field.
    """
    from bench.tasks.load import load_task_set
    from bench.world import check_task_set

    require_tasks(path)
    task_set = load_task_set(path, corpora)
    check_task_set(task_set)
    families = Counter(t.family for t in task_set.tasks)
    splits = Counter(t.split for t in task_set.tasks)
    if fmt == "json":
        payload = {
            "ok": True,
            "tasks": len(task_set.tasks),
            "files": [str(f) for f in task_set.files],
            "families": dict(sorted(families.items())),
            "splits": dict(sorted(splits.items())),
            "content_hash": task_set.content_hash(),
            "suite": task_set.suite.ref().model_dump(mode="json"),
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"ok: {len(task_set.tasks)} task(s) in {len(task_set.files)} file(s); "
        + ", ".join(f"{name} {count}" for name, count in sorted(families.items()))
        + "; "
        + ", ".join(f"{name} {count}" for name, count in sorted(splits.items()))
    )
    click.echo(f"task set hash {task_set.content_hash()}, suite {task_set.suite.ref().label()}")


def corpus_inputs(root: Path) -> tuple[dict[str, str], dict[str, bytes]]:
    """``{passage id: text}`` and ``{document: bytes}`` for every Markdown file under ``root``."""
    from bench.core.errors import InputError
    from bench.corpus import CorpusLibrary

    if not root.is_dir():
        raise InputError(
            f"corpus root not found (--corpora names it; {NOT_PACKAGED})",
            code="FILE_MISSING",
            path=root,
        )
    library = CorpusLibrary(root)
    docs = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file())
    passages = {p.id: p.text for doc in docs for p in library.passages(doc)}
    return passages, {doc: (root / doc).read_bytes() for doc in docs}


def generated_files(corpora: Path, public: int | None) -> tuple[dict[str, bytes], list[Any]]:
    from bench.tasks.generators import build_tasks, render_files

    passages, documents = corpus_inputs(corpora)
    tasks = build_tasks(passages, public=public)
    return render_files(tasks, documents), tasks


@task.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("tasks"),
    show_default=True,
    help="Directory the task files are written to.",
)
@click.option(
    "--public",
    type=click.IntRange(min=0),
    default=None,
    help="Keep only the first N public tasks of each family (ids are never renumbered).",
)
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Corpus root (default: the 'corpora' directory beside --out).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 with a unified diff when --out differs from the generator.",
)
def generate(out: Path, public: int | None, corpora: Path | None, check: bool) -> None:
    """Build the task set from the generator data (one YAML per family and split, plus the
    corpora manifest). Deterministic: the same data and corpora give the same bytes."""
    import difflib

    from bench.tasks.generators import counts

    root = corpora if corpora is not None else out.parent / "corpora"
    files, tasks = generated_files(root, public)
    if check:
        drift: list[str] = []
        for name, data in sorted(files.items()):
            path = out / name
            current = path.read_text(encoding="utf-8") if path.is_file() else ""
            expected = data.decode("utf-8")
            if current != expected:
                drift.extend(
                    difflib.unified_diff(
                        current.splitlines(keepends=True),
                        expected.splitlines(keepends=True),
                        fromfile=str(path),
                        tofile=f"{path} (generated)",
                    )
                )
        if drift:
            click.echo("".join(drift), nl=False)
            raise SystemExit(1)
        click.echo(f"ok: {out} matches the generator ({len(tasks)} task(s))")
        return
    from bench.core.atomic import made_directory

    with made_directory(out):  # a fresh --out that could not be filled is not left empty
        write_task_set(out, files)
    click.echo(f"wrote {len(files)} file(s), {len(tasks)} task(s) to {out}")
    click.echo(_table(counts(tasks)))


def write_task_set(out: Path, files: dict[str, bytes]) -> None:
    """Write every file of a task set into ``out``, all or none (``bench.core.atomic.write_set``):
    one file at a time, an interrupted generate left half a task set."""
    from bench.core.atomic import write_set

    write_set(out, files)


def _table(table: dict[str, dict[str, int]]) -> str:
    rows = [f"{'family':<24}{'public':>8}{'private':>9}{'total':>7}"]
    for family, cells in table.items():
        total = cells["public"] + cells["private"]
        rows.append(f"{family:<24}{cells['public']:>8}{cells['private']:>9}{total:>7}")
    pub = sum(c["public"] for c in table.values())
    prv = sum(c["private"] for c in table.values())
    rows.append(f"{'all':<24}{pub:>8}{prv:>9}{pub + prv:>7}")
    return "\n".join(rows)


def question_text(task_obj: Any) -> str:
    """What a task asks: its user messages, not its shared environment (tools, state, corpus)."""
    return "\n".join(m.content for m in task_obj.input if m.role == "user")


@task.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Corpus root (default: the 'corpora' directory beside the task directory).",
)
def lint(path: Path, corpora: Path | None) -> None:
    """Lint the task set under PATH; exit 1 on any finding, one line each (rule, task ids).

    Four checks: near-duplicates and n-gram leaks (docs/TASKSET.md) across and within the
    splits, comparing what each task asks rather than its shared tools and state; plan copies
    (the same tool plan and expected values under other words, bench.tasks.distinct) and
    private grounded questions needing a passage a public task needs; every
    rule 'bench check' runs, under policy all; and the floor: every baseline in
    bench.baselines runs over the set, and a task one of them passes is a finding.
    """
    from bench.baselines import BASELINES
    from bench.core.errors import InputError
    from bench.runner.floor import floor_passes
    from bench.stats.leaks import find_leaks
    from bench.tasks.cases.check import Policy, missing_tools
    from bench.tasks.cases.check import check as check_rules
    from bench.tasks.distinct import plan_copies, shared_passages
    from bench.tasks.load import load_task_set

    from .check_cmd import load_checked

    require_tasks(path)
    task_set = load_task_set(path, corpora)
    lines: list[str] = []
    groups = sorted({(t.family, t.language) for t in task_set.tasks})
    for family, language in groups:  # the instruction template is per family and language
        chosen = [t for t in task_set.tasks if (t.family, t.language) == (family, language)]
        least = 2 if len(chosen) < 8 else 4
        for leak in find_leaks([(t.id, t.split, question_text(t)) for t in chosen], least=least):
            lines.append(f"{leak.kind}: {leak.first} ~ {leak.second}: {leak.detail}")
    copies = plan_copies(task_set.tasks)
    lines += [f"{c.kind}: {c.first} ~ {c.second}: {c.detail}" for c in copies]
    shared = shared_passages(task_set.tasks)
    lines += [f"{s.kind}: {s.first} ~ {s.second}: {s.detail}" for s in shared]
    checked = load_checked(path, None)
    for item in checked:
        missing = missing_tools(item, None)
        if missing:
            lines.append(f"requires: {item.source}: needs {', '.join(missing)}, not in its world")
    lines += [f"{f.rule}: {f.where}: {f.text}" for f in check_rules(checked, Policy(kind="all"))]
    entrants = {name: f"bench.baselines:{fn.__name__}" for name, fn in BASELINES.items()}
    try:
        hits = floor_passes(path, entrants, corpora)
    except InputError as exc:  # a set that does not validate cannot run; say so, keep the rest
        hits = []
        lines.append(
            f"baseline-skipped: the baselines cannot run: error[{exc.code}]: {exc.render()}"
        )
    for hit in hits:
        lines.append(
            f"baseline-pass: {hit.task_id}: the no-model baseline '{hit.entrant}' passes it; "
            "a task an empty agent passes measures nothing"
        )
    count = len(task_set.tasks)
    distinct = count - len(copies)
    for line in lines:
        click.echo(line)
    if lines:
        click.echo(f"{len(lines)} finding(s); {count} task(s), {distinct} distinct by plan")
        raise SystemExit(1)
    click.echo(
        f"ok: {count} task(s), all distinct; no near-duplicates or leaks, no plan copies "
        "or shared passages, "
        f"no 'bench check' findings, no task passed by {len(entrants)} baseline(s)"
    )


@task.command(name="import")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Directory the task file <name>.yaml is written to.",
)
@click.option(
    "--tools",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Tool world {tools: [{name, description, result}]} when FILE has no 'tools'.",
)
@click.option(
    "--split",
    type=click.Choice(["public", "private"]),
    default="public",
    show_default=True,
    help="Split of the imported tasks.",
)
def import_cases(file: Path, out: Path, tools: Path | None, split: str) -> None:
    """Import a one-screen case file (name, language, requires, tools, cases) into an ordinary
    task file, one tool-trajectory task per case (docs/TASKSET.md has the mapping)."""
    from bench.core.atomic import made_directory, write_atomic
    from bench.tasks.cases.convert import load_case_file, render_task_file, to_tasks

    document = load_case_file(file, tools)
    tasks = to_tasks(document, split=split, path=file)
    target = out / f"{document.name}.yaml"
    with made_directory(out):  # a full disk leaves no empty --out behind
        write_atomic(target, render_task_file(tasks, file.name))
    click.echo(f"wrote {len(tasks)} task(s) to {target}")
