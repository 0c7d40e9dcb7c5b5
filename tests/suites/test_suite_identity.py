"""Suites are first-class (docs/SUITES.md, "Suites on runs, verify and the board"): a run names
its suite, cohorts never mix suites, verify refuses a bundle against another suite's task set,
and the board shows one suite per page with that suite's methodology note.

One world for the module: BFCL's live_parallel and live_relevance categories imported (32 tasks)
and run by an oracle entrant, the mini task set run by its ``good`` entrant, both bundled and
signed. The BFCL import reads the pinned bfcl-eval (tests/suites/conftest.py).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.board import BuildOptions, build
from bench.board.errors import BoardBuildError, BoardUsageError
from bench.cli.main import cli
from bench.core.errors import InputError
from bench.core.suite import DEFAULT_REF, DEFAULT_SUITE_NAME, SUITE_FILE, SuiteRef
from bench.records.run import RunConfig
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.suites.astmatch import signature_of
from bench.suites.bfcl import import_bfcl
from bench.suites.oracle import oracle
from bench.tasks.expectations import Calls
from bench.tasks.load import load_task_set
from bench.tasks.model import ToolSpec
from bench.testing.keys import write_private_key
from bench.verify import Code, VerifyOptions, verify_bundle

from .test_bfcl_import import ENTRANT as ORACLE_ENTRANT

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
CATEGORIES = ["live_parallel", "live_relevance"]
BFCL = SuiteRef(name="bfcl-v4", version="2026.3.23")


@dataclass(frozen=True)
class Suites:
    root: Path
    bfcl_tasks: Path
    mini_tasks: Path
    bfcl_run: RunDir
    mini_run: RunDir
    bfcl_bundle: Path
    mini_bundle: Path
    signers: Path


def _oracle_entrant(tasks: Path, where: Path) -> Path:
    """A scripted entrant that answers every task with its oracle (some call for relevance)."""
    answers: dict[str, list[list[object]]] = {}
    for task in load_task_set(tasks).tasks:
        check = task.expectations[0]
        assert isinstance(check, Calls)
        specs = [tool for tool in task.tools if isinstance(tool, ToolSpec)]
        signatures = {tool.name: signature_of(tool.name, tool.parameters) for tool in specs}
        made = oracle(signatures, check.calls, check.language)
        if check.any_call:
            made = [(specs[0].name, {})]
        key = json.dumps(
            [[m.content for m in task.input if m.role == "user"], sorted(t.name for t in specs)]
        )
        answers[key] = [list(call) for call in made]
    where.mkdir(parents=True)
    (where / "answers.json").write_text(json.dumps(answers))
    (where / "entrant.py").write_text(ORACLE_ENTRANT)
    target = where / "target.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: bfcl-oracle\ndisplay_name: BFCL oracle\n"
        "model: oracle\ncallable: entrant.py:oracle\n"
    )
    return target


def _key(root: Path, name: str, key: Ed25519PrivateKey) -> Path:
    path = root / "keys" / name
    write_private_key(path, key)
    return path


@pytest.fixture(scope="module")
def suites(bfcl_package: Path, tmp_path_factory: pytest.TempPathFactory) -> Suites:
    root = tmp_path_factory.mktemp("suites")
    shutil.copytree(MINI, root / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    import_bfcl(root / "bfcl", bfcl_package, CATEGORIES)
    target = _oracle_entrant(root / "bfcl" / "tasks", root / "oracle")
    keys = {name: Ed25519PrivateKey.generate() for name in ("bfcl-oracle", "mini-good")}
    signers = root / "submissions" / "allowed_signers"
    signers.parent.mkdir()
    signers.write_text(
        "".join(signer_line(n, public_line(k.public_key())) + "\n" for n, k in keys.items())
    )
    made: dict[str, tuple[RunDir, Path]] = {}
    for name, tasks, target_file in (
        ("bfcl-oracle", root / "bfcl" / "tasks", target),
        ("mini-good", root / "mini" / "tasks", root / "mini" / "targets" / "good.yaml"),
    ):
        run, status = start_run(
            RunRequest(
                tasks=tasks,
                target_file=target_file,
                runs_dir=root / f"runs-{name}",
                split="public",
                concurrency=2,
            )
        )
        assert status.status == "complete", status
        bundle = build_bundle(
            run,
            entrant=name,
            key_file=_key(root, name, keys[name]),
            out_root=root / "results",
            allowed_signers=signers,
        )
        made[name] = (run, bundle)
    return Suites(
        root=root,
        bfcl_tasks=root / "bfcl" / "tasks",
        mini_tasks=root / "mini" / "tasks",
        bfcl_run=made["bfcl-oracle"][0],
        mini_run=made["mini-good"][0],
        bfcl_bundle=made["bfcl-oracle"][1],
        mini_bundle=made["mini-good"][1],
        signers=signers,
    )


def _verify(suites: Suites, bundle: Path, tasks: Path) -> object:
    options = VerifyOptions(
        results_root=suites.root / "results",
        allowed_signers=suites.signers,
        tasks=tasks,
        seed=1,
    )
    return verify_bundle(bundle, options)


# -- a run names its suite ------------------------------------------------------------------


def test_the_import_writes_a_suite_manifest_that_the_task_set_exposes(suites: Suites) -> None:
    manifest = json.loads((suites.root / "bfcl" / SUITE_FILE).read_text(encoding="utf-8"))
    assert (manifest["name"], manifest["version"]) == ("bfcl-v4", "2026.3.23")
    assert "Apache" in manifest["licence"]
    assert "Berkeley Function Calling Leaderboard" in manifest["source"]
    note = " ".join(manifest["methodology"].split())
    assert "AST checker" in note and "no well-formed call" in note
    assert "Categories imported: live_parallel, live_relevance." in note
    task_set = load_task_set(suites.bfcl_tasks)
    assert task_set.suite.ref() == BFCL
    assert task_set.select("public").suite.ref() == BFCL  # a selection keeps its suite
    assert load_task_set(suites.mini_tasks).suite.ref() == DEFAULT_REF


def test_a_run_records_its_suite_and_bench_show_names_it(suites: Suites) -> None:
    raw = json.loads((suites.bfcl_run.path / "config.json").read_text(encoding="utf-8"))
    assert raw["task_set"]["suite"] == {"name": "bfcl-v4", "version": "2026.3.23"}
    mini = json.loads((suites.mini_run.path / "config.json").read_text(encoding="utf-8"))
    assert mini["task_set"]["suite"] == {"name": DEFAULT_SUITE_NAME, "version": None}
    runner = CliRunner()
    runs = str(suites.bfcl_run.path.parent)
    shown = runner.invoke(cli, ["show", suites.bfcl_run.run_id, "--runs-dir", runs])
    assert shown.exit_code == 0, shown.output
    assert "suite bfcl-v4 2026.3.23" in shown.output
    as_json = runner.invoke(
        cli, ["show", suites.bfcl_run.run_id, "--runs-dir", runs, "--format", "json"]
    )
    assert json.loads(as_json.output)["suite"] == {"name": "bfcl-v4", "version": "2026.3.23"}
    manifest = json.loads((suites.bfcl_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["suite"] == {"name": "bfcl-v4", "version": "2026.3.23"}


def test_the_local_history_and_leaderboard_name_the_suite(suites: Suites, tmp_path: Path) -> None:
    from bench.reports.board import leaderboard, list_runs
    from bench.reports.boardtext import render_history, render_leaderboard
    from bench.reports.history import index_run, open_db

    db = open_db(tmp_path / "history.sqlite3")
    try:
        for run in (suites.bfcl_run, suites.mini_run):
            index_run(db, run.path)
        rows = {row.entrant: row for row in list_runs(db)}
        cohorts = leaderboard(db, seed=1)
    finally:
        db.close()
    assert rows["bfcl-oracle"].suite == "bfcl-v4 2026.3.23"
    assert rows["mini-good"].suite == DEFAULT_SUITE_NAME
    assert "complete, suite bfcl-v4 2026.3.23" in render_history(list(rows.values()))
    assert sorted(c.suite or "" for c in cohorts) == [DEFAULT_SUITE_NAME, "bfcl-v4 2026.3.23"]
    text = render_leaderboard(cohorts)
    assert text.count("(suite bfcl-v4 2026.3.23, public") == 1
    assert "suite bench-suite" not in text  # the project's own suite is not said


def test_cohorts_and_fingerprints_never_mix_suites(suites: Suites) -> None:
    bfcl = suites.bfcl_run.config()
    mini = suites.mini_run.config()
    assert bfcl.cohort_key() != mini.cohort_key()
    # The same tasks, the same everything, under another suite's name: still another cohort.
    renamed = mini.model_copy(update={"task_set": mini.task_set.model_copy(update={"suite": BFCL})})
    assert renamed.cohort_key() != mini.cohort_key()
    assert renamed.fingerprint() != mini.fingerprint()
    other_version = renamed.model_copy(
        update={"task_set": renamed.task_set.model_copy(update={"suite": SuiteRef(name="bfcl-v4")})}
    )
    assert other_version.cohort_key() != renamed.cohort_key()
    # A config recorded before runs named their suite is bench-suite's, with the same keys.
    old = json.loads((suites.mini_run.path / "config.json").read_text(encoding="utf-8"))
    del old["task_set"]["suite"]
    legacy = RunConfig.model_validate(old)
    assert legacy.task_set.suite == DEFAULT_REF
    assert (legacy.cohort_key(), legacy.fingerprint()) == (mini.cohort_key(), mini.fingerprint())
    assert "suite" not in mini.task_set.comparability()


# -- verify pins the suite ------------------------------------------------------------------


def test_a_bundle_verifies_against_its_own_suite_and_names_it(suites: Suites) -> None:
    verdict = _verify(suites, suites.bfcl_bundle, suites.bfcl_tasks)
    assert verdict.valid, (verdict.code, verdict.message)  # type: ignore[attr-defined]
    assert verdict.suite == "bfcl-v4 2026.3.23"  # type: ignore[attr-defined]


def test_verify_refuses_a_bundle_against_another_suites_task_set(suites: Suites) -> None:
    verdict = _verify(suites, suites.bfcl_bundle, suites.mini_tasks)
    assert verdict.code == Code.SUITE_MISMATCH  # type: ignore[attr-defined]
    assert verdict.field == "task_set.suite.name"  # type: ignore[attr-defined]
    assert verdict.exit_code == 1  # type: ignore[attr-defined]
    message = verdict.message  # type: ignore[attr-defined]
    assert "suite bfcl-v4 2026.3.23" in message and "suite bench-suite" in message
    bfcl_hash = suites.bfcl_run.config().task_set.content_hash
    mini_hash = load_task_set(suites.mini_tasks).select("public").content_hash()
    assert bfcl_hash in message and mini_hash in message
    back = _verify(suites, suites.mini_bundle, suites.bfcl_tasks)
    assert back.code == Code.SUITE_MISMATCH  # type: ignore[attr-defined]


def test_verify_refuses_another_version_or_other_content_of_the_same_suite(
    suites: Suites, bfcl_package: Path, tmp_path: Path
) -> None:
    later = tmp_path / "later"
    shutil.copytree(suites.root / "bfcl", later)
    manifest = later / SUITE_FILE
    manifest.write_text(manifest.read_text().replace('"2026.3.23"', '"2026.9.1"'))
    verdict = _verify(suites, suites.bfcl_bundle, later / "tasks")
    assert (verdict.code, verdict.field) == (  # type: ignore[attr-defined]
        Code.SUITE_MISMATCH,
        "task_set.suite.version",
    )
    fewer = tmp_path / "fewer"
    done = CliRunner().invoke(
        cli,
        ["suite", "import", "bfcl", "--out", str(fewer), "--source", str(bfcl_package),
         "--category", "live_relevance", "--format", "json"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    payload = json.loads(done.output)
    assert payload["suite"] == {"name": "bfcl-v4", "version": "2026.3.23"}
    assert str(fewer / SUITE_FILE) in payload["files"]
    verdict = _verify(suites, suites.bfcl_bundle, fewer / "tasks")
    assert verdict.code == Code.TASK_SET_MISMATCH  # type: ignore[attr-defined]
    message = verdict.message  # type: ignore[attr-defined]
    assert "suite bfcl-v4 2026.3.23" in message
    assert suites.bfcl_run.config().task_set.content_hash in message
    assert load_task_set(fewer / "tasks").content_hash() in message


def test_verify_refuses_a_suite_given_twice_or_its_own_task_set_as_a_suite(
    suites: Suites, tmp_path: Path
) -> None:
    """``bench verify --suite-tasks``: a second task set of the same suite silently replaced
    the first (the board refused it); bench-suite's own task set is ``--tasks``."""
    again = tmp_path / "again"
    shutil.copytree(suites.bfcl_tasks.parent, again)
    common = ["verify", str(suites.bfcl_bundle), "--results-root", str(suites.root / "results"),
              "--allowed-signers", str(suites.signers), "--tasks", str(suites.mini_tasks),
              "--seed", "1"]  # fmt: skip
    once = CliRunner().invoke(cli, [*common, "--suite-tasks", str(suites.bfcl_tasks)])
    assert once.exit_code == 0, once.output
    for given in ((suites.bfcl_tasks, again / "tasks"), (suites.bfcl_tasks, suites.mini_tasks)):
        args = [arg for tasks in given for arg in ("--suite-tasks", str(tasks))]
        done = CliRunner().invoke(cli, [*common, *args])
        assert done.exit_code == 2, done.output
        assert "error[SUITE_TASKS]" in done.output and "--suite-tasks" in done.output
        assert "Traceback" not in done.output


