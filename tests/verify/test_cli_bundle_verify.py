"""``bench bundle`` refusals and ``bench verify``'s exit codes and formats, through click."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bench.cli.bundle_cmd import bundle
from bench.cli.verify_cmd import verify
from bench.core.errors import BenchError


def _runs(session: Any, tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    source = session.base / "runs" / session.run_id
    shutil.copytree(source, runs / session.run_id)
    return runs


def _bundle(session: Any, tmp_path: Path, *extra: str, entrant: str = "mini-good") -> Any:
    key = session.base / "keys" / "mini-good"
    args = [session.run_id, "--entrant", entrant, "--key", str(key)]
    args += ["--out", str(tmp_path / "results"), "--runs-dir", str(_runs(session, tmp_path))]
    args += ["--allowed-signers", str(session.base / "submissions" / "allowed_signers"), *extra]
    return CliRunner().invoke(bundle, args)


def _code(result: Any) -> str | None:
    exc = result.exception
    return exc.code if isinstance(exc, BenchError) else None


def test_bundle_is_deterministic_and_never_overwritten(session: Any, tmp_path: Path) -> None:
    first = _bundle(session, tmp_path)
    assert first.exit_code == 0, first.output
    written = tmp_path / "results" / "mini-good" / session.run_id
    assert sorted(p.name for p in written.iterdir()) == sorted(
        p.name for p in session.bundle.iterdir()
    )
    assert (written / "attempts.jsonl.gz").read_bytes() == (
        session.bundle / "attempts.jsonl.gz"
    ).read_bytes()
    before = (written / "manifest.json").read_bytes()
    shutil.rmtree(tmp_path / "runs")
    again = _bundle(session, tmp_path)
    assert _code(again) == "BUNDLE_EXISTS"
    assert (written / "manifest.json").read_bytes() == before


def test_bundle_refuses_an_unregistered_entrant(session: Any, tmp_path: Path) -> None:
    assert _code(_bundle(session, tmp_path, entrant="carol")) == "SIGNER_UNKNOWN"


def test_bundle_refuses_another_entrants_run(session: Any, tmp_path: Path) -> None:
    assert _code(_bundle(session, tmp_path, entrant="bob")) == "KEY_NOT_REGISTERED"


def test_bundle_refuses_a_non_ed25519_key(session: Any, tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    path = tmp_path / "id_rsa"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    runs = _runs(session, tmp_path)
    result = CliRunner().invoke(
        bundle,
        [session.run_id, "--entrant", "mini-good", "--key", str(path), "--runs-dir", str(runs),
         "--allowed-signers", str(session.base / "submissions" / "allowed_signers")],
    )  # fmt: skip
    assert _code(result) == "KEY_TYPE"


def test_bundle_refuses_a_partial_run_unless_allowed(session: Any, tmp_path: Path) -> None:
    runs = _runs(session, tmp_path)
    status_file = runs / session.run_id / "status.json"
    status = json.loads(status_file.read_text())
    status.update(status="partial", partial_reason="run budget: dollars")
    status_file.write_text(json.dumps(status))
    base = [session.run_id, "--entrant", "mini-good", "--runs-dir", str(runs)]
    base += ["--key", str(session.base / "keys" / "mini-good"), "--out", str(tmp_path / "r")]
    base += ["--allowed-signers", str(session.base / "submissions" / "allowed_signers")]
    assert _code(CliRunner().invoke(bundle, base)) == "RUN_PARTIAL"
    assert CliRunner().invoke(bundle, [*base, "--allow-partial"]).exit_code == 0


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_verify_cli_exit_codes_and_formats(world: Any, fmt: str) -> None:
    args = ["--results-root", str(world.results), "--allowed-signers", str(world.signers)]
    args += ["--tasks", str(world.tasks), "--format", fmt]
    ok = CliRunner().invoke(verify, [str(world.bundle), *args])
    assert ok.exit_code == 0, ok.output
    (world.bundle / "evil`<b>@x|y.txt").write_text("x")
    bad = CliRunner().invoke(verify, [str(world.bundle), *args])
    assert bad.exit_code == 1
    if fmt == "json":
        assert json.loads(bad.output)["code"] == "PATH_UNSAFE"
    elif fmt == "markdown":
        assert "`PATH_UNSAFE`" in bad.output and "<b>" not in bad.output
        assert "@x" not in bad.output and "|y" not in bad.output
    else:
        assert bad.output.startswith("error[PATH_UNSAFE]")
    gone = CliRunner().invoke(verify, [str(world.results / "x" / "y"), *args])
    assert gone.exit_code == 2
