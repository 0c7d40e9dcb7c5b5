"""``bench submissions lint`` and ``bench key register``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT, keygen_hint, with_hint

if TYPE_CHECKING:
    from bench.core.errors import BenchError
    from bench.signing.errors import KeyError_


@click.group(context_settings=CONTEXT)
def submissions() -> None:
    """Check the submissions directory (allowed_signers and <entrant>.yaml files)."""


@submissions.command(context_settings=CONTEXT)
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("submissions"),
    show_default=True,
    help="The directory holding allowed_signers and the <entrant>.yaml files.",
)
@click.pass_context
def lint(ctx: click.Context, directory: Path) -> None:
    """Lint DIR/allowed_signers and every DIR/<entrant>.yaml, and cross-check them.

    allowed_signers: one literal principal, the namespace option, ed25519 only. <entrant>.yaml:
    the registry model, https: links only, no control or bidi characters in shown text, and no
    display_name the board would refuse as a look-alike (mixed scripts, a character that draws
    nothing, or another entrant's name to the eye). A key without a registry file is an error; a
    registry file without a key is a warning (exit 0).
    """
    from bench.signing.registry import lint_directory

    records, findings = lint_directory(directory)
    for finding in findings:
        click.echo(finding.render(), err=True)
    errors = sum(f.severity == "error" for f in findings)
    if errors:
        ctx.exit(1)
    warnings = len(findings) - errors
    suffix = f", {warnings} warning(s)" if warnings else ""
    click.echo(f"{directory}: ok ({len(records)} entrant file(s){suffix})")


@click.group(context_settings=CONTEXT)
def key() -> None:
    """Signing keys of entrants."""


@key.command(context_settings=CONTEXT)
@click.option("--entrant", required=True, help="Your entrant id.")
@click.option(
    "--pubkey",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Your ed25519 public key (id_ed25519.pub).",
)
def register(entrant: str, pubkey: Path) -> None:
    """Print the allowed_signers line for ENTRANT's key (add it in its own pull request)."""
    import base64

    from bench.core.errors import UsageError
    from bench.core.ids import is_valid_id
    from bench.signing import lint_text, read_public_key_file, signer_line

    if not is_valid_id(entrant):
        raise UsageError(f"--entrant '{entrant}' is not an id ([a-z0-9][a-z0-9-]*)")
    from bench.signing.errors import KeyError_

    try:
        blob = read_public_key_file(pubkey)
    except KeyError_ as exc:
        raise _pubkey_hinted(exc, pubkey) from None
    line = signer_line(entrant, f"ssh-ed25519 {base64.b64encode(blob).decode()}")
    assert not lint_text(line)[1]
    click.echo(line)


def _pubkey_hinted(exc: KeyError_, pubkey: Path) -> BenchError:
    """No key pair made yet, or the private half given for the public one: said with what to
    do instead (docs/SUBMISSIONS.md, 1. Register a key)."""
    if not pubkey.exists() and not pubkey.is_symlink():
        private = pubkey.with_suffix("") if pubkey.suffix == ".pub" else pubkey
        return with_hint(exc, keygen_hint(private))
    try:
        head = pubkey.read_bytes()[:64]
    except OSError:
        return exc
    if b"PRIVATE KEY" in head:
        return type(exc)(
            f"this is a private key, which stays with you: --pubkey takes its public half "
            f"({pubkey.name}.pub beside it)",
            code="KEY_INVALID",
            path=exc.path,
        )
    return exc
