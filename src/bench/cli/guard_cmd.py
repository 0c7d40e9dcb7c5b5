"""``bench pr-guard``: the path guard of the PR workflow."""

from __future__ import annotations

import click

from .common import CONTEXT


@click.command("pr-guard", context_settings=CONTEXT)
@click.option("--base", required=True, help="The PR's base commit (keys come from it).")
@click.option("--head", default="HEAD", show_default=True)
def pr_guard(base: str, head: str) -> None:
    """Print the one bundle directory a results PR adds (nothing for a key registration).

    Exit 1 when the PR changes anything a results PR may not.
    """
    from bench.verify.guard import changes_between, guard

    bundle = guard(changes_between(base, head))
    if bundle is not None:
        click.echo(bundle)
