"""``bench board build`` with nothing to show names the directories it looked in (a stranger in
the wrong directory saw only "no runs or bundles found") and still builds the empty page, with
--strict too: the publish workflow's first page links the submission guide (tests/
test_workflows.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bench.cli.main import cli


def _build(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["board", "build", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_an_empty_board_names_where_it_looked(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    code, out, err = _build(
        "--runs", tmp_path / "runs", "--results", tmp_path / "results", "--out", tmp_path / "site"
    )
    assert code == 0, out + err
    assert err.splitlines()[0] == (
        f"warning: no runs or bundles found: looked for run directories in {tmp_path / 'runs'} "
        f"(no such directory) and for bundles (<entrant>/<run_id>/) in {tmp_path / 'results'}"
    ), err
    assert (tmp_path / "site" / "index.html").is_file()


def test_an_empty_public_board_builds_under_strict_and_says_runs_were_left_out(
    tmp_path: Path,
) -> None:
    # A repository with no bundle yet (git keeps no empty results/): its submissions/ says so.
    # Without it, --strict refuses the missing directory (BOARD_STRICT, test_faults_round13.py).
    (tmp_path / "submissions").mkdir()
    code, out, err = _build(
        "--no-runs", "--results", tmp_path / "results", "--out", tmp_path / "site", "--strict"
    )
    assert code == 0, out + err
    assert err.splitlines()[0] == (
        "warning: no runs or bundles found: looked for bundles (<entrant>/<run_id>/) in "
        f"{tmp_path / 'results'} (no such directory); local runs are left out by --no-runs"
    ), err
    assert (tmp_path / "site" / "index.html").is_file()
