"""``bench check``: static checks on cases and tasks before any model runs; costs nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from .common import CONTEXT, format_option, require_exists


def bm25_ranker(message: str, world: Sequence[tuple[str, str]], k: int) -> list[str]:
    """The runner's own tool selection (``bench.world.selection``), so check and run agree."""
    from bench.world.selection import rank_tools

    return rank_tools(message, world, k)


def load_checked(path: Path, tools: Path | None) -> list[Any]:
    """The case files and task files under ``path``, reduced to what the check rules read."""
    from bench.core.files import read_structured
    from bench.tasks.cases.check import from_case_file, from_tasks
    from bench.tasks.cases.convert import is_case_document, parse_case_file, with_world
    from bench.tasks.load import load_task_file, task_files

    checked = []
    for file in task_files(path):
        raw = read_structured(file)
        if is_case_document(raw):
            document = with_world(parse_case_file(raw, file), file, tools)
            checked.append(from_case_file(document, str(file)))
        else:
            checked.append(from_tasks(load_task_file(file), str(file)))
    return checked


def _policy_file(path: Path) -> Any:
    from pydantic import ValidationError

    from bench.core.errors import InputError
    from bench.core.files import read_structured
    from bench.core.validation import describe
    from bench.tasks.cases.check import PolicyFile

    try:
        return PolicyFile.model_validate(read_structured(path))
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="POLICY_INVALID", path=path, field=field or None) from None


@click.command(context_settings=CONTEXT)
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    "policy_kind",
    type=click.Choice(["all", "top-k"]),
    default=None,
    help="Tool-selection policy: every tool, or the top k by BM25 over name and description "
    "for the message (default: the --policy-file's, else all).",
)
@click.option("--k", type=click.IntRange(min=1), default=None, help="k for top-k (default 9).")
@click.option(
    "--policy-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="YAML/JSON {policy: all|top-k, k: N, available: [tool, ...]}: a target's policy and "
    "the tools its machine has.",
)
@click.option(
    "--available",
    multiple=True,
    help="A tool this machine has (repeatable); 'requires' is checked against these.",
)
@click.option(
    "--tools",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Tool world {tools: [{name, description, result}]} for case files without 'tools'.",
)
@click.option(
    "--target",
    "target_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Take the policy (and the available tools) from this target file's tool_selection.",
)
@format_option
@click.pass_context
def check(
    ctx: click.Context,
    path: Path,
    policy_kind: str | None,
    k: int | None,
    policy_file: Path | None,
    available: tuple[str, ...],
    tools: Path | None,
    target_file: Path | None,
    fmt: str,
) -> None:
    """Check the cases under PATH (one-screen case files or task files) before any model runs.

    Refuses evidence of 2 characters or fewer, without a letter or digit, inside a number the
    question gives, or already in the question; forbidden or expected tools that are not in
    the world; a tool both expected and forbidden; and an expected tool the tool-selection
    policy never shows. Stops first when 'requires' names a tool the machine lacks.
    Exit 0 clean, 1 findings, 2 unusable input.
    """
    from bench.core.errors import BenchError, InputError
    from bench.tasks.cases.check import Policy, missing_tools
    from bench.tasks.cases.check import check as run_checks

    try:
        for named in (path, target_file):  # examples/cases/…, examples/targets/…
            if named is not None:
                require_exists(named)
        settings = _policy_file(policy_file) if policy_file is not None else None
        if settings is None and target_file is not None:
            from bench.targets.load import read_target_spec
            from bench.tasks.cases.check import PolicyFile

            settings = read_target_spec(target_file).tool_selection or PolicyFile()
        kind = policy_kind or (settings.policy if settings is not None else "all")
        size = k if k is not None else (settings.k if settings is not None else 9)
        have: list[str] | None = list(available) or None
        if have is None and settings is not None and settings.available is not None:
            have = list(settings.available)
        checked = load_checked(path, tools)
        for item in checked:
            missing = missing_tools(item, have)
            if missing:
                raise InputError(
                    f"this machine lacks {', '.join(missing)}; nothing was checked or run",
                    code="CASES_REQUIRES",
                    path=item.source,
                    field="requires",
                )
    except BenchError as exc:
        click.echo(f"error[{exc.code}]: {exc.render()}", err=True)
        ctx.exit(2)
    policy = Policy(kind="top-k" if kind == "top-k" else "all", k=size, ranker=bm25_ranker)
    findings = run_checks(checked, policy)
    cases = sum(len(item.cases) for item in checked)
    if fmt == "json":
        payload = {
            "ok": not findings,
            "policy": policy.label(),
            "files": len(checked),
            "cases": cases,
            "findings": [{"where": f.where, "rule": f.rule, "text": f.text} for f in findings],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
    else:
        for finding in findings:
            click.echo(finding.line())
        summary = f"{cases} case(s) in {len(checked)} file(s), policy {policy.label()}"
        click.echo(f"{len(findings)} finding(s); {summary}" if findings else f"ok: {summary}")
    ctx.exit(1 if findings else 0)
