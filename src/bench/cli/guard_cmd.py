"""``bench pr-guard``: the path guard of the PR workflow.

A refusal is a ``GuardRefusal`` (a ``BenchError``): the command group prints it as one line,
``error[CODE]: path: message``, and exits 1, with no traceback. A git failure (an unknown base)
is a usage error (exit 2).
"""

from __future__ import annotations

import click

from .common import CONTEXT


@click.command("pr-guard", context_settings=CONTEXT)
@click.option("--base", required=True, help="The PR's base commit (keys come from it).")
@click.option("--head", default="HEAD", show_default=True, help="The PR's head commit.")
def pr_guard(base: str, head: str) -> None:
    """Print the one bundle directory a results PR adds (nothing for a registration).

    A PR changes the files of one entrant: one new results/<entrant>/<run_id>/ (and that
    entrant's submissions/<entrant>.yaml), or a registration (that entrant's yaml and its own
    lines of submissions/allowed_signers). Exit 1 with error[CODE] when it changes anything
    else (docs/SUBMISSIONS.md, "What a pull request may change").
    """
    from bench.verify.guard import guard_revisions

    bundle = guard_revisions(base, head)
    if bundle is not None:
        click.echo(bundle)