# -- the board: one suite per page ----------------------------------------------------------


def _board(suites: Suites, out: Path, *suite_tasks: Path, strict: bool = True) -> object:
    return build(
        BuildOptions(
            runs=None,
            results=suites.root / "results",
            out=out,
            submissions=None,
            strict=strict,
            resamples=200,
            frontier_resamples=100,
            allowed_signers=suites.signers,
            tasks=suites.mini_tasks,
            suite_tasks=suite_tasks,
        )
    )


def test_the_board_shows_one_suite_per_page_with_its_own_methodology(
    suites: Suites, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    result = _board(suites, site, suites.bfcl_tasks)
    pages = [path.name for path, _ in result.pages]  # type: ignore[attr-defined]
    assert pages == ["index.html", "suite-bfcl-v4.html"]
    assert sorted(p.name for p in site.iterdir()) == [
        "board.json",
        "index.html",
        "suite-bfcl-v4.html",
        "suite-bfcl-v4.json",
    ]
    own = json.loads((site / "board.json").read_text(encoding="utf-8"))
    bfcl = json.loads((site / "suite-bfcl-v4.json").read_text(encoding="utf-8"))
    assert {e["entrant"] for c in own["cohorts"] for e in c["entries"]} == {"mini-good"}
    assert {e["entrant"] for c in bfcl["cohorts"] for e in c["entries"]} == {"bfcl-oracle"}
    assert all(e["verified"] for b in (own, bfcl) for c in b["cohorts"] for e in c["entries"])
    [oracle_row] = [e for c in bfcl["cohorts"] for e in c["entries"]]
    assert oracle_row["headline"]["value"] == 1.0 and oracle_row["tasks"] == 32
    assert bfcl["suite"]["name"] == "bfcl-v4" and bfcl["suite"]["versions"] == ["2026.3.23"]
    assert own["suite"]["name"] == DEFAULT_SUITE_NAME
    assert [s["page"] for s in own["suites"]] == ["index.html", "suite-bfcl-v4.html"]
    [cohort] = bfcl["cohorts"]
    assert cohort["suite"] == "bfcl-v4 2026.3.23" and cohort["title"].startswith("bfcl-v4")
    index = (site / "index.html").read_text(encoding="utf-8")
    page = (site / "suite-bfcl-v4.html").read_text(encoding="utf-8")
    assert 'href="suite-bfcl-v4.html"' in index and 'href="index.html"' in page
    assert "AST checker" in page and "Apache" in page
    assert "Berkeley Function Calling Leaderboard" in page
    assert "AST checker" not in index and "bfcl-oracle" not in index
    assert "mini-good" not in page
    assert 'id="suite-note"' in index and 'id="suite-note"' in page
    for html in (index, page):  # each page one self-contained file
        assert 'http-equiv="Content-Security-Policy"' in html
        assert "default-src &#39;none&#39;" in html
        assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", html)


def test_without_the_suites_task_set_its_bundles_do_not_verify_and_strict_fails(
    suites: Suites, tmp_path: Path
) -> None:
    result = _board(suites, tmp_path / "loose", strict=False)
    warnings = " | ".join(result.warnings)  # type: ignore[attr-defined]
    assert "verification failed: SUITE_MISMATCH" in warnings and "--suite-tasks" in warnings
    assert "suite bfcl-v4: no methodology note" in warnings
    page = (tmp_path / "loose" / "suite-bfcl-v4.html").read_text(encoding="utf-8")
    assert "No methodology note was given for this suite" in page
    with pytest.raises(BoardBuildError):
        _board(suites, tmp_path / "strict")


def test_a_board_of_one_suite_is_the_page_it_was(suites: Suites, tmp_path: Path) -> None:
    site = tmp_path / "one"
    build(
        BuildOptions(
            runs=suites.mini_run.path.parent,
            results=None,
            out=site,
            submissions=None,
            resamples=200,
            frontier_resamples=100,
        )
    )
    assert sorted(p.name for p in site.iterdir()) == ["board.json", "index.html"]
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    assert "suite" not in board and "suites" not in board
    assert all("suite" not in cohort for cohort in board["cohorts"])
    html = (site / "index.html").read_text(encoding="utf-8")
    assert 'id="suites"' not in html and 'id="suite-note"' not in html
    assert "run on the same bench-suite tasks" in html


def test_a_broken_suite_manifest_and_a_wrong_suite_task_set_are_refused(tmp_path: Path) -> None:
    shutil.copytree(MINI, tmp_path / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    tasks = tmp_path / "mini" / "tasks"
    with pytest.raises(BoardUsageError) as own:  # bench-suite's task set is --tasks
        build(BuildOptions(runs=None, results=None, out=tmp_path / "s", suite_tasks=(tasks,)))
    assert own.value.code == "BOARD_SUITE"
    (tmp_path / "mini" / SUITE_FILE).write_text('{"format_version": 1, "name": "Not An Id"}')
    with pytest.raises(InputError) as broken:
        load_task_set(tasks)
    assert broken.value.code == "SUITE_MANIFEST_INVALID"
    assert broken.value.path == str(tmp_path / "mini" / SUITE_FILE)
    assert broken.value.field == "name"
