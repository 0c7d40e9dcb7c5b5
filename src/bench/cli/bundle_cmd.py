"""``bench bundle``."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT, runs_dir_option


@click.command(context_settings=CONTEXT)
@click.argument("run_ref", metavar="RUN")
@click.option("--entrant", required=True, help="Your entrant id (the allowed_signers principal).")
@click.option(
    "--key",
    "key_file",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Unencrypted OpenSSH ed25519 private key.",
)
@click.option(
    "--out",
    "out_root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("results"),
    show_default=True,
    help="Where the bundle is written, as OUT/<entrant>/<run_id>/ (the repository's results/).",
)
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("submissions/allowed_signers"),
    show_default=True,
    help="Registered keys: --key must be the one registered there for --entrant.",
)
@click.option(
    "--repository",
    default="bench-suite",
    show_default=True,
    help="The repository the bundle is for, as its manifest names it (bench verify --repository).",
)
@click.option("--allow-partial", is_flag=True, help="Bundle a partial run (it is flagged).")
@runs_dir_option
def bundle(
    run_ref: str,
    entrant: str,
    key_file: Path,
    out_root: Path,
    allowed_signers: Path,
    repository: str,
    allow_partial: bool,
    runs_dir: Path,
) -> None:
    """Pack RUN into OUT/<entrant>/<run_id>/ and sign its manifest (SSHSIG, ed25519).

    The key must be an unencrypted OpenSSH ed25519 key registered for ENTRANT in
    allowed_signers. An existing bundle is never overwritten.
    """
    from bench.records.store import RunStore
    from bench.signing.bundle import build_bundle

    run = RunStore(runs_dir).resolve(run_ref)
    path = build_bundle(
        run,
        entrant=entrant,
        key_file=key_file,
        out_root=out_root,
        allowed_signers=allowed_signers,
        repository=repository,
        allow_partial=allow_partial,
    )
    click.echo(f"bundled {run.run_id} → {path}")
