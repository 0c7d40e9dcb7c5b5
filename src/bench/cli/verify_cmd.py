"""``bench verify``."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT


@click.command(context_settings=CONTEXT)
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option(
    "--results-root", type=click.Path(path_type=Path), default=Path("results"), show_default=True
)
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path),
    default=Path("submissions/allowed_signers"),
    show_default=True,
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
    default=Path("tasks"),
    show_default=True,
    help="The pinned task set.",
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
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the replay sample.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.pass_context
def verify(
    ctx: click.Context,
    bundle: Path,
    results_root: Path,
    allowed_signers: Path,
    base_ref: str | None,
    tasks: Path,
    corpora: Path | None,
    repository: str,
    replay_sample: int,
    seed: int,
    fmt: str,
) -> None:
    """Verify the bundle at BUNDLE (results/<entrant>/<run_id>); write nothing.

    Exit 0 valid, 1 invalid, 2 unusable input. Codes: docs/VERIFY-ERRORS.md. In a pull
    request pass --base-ref with the base commit: keys come from the base branch, never from
    the change being verified (a bad REF, or no allowed_signers there, is SIGNERS_UNUSABLE).
    """
    from bench.verify import VerifyOptions, verify_bundle
    from bench.verify.render import render

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
    verdict = verify_bundle(bundle, options)
    click.echo(render(verdict, fmt), err=not verdict.valid and fmt == "text")
    ctx.exit(verdict.exit_code)
