"""``bench verify``."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT


@click.command(context_settings=CONTEXT)
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option(
    "--results-root",
    type=click.Path(path_type=Path),
    default=None,
    help="The results directory the bundle sits in (default: the nearest results/ above "
    "BUNDLE, else ./results).",
)
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path),
    default=None,
    help="Registered keys (default: submissions/allowed_signers of the repository BUNDLE sits "
    "in, the directory holding its results/; else ./submissions/allowed_signers).",
)
@click.option(
    "--base-ref",
    metavar="REF",
    help="Read submissions/allowed_signers as committed at REF (git cat-file, in the current "
    "directory's repository) instead of the working tree; overrides --allowed-signers.",
)
@click.option(
    "--tasks",
    type=click.Path(path_type=Path),
    default=None,
    help="The pinned task set (default: tasks/ of the repository BUNDLE sits in, else ./tasks).",
)
@click.option(
    "--suite-tasks",
    "suite_tasks",
    type=click.Path(path_type=Path),
    multiple=True,
    help="The task set of an imported suite (DIR/tasks of bench suite import, its suite.json "
    "beside it); repeatable, one task set per suite (SUITE_TASKS otherwise). A bundle whose run "
    "names that suite is verified against it instead of --tasks (as bench board build "
    "--suite-tasks does).",
)
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    help="Corpus root of the task set.",
)
@click.option(
    "--repository",
    default="bench-suite",
    show_default=True,
    help="This repository's name, as bundles must name it.",
)
@click.option(
    "--replay-sample",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Attempts to replay from the cassette.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the replay sample (and of the --live sample). Default: derived from the "
    "--base-ref commit (else the commit that added the bundle) and the manifest's hash, so a "
    "submitter can neither predict nor choose it; the report names what it came from.",
)
@click.option(
    "--live",
    is_flag=True,
    help="After the offline checks pass, re-run a seeded sample of public tasks against the "
    "entrant's endpoint from --endpoint-allowlist and test the live pass rate against the "
    "claimed one. Needs the key's environment variable; maintainers only.",
)
@click.option(
    "--endpoint-allowlist",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="With --live: the trusted allow-list of endpoints (e.g. submissions/endpoints.yaml; "
    "read at --base-ref when given). Never a URL from the bundle.",
)
@click.option(
    "--live-sample",
    type=click.IntRange(min=1, max=1000),
    default=30,
    show_default=True,
    help="With --live: public tasks to re-run (each with the bundle's repeats).",
)
@click.option(
    "--live-alpha",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="With --live: significance level of the exact sign-flip test.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text: the verdict in a line; json: the verdict as an object; markdown: the pull "
    "request's comment.",
)
@click.pass_context
def verify(
    ctx: click.Context,
    bundle: Path,
    results_root: Path | None,
    allowed_signers: Path | None,
    base_ref: str | None,
    tasks: Path | None,
    suite_tasks: tuple[Path, ...],
    corpora: Path | None,
    repository: str,
    replay_sample: int,
    seed: int | None,
    live: bool,
    endpoint_allowlist: Path | None,
    live_sample: int,
    live_alpha: float,
    fmt: str,
) -> None:
    """Verify the bundle at BUNDLE (results/<entrant>/<run_id>); write nothing.

    Exit 0 valid, 1 invalid, 2 unusable input. Codes: docs/VERIFY-ERRORS.md. The results
    root, allowed_signers and task set default to those of the repository BUNDLE sits in (the
    directory holding its results/); every missing input is named at once (exit 2). In a pull
    request pass --base-ref with the base commit: keys come from the base branch, never from
    the change being verified (a bad REF, or no allowed_signers there, is SIGNERS_UNUSABLE).

    --live (with --endpoint-allowlist) then re-runs --live-sample public tasks against the
    endpoint on the allow-list whose endpoint_id the bundle records: LIVE_INCONSISTENT (exit 1)
    when the exact sign-flip p-value is below --live-alpha, LIVE_RERUN_FAILED (exit 2) when the
    re-run itself failed, LIVE_SERVER_CHANGED (exit 2) when the endpoint now declares another
    engine, version, context window or quantisation than the run recorded. Nothing is written
    outside a temp directory, removed after. Details: docs/LIVE-VERIFY.md.
    """
    from click.core import ParameterSource

    from bench.core.errors import UsageError
    from bench.verify import VerifyOptions, verify_bundle
    from bench.verify.inputs import default_inputs
    from bench.verify.render import render

    if live and endpoint_allowlist is None:
        raise UsageError("--live needs --endpoint-allowlist FILE (the trusted allow-list)")
    given = [
        f"--{name.replace('_', '-')}"
        for name in ("endpoint_allowlist", "live_sample", "live_alpha")
        if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
    ]
    if given and not live:
        raise UsageError(f"{', '.join(given)} only apply with --live")

    results_root, allowed_signers, tasks = default_inputs(
        bundle, results_root, allowed_signers, tasks
    )
    if suite_tasks:
        from bench.core.suite import suites_given
        from bench.verify.inputs import tasks_for_suite

        suites = suites_given(suite_tasks, code="SUITE_TASKS")
        tasks = tasks_for_suite(bundle, tasks, {name: path for name, (path, _) in suites.items()})
    options = VerifyOptions(
        results_root=results_root,
        allowed_signers=allowed_signers,
        base_ref=base_ref,
        tasks=tasks,
        corpus_root=corpora,
        replay_sample=replay_sample,
        seed=seed,
        repository=repository,
    )
    if live and endpoint_allowlist is not None:
        from bench.verify.live import LiveOptions, verify_live

        live_options = LiveOptions(endpoint_allowlist, sample=live_sample, alpha=live_alpha)
        result = verify_live(bundle, options, live_options)
        click.echo(render(result, fmt), err=not result.valid and fmt == "text")
        ctx.exit(result.exit_code)
    verdict = verify_bundle(bundle, options)
    click.echo(render(verdict, fmt), err=not verdict.valid and fmt == "text")
    ctx.exit(verdict.exit_code)
