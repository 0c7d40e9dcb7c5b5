"""``bench bundle``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT, keygen_hint, runs_dir_option, with_hint

if TYPE_CHECKING:
    from bench.core.errors import BenchError
    from bench.signing.errors import KeyError_


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
    from bench.signing.errors import KeyError_, SignersError

    run = RunStore(runs_dir).resolve(run_ref)
    try:
        path = build_bundle(
            run,
            entrant=entrant,
            key_file=key_file,
            out_root=out_root,
            allowed_signers=allowed_signers,
            repository=repository,
            allow_partial=allow_partial,
        )
    except KeyError_ as exc:
        raise _key_hinted(exc, key_file) from None
    except SignersError as exc:
        if exc.code != "SIGNERS_MISSING" or allowed_signers.exists():
            raise
        raise with_hint(
            exc,
            f"it is read from {allowed_signers} in the current directory: run bench bundle "
            "from the root of your clone, or give --allowed-signers",
        ) from None
    click.echo(f"bundled {run.run_id} → {path}")


def _key_hinted(exc: KeyError_, key_file: Path) -> BenchError:
    """A new contributor's two mistakes with --key, said with what to do instead: no key
    made yet, and the public half given for the private one."""
    if exc.code != "KEY_INVALID":
        return exc
    if not key_file.exists() and not key_file.is_symlink():
        return with_hint(exc, keygen_hint(key_file))
    try:
        head = key_file.read_bytes()[:16]
    except OSError:
        return exc
    if head.startswith(b"ssh-"):
        private = key_file.with_suffix("") if key_file.suffix == ".pub" else None
        which = f" ({private})" if private is not None else ""
        return with_hint(
            exc, f"this is a public key: --key takes its private half{which}, never shared"
        )
    return exc
