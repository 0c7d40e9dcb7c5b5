"""The forger, seventeenth round: the registry file of an entrant not yet on the board.

- **A stranger named a newcomer's rows with the newcomer's own first bundle.** Round 15 refused
  a results PR that rewrites the registry file of an entrant already on the board
  (``PR_EDITS_PUBLISHED``), but left one open for an entrant with no bundle on the base branch
  ("its first results"). An entrant is registered with its key and its registry file together
  (a key without a file is ``ENTRANT_FILE_MISSING``), so that file was on the base branch
  already, and a results PR could rewrite it: the same carried bundle (copied, byte for byte,
  from the newcomer's own open pull request, valid under the newcomer's key) beside a registry
  file of the stranger's (another name, their links, their contact) was green, and whichever
  of the two pull requests landed first named the newcomer's rows. Now a results PR modifies
  no registry file the base branch holds (``PR_REGISTRY_AND_RESULTS``); a change to it is a
  registration of its own, with no bundle to lend it a signature, reviewed by the maintainers.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.signing import public_line, signer_line
from bench.verify.guard import CODES, Change, GuardRefusal, guard, guard_revisions

BENCH = Path(sys.executable).parent / "bench"
RUN = "results/acme/20261202T114029Z-ca4ab2"
RECORD = "display_name: {0}\norganisation: o\nmodel: m\nlinks: []\ncontact: c\nlicense: l\n"
SIGNERS = signer_line("acme", public_line(Ed25519PrivateKey.generate().public_key())) + "\n"


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)
    return done.stdout.decode().strip()


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main: entrant acme registered (its key and its registry file), no bundle yet."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, "submissions/allowed_signers", SIGNERS)
    _write(root, "submissions/acme.yaml", RECORD.format("Acme"))
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "register acme")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _bundle(repo: Path) -> None:
    for name in ("manifest.json", "manifest.json.sig", "attempts.jsonl.gz"):
        _write(repo, f"{RUN}/{name}", "{}\n")  # the guard reads no bundle bytes


def _pr_guard(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main"], cwd=repo, capture_output=True, text=True
    )


def test_a_stranger_carrying_a_newcomers_first_bundle_cannot_write_its_registry_file(
    repo: Path,
) -> None:
    """Before: exit 0 and the bundle printed; verify found the bundle valid (it is acme's)."""
    _bundle(repo)
    _write(repo, "submissions/acme.yaml", RECORD.format("Acme (deprecated: see evil.example)"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "acme: first results")
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert (info.value.code, info.value.path) == (
        "PR_REGISTRY_AND_RESULTS",
        "submissions/acme.yaml",
    )
    assert "'acme'" in info.value.message and "registration" in info.value.message
    result = _pr_guard(repo)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("error[PR_REGISTRY_AND_RESULTS]: submissions/acme.yaml: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_unit_guard_refuses_it_whatever_it_knows_of_the_base() -> None:
    changes = [Change("A", f"{RUN}/manifest.json"), Change("M", "submissions/acme.yaml")]
    for published in (None, lambda entrant: False):
        with pytest.raises(GuardRefusal) as info:
            guard(changes, None, published)
        assert info.value.code == "PR_REGISTRY_AND_RESULTS"
    # on the board already: the round-15 code still speaks first
    with pytest.raises(GuardRefusal) as info:
        guard(changes, None, lambda entrant: True)
    assert info.value.code == "PR_EDITS_PUBLISHED"
    assert "PR_REGISTRY_AND_RESULTS" in CODES


def test_the_honest_flow_is_open(repo: Path) -> None:
    """The newcomer amends its registry file in a registration of its own (reviewed), then
    adds its bundle alone: both green."""
    _write(repo, "submissions/acme.yaml", RECORD.format("Acme Labs"))
    _git(repo, "commit", "-q", "-am", "acme: amend the registry file")
    assert guard_revisions("main") is None
    assert _pr_guard(repo).returncode == 0
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--ff-only", "pr")
    _git(repo, "checkout", "-q", "-b", "results")
    _bundle(repo)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "acme: first results")
    assert guard_revisions("main") == RUN
    result = _pr_guard(repo)
    assert (result.returncode, result.stdout.strip()) == (0, RUN), result.stderr


def test_a_first_time_contributor_registers_then_submits(tmp_path: Path) -> None:
    """From nothing: the registration adds the key and the registry file, the results PR the
    bundle (SUBMISSIONS.md's walkthrough)."""
    root = tmp_path / "fresh"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, "submissions/allowed_signers", "# keys\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "empty")
    _git(root, "checkout", "-q", "-b", "register")
    _write(root, "submissions/allowed_signers", "# keys\n" + SIGNERS)
    _write(root, "submissions/acme.yaml", RECORD.format("Acme"))
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "register acme")
    assert _pr_guard(root).returncode == 0
    _git(root, "checkout", "-q", "main")
    _git(root, "merge", "-q", "--ff-only", "register")
    _git(root, "checkout", "-q", "-b", "results")
    _bundle(root)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "acme: results")
    result = _pr_guard(root)
    assert (result.returncode, result.stdout.strip()) == (0, RUN), result.stderr


# --- the board's note: read from a field no verifying bundle can carry ---------------------------


def _board_synth() -> Any:
    path = Path(__file__).resolve().parents[1] / "board" / "board_synth.py"
    spec = importlib.util.spec_from_file_location("round17_board_synth", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_the_board_prints_no_note_from_a_runs_target(tmp_path: Path) -> None:
    """``entries.from_summary`` printed ``config.target["note"]`` beside the row: no target
    ``bench run`` records has one (``TargetSpec`` forbids it), so only a hand-edited
    config.json did, and its words reached the page unchecked by verify's text rules."""
    from bench.board.load import RunsLoader

    synth = _board_synth()
    words = "verified by the maintainers \u202e"
    synth.write_run(
        tmp_path / "runs",
        synth.SynthRun("acme", "Acme", {"t1": [1.0]}, {"t1": "qa"}, note=words),
        0,
    )
    [(entry, _)] = RunsLoader(tmp_path / "runs").load(None)
    assert entry.note is None
