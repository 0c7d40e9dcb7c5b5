"""A valid bundle built once per session from a real run of tests/fixtures/mini (the ``good``
scripted entrant), and a private copy of its world (results/, submissions/) per test."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.keys import write_private_key

# Test modules here import their shared helpers (fixture_bundles) as top-level modules.
sys.path.insert(0, str(Path(__file__).parent))

MINI = Path(__file__).resolve().parent.parent / "fixtures" / "mini"
ENTRANT = "mini-good"


@dataclass(frozen=True)
class Session:
    base: Path
    mini: Path
    bundle: Path  # base/results/mini-good/<run_id>
    keys: dict[str, Ed25519PrivateKey]
    run_id: str


def signing_keys(root: Path, entrants: tuple[str, ...]) -> dict[str, Path]:
    """A fresh key per entrant under ``root/keys`` and their ``root/submissions/allowed_signers``;
    the private key files by entrant."""
    out = {}
    lines = []
    for name in entrants:
        path = root / "keys" / name
        key = write_private_key(path)
        out[name] = path
        lines.append(signer_line(name, public_line(key.public_key())) + "\n")
    signers = root / "submissions" / "allowed_signers"
    signers.parent.mkdir(parents=True)
    signers.write_text("".join(lines))
    return out


def _write_key(path: Path, key: Ed25519PrivateKey) -> Path:
    write_private_key(path, key)
    return path


def _bundle(base: Path, target: str, entrant: str, keys: dict[str, Ed25519PrivateKey]) -> Path:
    run, _ = start_run(
        RunRequest(
            tasks=base / "mini" / "tasks",
            target_file=base / "mini" / "targets" / f"{target}.yaml",
            runs_dir=base / "runs",
            split="public",
            concurrency=1,
        )
    )
    return build_bundle(
        run,
        entrant=entrant,
        key_file=_write_key(base / "keys" / entrant, keys[entrant]),
        out_root=base / "results",
        allowed_signers=base / "submissions" / "allowed_signers",
    )


@pytest.fixture(scope="session")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    base = tmp_path_factory.mktemp("bundles")
    shutil.copytree(MINI, base / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    names = (ENTRANT, "bob", "mini-crashes-on-refunds")
    keys = {name: Ed25519PrivateKey.generate() for name in names}
    (base / "submissions").mkdir()
    (base / "submissions" / "allowed_signers").write_text(
        "".join(signer_line(n, public_line(keys[n].public_key())) + "\n" for n in names)
    )
    bundle = _bundle(base, "good", ENTRANT, keys)
    _bundle(base, "crashes_on_refunds", "mini-crashes-on-refunds", keys)
    return Session(base, base / "mini", bundle, keys, bundle.name)


@dataclass(frozen=True)
class World:
    root: Path
    results: Path
    signers: Path
    tasks: Path
    bundle: Path
    keys: dict[str, Ed25519PrivateKey]
    run_id: str
    other: Path  # a valid, signed bundle of a run with too many errored attempts


@pytest.fixture
def world(session: Session, tmp_path: Path) -> World:
    """A private results/ + submissions/ + task set, with only the good bundle in results/."""
    root = tmp_path / "w"
    results = root / "results"
    bundle = results / ENTRANT / session.run_id
    shutil.copytree(session.bundle, bundle)
    crashes = next((session.base / "results" / "mini-crashes-on-refunds").iterdir())
    other = results / crashes.parent.name / crashes.name
    shutil.copytree(crashes, other)
    shutil.copytree(session.base / "submissions", root / "submissions")
    shutil.copytree(session.mini, root / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    return World(
        root,
        results,
        root / "submissions" / "allowed_signers",
        root / "mini" / "tasks",
        bundle,
        session.keys,
        session.run_id,
        other,
    )
