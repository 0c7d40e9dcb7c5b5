"""The forger, fifteenth round: the pull request that carries someone else's bundle.

- **A stranger renamed an entrant on the board with the entrant's own bundle.** The path guard
  let a results PR change its entrant's registry file (``submissions/<entrant>.yaml``: the
  display name, organisation, links and contact the board shows for every row of it), on the
  ground that the bundle it adds is signed with the entrant's registered key, "which proves who
  asks". It does not: a signature shows who made the bundle, not who opens the pull request,
  and a bundle is public as soon as its own pull request is opened. A stranger copied the
  entrant's next bundle, byte for byte, from the entrant's open pull request into one of their
  own beside a rewritten registry file: the guard printed the bundle, ``bench verify`` found it
  valid (the entrant's key, its place, run id and recordings all its own), the comment said
  "Bundle valid", and the merge renamed the entrant's rows. The same edit as a registration
  was already refused (``PR_EDITS_PUBLISHED``); now a results PR is refused it too.

(The replay sample's seed in the pull-request check, the base branch's tip, is public before
the pull request is opened, so a submitter can compute which attempts the check replays. Not
exploitable: every attempt is bound to its recording and re-driven, and every score recomputed,
whatever the sample; ``test_a_cassette_forged_beside_the_sample_fails_whatever_the_seed``
holds that, and passes on the old code too.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import REGEN, base_world

from bench.verify import VerifyOptions, verify_bundle
from bench.verify.guard import Change, GuardRefusal, guard, guard_revisions

BENCH = Path(sys.executable).parent / "bench"
OLD_RUN = "results/acme/20261101T000000Z-0a0a0a"
NEW_RUN = "results/acme/20261202T114029Z-ca4ab2"
RECORD = "display_name: {0}\norganisation: o\nmodel: m\nlinks: []\ncontact: c\nlicense: l\n"


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main: entrant acme on the board (its registry file, one accepted bundle); HEAD on ``pr``."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, "submissions/acme.yaml", RECORD.format("Acme"))
    _write(root, f"{OLD_RUN}/manifest.json", "{}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _carry(repo: Path, display_name: str) -> None:
    """A stranger's pull request: acme's next bundle (copied from acme's own open pull request;
    its bytes do not matter to the guard) and acme's registry file rewritten."""
    for name in ("manifest.json", "manifest.json.sig", "attempts.jsonl.gz"):
        _write(repo, f"{NEW_RUN}/{name}", "{}\n")
    _write(repo, "submissions/acme.yaml", RECORD.format(display_name))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "acme: new run")


def test_a_results_pr_rewriting_a_published_entrants_registry_file_is_refused(
    repo: Path,
) -> None:
    """Before: exit 0, the bundle printed, verified, and the rows renamed once merged."""
    _carry(repo, "Acme (deprecated: see https://example.org/acme-v2)")
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert (info.value.code, info.value.path) == ("PR_EDITS_PUBLISHED", "submissions/acme.yaml")
    assert "results PR" in info.value.message
    result = subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main"], cwd=repo, capture_output=True, text=True
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("error[PR_EDITS_PUBLISHED]: submissions/acme.yaml: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("status", ["A", "M"])
def test_the_guard_refuses_it_whatever_gits_status(status: str) -> None:
    changes = [Change("A", f"{NEW_RUN}/manifest.json"), Change(status, "submissions/acme.yaml")]
    with pytest.raises(GuardRefusal) as info:
        guard(changes, None, {"acme"}.__contains__)
    assert info.value.code == "PR_EDITS_PUBLISHED"


def test_a_results_pr_with_the_bundle_alone_still_passes(repo: Path) -> None:
    for name in ("manifest.json", "manifest.json.sig"):
        _write(repo, f"{NEW_RUN}/{name}", "{}\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "acme: new run")
    assert guard_revisions("main") == NEW_RUN


def test_a_first_results_pr_still_brings_its_registry_file() -> None:
    # acme has no bundle on the base branch: its first results PR may add its file where the
    # base has none (amending one the base holds is a registration's since round 17:
    # tests/verify/test_forgery_round17.py).
    changes = [Change("A", f"{NEW_RUN}/manifest.json"), Change("A", "submissions/acme.yaml")]
    assert guard(changes, None, lambda entrant: False) == NEW_RUN


# --- the replay sample's seed --------------------------------------------------------------------


def _options(world: Any, seed: int) -> VerifyOptions:
    return VerifyOptions(
        results_root=world.root / "results",
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
        seed=seed,
        replay_sample=1,  # the base bundle has few attempts: leave some out
    )


def test_a_cassette_forged_beside_the_sample_fails_whatever_the_seed(tmp_path: Path) -> None:
    """A submitter who knows the check's seed (the base branch's tip is public) forges the
    recording of an attempt the sample does not replay: still refused, since every attempt's
    recording is checked (``RECORDING_MISMATCH``), not only the sampled ones."""
    world = base_world(tmp_path)
    options = _options(world, 7)
    honest = verify_bundle(world.bundle, options)
    assert honest.valid, honest
    cassette = (world.bundle / "cassette.jsonl").read_bytes().splitlines(keepends=True)
    replayed = set(honest.replayed)
    spared = [
        number
        for number, line in enumerate(cassette)
        if "{task_id}#{repeat}".format(**json.loads(line)) not in replayed
    ]
    assert spared, "the sample replays every attempt: nothing to forge beside it"
    line = json.loads(cassette[spared[0]])
    line["response"]["content"] = "Refunds take 1 day."
    cassette[spared[0]] = json.dumps(line, separators=(",", ":")).encode() + b"\n"
    REGEN._rewrite(world, "cassette.jsonl", b"".join(cassette))
    verdict = verify_bundle(world.bundle, options)
    assert verdict.code == "RECORDING_MISMATCH", verdict
    assert verdict.field not in replayed
