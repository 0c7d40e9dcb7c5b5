"""The manifest: canonical bytes, its schema, where it says it belongs, its signature, and
the files it lists."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import rfc8785
from pydantic import ValidationError

from bench.core.canonical import sha256_hex
from bench.core.validation import describe
from bench.records.bundle import MANIFEST, PAYLOAD, SIGNATURE, BundleManifest
from bench.signing import SignatureError, sshsig
from bench.signing.allowed_signers import AllowedSigners

from . import jsonsafe
from .codes import Code
from .failure import VerifyFailure
from .layout import MAX_MANIFEST_BYTES, Placement, unsafe_reason

CLOCK_SKEW = timedelta(minutes=5)
_REASONS: dict[str, Code] = {
    "malformed": Code.SIGNATURE_MALFORMED,
    "hash": Code.SIGNATURE_MALFORMED,
    "namespace": Code.SIGNATURE_NAMESPACE,
    "key_type": Code.SIGNATURE_KEY_TYPE,
    "unknown_principal": Code.SIGNER_UNKNOWN,
    "wrong_key": Code.SIGNATURE_WRONG_KEY,
    "bad": Code.SIGNATURE_INVALID,
}


def read_manifest(bundle: Path, sizes: dict[str, int]) -> tuple[bytes, BundleManifest]:
    where = str(bundle / MANIFEST)
    if MANIFEST not in sizes:
        raise VerifyFailure(Code.MANIFEST_MISSING, "no manifest.json", path=where)
    if sizes[MANIFEST] > MAX_MANIFEST_BYTES:
        raise VerifyFailure(Code.LIMIT_SIZE, f"larger than {MAX_MANIFEST_BYTES} bytes", path=where)
    raw = (bundle / MANIFEST).read_bytes()
    value = jsonsafe.load(raw, where, ijson=True)
    if rfc8785.dumps(value) != raw:
        raise VerifyFailure(
            Code.MANIFEST_NOT_CANONICAL, "not RFC 8785 canonical JSON bytes", path=where
        )
    files = value.get("files") if isinstance(value, dict) else None
    for index, entry in enumerate(files if isinstance(files, list) else []):
        name = entry.get("path") if isinstance(entry, dict) else None
        reason = unsafe_reason(name) if isinstance(name, str) else None
        if reason is not None:
            raise VerifyFailure(
                Code.PATH_UNSAFE, f"listed path {reason}", path=where, field=f"files[{index}].path"
            )
    try:
        return raw, BundleManifest.model_validate(value)
    except ValidationError as exc:
        field, message = describe(exc)
        raise VerifyFailure(Code.MANIFEST_SCHEMA, message, path=where, field=field) from None


def check_binding(
    manifest: BundleManifest, placement: Placement, repository: str, where: str
) -> None:
    """The manifest names the place it sits in; a copy elsewhere fails here."""
    checks = (
        ("entrant", manifest.entrant, placement.entrant, Code.ENTRANT_MISMATCH),
        ("run_id", manifest.run_id, placement.run_id, Code.RUN_ID_MISMATCH),
        ("target_dir", manifest.target_dir, placement.target_dir, Code.TARGET_DIR_MISMATCH),
        ("repository", manifest.repository, repository, Code.REPOSITORY_MISMATCH),
    )
    for field, claimed, actual, code in checks:
        if claimed != actual:
            raise VerifyFailure(
                code, f"says '{claimed[:80]}', but here it is '{actual}'", path=where, field=field
            )


def check_signature(
    bundle: Path, raw: bytes, signers: AllowedSigners, placement: Placement, sizes: dict[str, int]
) -> None:
    where = str(bundle / SIGNATURE)
    if SIGNATURE not in sizes:
        raise VerifyFailure(Code.SIGNATURE_MISSING, "no manifest.json.sig", path=where)
    if sizes[SIGNATURE] > sshsig.MAX_ARMOURED:
        raise VerifyFailure(Code.LIMIT_SIZE, "signature file too large", path=where)
    keys = signers.keys_for(placement.entrant)
    if not keys:
        raise VerifyFailure(
            Code.SIGNER_UNKNOWN,
            f"entrant '{placement.entrant}' has no key in {signers.path}",
            path=where,
        )
    try:
        text = (bundle / SIGNATURE).read_bytes().decode("ascii")
        sshsig.verify(raw, text, keys, sshsig.NAMESPACE, where)
    except UnicodeDecodeError:
        raise VerifyFailure(Code.SIGNATURE_MALFORMED, "not ASCII armour", path=where) from None
    except SignatureError as exc:
        raise VerifyFailure(_REASONS[exc.reason], exc.message, path=where) from None


def check_time(manifest: BundleManifest, now: datetime, where: str) -> None:
    created = datetime.strptime(manifest.created_at, "%Y-%m-%dT%H:%M:%S%z")
    if created > now + CLOCK_SKEW:
        raise VerifyFailure(
            Code.CREATED_IN_FUTURE,
            f"{manifest.created_at} is after the verifier's clock (+{CLOCK_SKEW})",
            path=where,
            field="created_at",
        )


def check_run_time(bundle: Path, created: datetime, manifest: BundleManifest) -> None:
    """The run was made before it was bundled: config.json's ``created_at`` is a UTC time
    not after the manifest's (the board shows it, and picks an entrant's latest run by it)."""
    if created.utcoffset() != timedelta(0):
        # bench run writes UTC ("Z"). A time without a zone cannot be compared with one (a
        # traceback, not a verdict), and another zone shows another day on the board.
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"'{created.isoformat()}' is not a UTC time (bench run writes one ending in Z)",
            path=str(bundle / "config.json"),
            field="created_at",
        )
    bundled = datetime.strptime(manifest.created_at, "%Y-%m-%dT%H:%M:%S%z")
    if created > bundled + CLOCK_SKEW:
        raise VerifyFailure(
            Code.CREATED_IN_FUTURE,
            f"the run says it was created at {created.isoformat()}, after the bundle that "
            f"holds it ({manifest.created_at})",
            path=str(bundle / "config.json"),
            field="created_at",
        )


def check_files(bundle: Path, manifest: BundleManifest, sizes: dict[str, int]) -> None:
    seen: set[str] = set()
    for index, entry in enumerate(manifest.files):
        if entry.path in seen:  # one hash per file: which one a reader takes must not matter
            raise VerifyFailure(
                Code.MANIFEST_SCHEMA,
                f"{entry.path} is listed twice",
                path=str(bundle / MANIFEST),
                field=f"files[{index}].path",
            )
        seen.add(entry.path)
    listed = {entry.path: entry for entry in manifest.files}
    on_disk = set(sizes) - {MANIFEST, SIGNATURE}
    for name in sorted(on_disk - set(listed)):
        raise VerifyFailure(
            Code.BUNDLE_FILE_UNLISTED, "not listed in the manifest", path=str(bundle / name)
        )
    for name in sorted(set(listed) - set(PAYLOAD)):
        raise VerifyFailure(
            Code.BUNDLE_FILE_UNEXPECTED, "not a bundle file", path=str(bundle / name)
        )
    for name in PAYLOAD:
        if name not in listed or name not in sizes:
            raise VerifyFailure(
                Code.BUNDLE_FILE_MISSING, "listed or required, but absent", path=str(bundle / name)
            )
        entry = listed[name]
        if sizes[name] != entry.size:
            raise VerifyFailure(
                Code.FILE_SIZE_MISMATCH,
                f"{sizes[name]} bytes, the manifest says {entry.size}",
                path=str(bundle / name),
            )
        if sha256_hex((bundle / name).read_bytes()) != entry.sha256:
            raise VerifyFailure(
                Code.FILE_HASH_MISMATCH,
                "SHA-256 differs from the manifest",
                path=str(bundle / name),
            )


def check_unique(bundle: Path, placement: Placement) -> None:
    """No other bundle under the results root with this run id came before this one, or at
    the same time (a run counts once; the manifest binds entrant, run id and directory, so a
    copy elsewhere fails earlier). The order is provenance's (``provenance.order_key``: when
    each landed on the branch, then ``created_at``); of two that it cannot tell apart both are
    refused. Of two it can, only the later: a bundle given an honest bundle's run id (its
    directory's name, public in its pull request) made that bundle fail too, whichever came
    first, and the refusal on each named the other."""
    here = bundle.resolve()
    twins = [
        other.parent
        for other in sorted(placement.root.glob(f"*/{placement.run_id}/{MANIFEST}"))
        if other.parent.resolve() != here
    ]
    if not twins:
        return
    from .provenance import created_of, landing_order, order_key

    order = landing_order(placement.root)
    created = {path: created_of(path) for path in (bundle, *twins)}
    mine = order_key(bundle, order, created)[:3]  # landed?, landing rank, created_at
    for directory in twins:
        if order_key(directory, order, created)[:3] <= mine:
            raise VerifyFailure(
                Code.RUN_ID_REUSED,
                f"run id already published at {directory.relative_to(placement.root)}, which "
                "came first (or cannot be told from this one)",
                path=str(bundle),
            )


__all__ = [
    "check_binding",
    "check_files",
    "check_run_time",
    "check_signature",
    "check_time",
    "check_unique",
    "read_manifest",
]
