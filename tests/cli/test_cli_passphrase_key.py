"""docs/SUBMISSIONS.md, "3. Bundle": a submitter whose key has a passphrase signs with
`ssh-keygen -Y sign`. The page's commands are run here as written (the passphrase given with -P
instead of typed), with real ssh-keygen, and the bundle they leave verifies."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- passphrase:begin -->\n```sh\n(.*?)```\n<!-- passphrase:end -->", re.S)

# ssh-keygen is installed when missing, or the test fails (tests/conftest.py): never skipped.
pytestmark = pytest.mark.usefixtures("ssh_keygen")


def _invoke(cwd: Path, *args: str) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args))
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout + result.stderr


def test_a_passphrase_key_signs_a_bundle_as_the_page_says(mini: Path) -> None:
    text = (REPO / "docs" / "SUBMISSIONS.md").read_text(encoding="utf-8")
    [block] = BLOCK.findall(text)
    key = mini / "home" / "bench_ed25519"
    key.parent.mkdir()
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-f", str(key)], check=True
    )
    code, out = _invoke(mini, "key", "register", "--entrant", "mini-good", "--pubkey", f"{key}.pub")
    assert code == 0, out
    (mini / "submissions").mkdir()
    (mini / "submissions" / "allowed_signers").write_text(out, encoding="utf-8")
    code, out = _invoke(
        mini, "run", "--tasks", "tasks", "--target", "targets/good.yaml", "--progress", "none"
    )
    assert code == 0, out
    [run_id] = [p.name for p in (mini / "runs").iterdir() if (p / "config.json").is_file()]

    # Our own key is refused by bench bundle, as the page says.
    code, out = _invoke(mini, "bundle", "latest", "--entrant", "mini-good", "--key", str(key))
    assert code == 3 and "error[KEY_INVALID]" in out, out

    script = (
        block.replace("my-team", "mini-good")
        .replace("<run_id>", run_id)
        .replace("~/.ssh/bench_ed25519", str(key))
        .replace("ssh-keygen -Y sign", "ssh-keygen -Y sign -P 'a passphrase'")
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=mini, env=env, capture_output=True,
        text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = mini / "results" / "mini-good" / run_id
    assert not (mini / "throwaway").exists() and (bundle / "manifest.json.sig").is_file()

    code, out = _invoke(mini, "verify", str(bundle), "--seed", "7")
    assert code == 0, out
    assert out.startswith("valid: ")
