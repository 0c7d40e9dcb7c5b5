"""A stranger installs bench-suite and follows the docs from a directory of their own.

What a first walk through README, docs/RUNS.md, SUBMISSIONS.md and SUITES.md met, beyond what
tests/test_install.py checks of the installed wheel: a signing key not made yet (or its other
half given), `bench bundle` run outside the clone, `bench history` run where there are no runs,
and a BFCL category import over an earlier import. Each says what to do, in one line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli

KEYGEN_HINT = 'make one with ssh-keygen -t ed25519 -N "" -f '


def _bench(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def clone(mini: Path, monkeypatch: pytest.MonkeyPatch, ssh_keygen: str) -> Path:
    """The mini task set as a contributor's clone: one complete run, no key made yet."""
    code, _, err = _bench(
        mini, monkeypatch, "run", "--tasks", "tasks", "--target", "targets/good.yaml",
        "--progress", "none",
    )  # fmt: skip
    assert code == 0, err
    return mini


def test_a_signing_key_not_made_yet_says_how_to_make_one(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = clone / "home" / ".ssh" / "bench_ed25519"  # nor is there a ~/.ssh yet
    code, _, err = _bench(clone, monkeypatch, "key", "register", "--entrant", "mini-good",
                          "--pubkey", f"{key}.pub")  # fmt: skip
    assert code == 3 and err.startswith(f"error[KEY_INVALID]: {key}.pub: cannot read"), err
    assert f"{KEYGEN_HINT}{key} (its directory must exist)" in err
    code, _, err = _bench(clone, monkeypatch, "bundle", "latest", "--entrant", "mini-good",
                          "--key", str(key))  # fmt: skip
    assert code == 3 and err.startswith(f"error[KEY_INVALID]: {key}: cannot read"), err
    assert f"{KEYGEN_HINT}{key} (its directory must exist)" in err
    assert len(err.splitlines()) == 1 and not (clone / "results").exists()


def test_each_half_of_a_key_pair_given_for_the_other_says_which_to_give(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = clone / "bench_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    code, out, err = _bench(clone, monkeypatch, "key", "register", "--entrant", "mini-good",
                            "--pubkey", str(key))  # fmt: skip
    assert code == 3 and out == "", out
    assert err == (
        f"error[KEY_INVALID]: {key}: this is a private key, which stays with you: --pubkey "
        "takes its public half (bench_ed25519.pub beside it)\n"
    )
    code, line, _ = _bench(clone, monkeypatch, "key", "register", "--entrant", "mini-good",
                           "--pubkey", f"{key}.pub")  # fmt: skip
    assert code == 0
    (clone / "submissions").mkdir()
    (clone / "submissions" / "allowed_signers").write_text(line, encoding="utf-8")
    code, _, err = _bench(clone, monkeypatch, "bundle", "latest", "--entrant", "mini-good",
                          "--key", f"{key}.pub")  # fmt: skip
    assert code == 3 and err.startswith(f"error[KEY_INVALID]: {key}.pub: not an OpenSSH"), err
    assert f"this is a public key: --key takes its private half ({key})" in err
    assert not (clone / "results").exists()


def test_bench_bundle_outside_the_clone_says_where_it_looked(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "bench_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = next(p for p in (clone / "runs").iterdir() if (p / "config.json").is_file())
    code, _, err = _bench(elsewhere, monkeypatch, "bundle", str(run), "--entrant", "mini-good",
                          "--key", str(key))  # fmt: skip
    assert code == 3 and err.startswith("error[SIGNERS_MISSING]: submissions/allowed_signers:")
    assert (
        "it is read from submissions/allowed_signers in the current directory: run bench "
        "bundle from the root of your clone, or give --allowed-signers"
    ) in err
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("command", [["history"], ["leaderboard"], ["export"]])
def test_the_history_where_there_are_no_runs_says_so_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    code, out, err = _bench(tmp_path, monkeypatch, *command)
    assert code == 0, err
    assert err == (
        "note: no run directory at runs (bench run writes runs there, relative to the current "
        "directory; --runs-dir names another)\n"
    )
    assert list(tmp_path.iterdir()) == []  # no runs/history.sqlite3 in the wrong place


ENTRY = {
    "id": "simple_python_0",
    "question": [[{"role": "user", "content": "area of a triangle, base 10"}]],
    "function": [
        {
            "name": "calc_area",
            "description": "d",
            "parameters": {
                "type": "dict",
                "properties": {"base": {"type": "integer"}},
                "required": ["base"],
            },
        }
    ],
}
ANSWER = {"id": "simple_python_0", "ground_truth": [{"calc_area": {"base": [10]}}]}


def test_a_category_import_over_another_import_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/SUITES.md: every task file under DIR/tasks is in the task set, so a category
    import over a whole one would leave the whole task set under a one-category suite.json."""
    data = tmp_path / "src" / "bfcl_eval" / "data"
    (data / "possible_answer").mkdir(parents=True)
    (data / "BFCL_v4_simple_python.json").write_text(json.dumps(ENTRY) + "\n")
    (data / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(ANSWER))
    source = str(data.parent)
    out = tmp_path / "build" / "bfcl"
    args = ("suite", "import", "bfcl", "--out", str(out), "--source", source)
    code, _, err = _bench(tmp_path, monkeypatch, *args, "--category", "simple_python")
    assert code == 0, err
    written = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # An earlier import's category (any task file of the user's own is refused the same way).
    shutil.copy(out / "tasks" / "bfcl-simple-python.json", out / "tasks" / "bfcl-irrelevance.json")
    code, _, err = _bench(tmp_path, monkeypatch, *args, "--category", "simple_python")
    assert code == 2, err
    assert err == (
        f"error[USAGE]: {out / 'tasks'} holds task files this import would not replace "
        "(bfcl-irrelevance.json): every task file there is in the task set, so it would be "
        "neither this import nor the earlier one. Give --out a new directory, or remove them "
        "first\n"
    )
    (out / "tasks" / "bfcl-irrelevance.json").unlink()
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == written
    # The same categories again replace their own files.
    code, _, err = _bench(tmp_path, monkeypatch, *args, "--category", "simple_python")
    assert code == 0, err


def test_a_board_built_into_a_directory_of_ones_own_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench board build --out DIR` replaces DIR whole: one that holds anything a build did
    not write (a docs folder, the home directory, a note put in site/) is refused, kept."""
    build = ("board", "build", "--runs", "none", "--results", "none", "--submissions", "none")
    code, _, err = _bench(tmp_path, monkeypatch, *build, "--out", "site")
    assert code == 0, err
    code, _, err = _bench(tmp_path, monkeypatch, *build, "--out", "site")  # its own site again
    assert code == 0, err
    site = sorted(p.name for p in (tmp_path / "site").iterdir())
    for folder in ("site", "mine"):
        (tmp_path / folder / "notes").mkdir(parents=True)
        (tmp_path / folder / "notes" / "keep.md").write_text("mine\n", encoding="utf-8")
        code, out, err = _bench(tmp_path, monkeypatch, *build, "--out", folder)
        assert (code, out) == (3, ""), err
        assert err == (
            f"error[BOARD_OUT]: {folder}: holds what no board build wrote (notes), and a build "
            "replaces the whole directory: give --out a new or empty directory, or the site of "
            "an earlier build\n"
        )
        assert (tmp_path / folder / "notes" / "keep.md").read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [*site, "notes"]


def test_the_merge_step_of_the_shard_matrix_in_runs_md_merges_the_shards(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/RUNS.md's job matrix ends with a `bench merge` over the shards' runs/: its shell
    line runs as written, with runs/reports/ (every run's report) beside the shards."""
    import os
    import re
    import sys

    text = (Path(__file__).parent.parent / "docs" / "RUNS.md").read_text(encoding="utf-8")
    [line] = re.findall(r"^ +- run: (bench merge .*)$", text, re.M)
    for shard in ("0/2", "1/2"):
        code, _, err = _bench(mini, monkeypatch, "run", "--tasks", "tasks", "--target",
                              "targets/good.yaml", "--shard", shard, "--runs-dir", "runs",
                              "--progress", "none")  # fmt: skip
        assert code == 0, err
    assert (mini / "runs" / "reports").is_dir()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        ["bash", "-c", line], cwd=mini, capture_output=True, text=True,
        env={**os.environ, "PATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("merged 2 shard(s) into "), done.stdout
