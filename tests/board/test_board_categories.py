"""BFCL's categories are columns of its board page (docs/SUITES.md, "Per category").

One world for the module: three BFCL categories imported from the pinned bfcl-eval
(simple_javascript, live_parallel, live_relevance: 82 tasks) and run whole by three scripted
entrants (an oracle; one that answers about half the tasks; one that errors on every
live_relevance task), plus a subset run of two tasks. The board is built from the run
directories; ``bench suite scores`` is run on the same runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.board import BuildOptions, EntryInput, build, build_rows
from bench.board.entries import NotScoredInput
from bench.cli.main import cli
from bench.runner import RunRequest, start_run
from bench.suites.astmatch import signature_of
from bench.suites.bfcl import import_bfcl
from bench.suites.oracle import oracle
from bench.tasks.expectations import Calls
from bench.tasks.load import load_task_set
from bench.tasks.model import ToolSpec

SUITES = Path(__file__).resolve().parents[1] / "suites"
IMPORTED = ["simple_javascript", "live_parallel", "live_relevance"]
BFCL_CATEGORIES = [
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "live_irrelevance", "live_relevance",
]  # fmt: skip

ENTRANTS = """
import hashlib
import json
from pathlib import Path

from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())


def _answer(request, skip):
    if any(m.role == "tool" for m in request.messages):
        return ModelResponse(content="done")
    key = json.dumps([[m.content for m in request.messages if m.role == "user"],
                      sorted(t.name for t in request.tools)])
    made, category = ANSWERS[key]
    if skip(key, category) == "error":
        return "not a model response"  # the entrant's side failed: an errored attempt
    if skip(key, category):
        made = []
    calls = [ToolCallRequest(id=f"c{i}", name=name, arguments=args)
             for i, (name, args) in enumerate(made)]
    return ModelResponse(content="" if calls else "No function fits.", tool_calls=calls)


def oracle(request: ModelRequest) -> ModelResponse:
    return _answer(request, lambda key, category: False)


def half(request: ModelRequest) -> ModelResponse:
    return _answer(request, lambda key, category: hashlib.sha256(key.encode()).digest()[0] % 2)


def flaky(request: ModelRequest) -> ModelResponse:
    return _answer(request, lambda key, c: "error" if c == "live_relevance" else False)
"""


def _bfcl_package() -> Path:
    """The pinned bfcl-eval's ``bfcl_eval`` directory (tests/suites/conftest.py's venv)."""
    spec = importlib.util.spec_from_file_location("bfcl_venv_for_board", SUITES / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    python = module.build_venv()
    found = subprocess.run(
        [str(python), "-c", "import importlib.util as u;"
         "print(u.find_spec('bfcl_eval').submodule_search_locations[0])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(found.stdout.strip())


def _entrants(tasks: Path, where: Path) -> dict[str, Path]:
    answers: dict[str, list[object]] = {}
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
        category = next(g for g in task.tags if g.startswith("bfcl:category="))
        answers[key] = [[list(call) for call in made], category.removeprefix("bfcl:category=")]
    where.mkdir(parents=True)
    (where / "answers.json").write_text(json.dumps(answers))
    (where / "entrants.py").write_text(ENTRANTS)
    targets = {}
    for name in ("oracle", "half", "flaky"):
        targets[name] = where / f"{name}.yaml"
        targets[name].write_text(
            f"format_version: 1\nkind: scripted\nentrant: bfcl-{name}\n"
            f"display_name: BFCL {name}\nmodel: {name}\ncallable: entrants.py:{name}\n"
        )
    return targets


@dataclass(frozen=True)
class World:
    root: Path
    runs: Path
    run_ids: dict[str, str]  # entrant -> run id ("subset": the subset run)
    site: Path
    board: dict[str, Any]
    html: str


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("categories")
    import_bfcl(root / "bfcl", _bfcl_package(), IMPORTED)
    tasks = root / "bfcl" / "tasks"
    targets = _entrants(tasks, root / "entrants")
    runs = root / "runs"
    run_ids = {}
    for name, target in targets.items():
        run, status = start_run(
            RunRequest(tasks=tasks, target_file=target, runs_dir=runs, concurrency=4)
        )
        assert status.status == "complete", status
        run_ids[name] = run.path.name
    run, status = start_run(
        RunRequest(
            tasks=tasks,
            target_file=targets["half"],
            runs_dir=runs,
            task_ids=("simple-javascript-0", "simple-javascript-1"),
        )
    )
    assert status.status == "complete", status
    run_ids["subset"] = run.path.name
    site = root / "site"
    build(BuildOptions(runs=runs, results=None, out=site, submissions=None, suite_tasks=(tasks,)))
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    return World(root, runs, run_ids, site, board, (site / "index.html").read_text("utf-8"))


def _rows(world: World) -> dict[str, dict[str, Any]]:
    """run id -> its row in board.json."""
    return {e["run_id"]: e for c in world.board["cohorts"] for e in c["entries"]}


def _cohort_of(world: World, run_id: str) -> tuple[int, dict[str, Any]]:
    for i, c in enumerate(world.board["cohorts"]):
        if any(e["run_id"] == run_id for e in c["entries"]):
            return i, c
    raise AssertionError(f"no cohort holds {run_id}")


def test_every_bfcl_category_is_a_column_of_the_page_and_of_board_json(world: World) -> None:
    whole, cohort = _cohort_of(world, world.run_ids["oracle"])
    assert cohort["categories"] == BFCL_CATEGORIES
    for row in cohort["entries"]:
        assert [c["category"] for c in row["categories"]] == BFCL_CATEGORIES
    oracle_row = _rows(world)[world.run_ids["oracle"]]
    by_name = {c["category"]: c for c in oracle_row["categories"]}
    assert by_name["simple_javascript"]["tasks"] == by_name["simple_javascript"]["scored"] == 50
    assert by_name["live_parallel"]["score"]["value"] == 1.0
    assert by_name["live_relevance"]["tasks"] == 16
    # the header: every category a sort button, named as BFCL spells it
    section = world.html.split(f'id="cohort-{whole}"', 1)[1].split("</section>", 1)[0]
    head = section.split("<tbody>", 1)[0]
    for name in BFCL_CATEGORIES:
        shown = name.replace("_", "_<wbr>")  # long names break after an underscore
        assert f'<button type="button" data-sort="category:{name}">{shown}</button>' in head
    # a cell shows the mean and its interval as the headline does
    row = section.split('data-key="bfcl-half/', 1)[1].split("</tr>", 1)[0]
    half = {c["category"]: c for c in _rows(world)[world.run_ids["half"]]["categories"]}
    score = half["simple_javascript"]["score"]
    shown = f'{score["value"]:.3f} <span class="ci" aria-hidden="true">[{score["lo"]:.3f}, '
    assert shown in row
    assert 'data-category="simple_python" data-value=""><span class="not-run">not run</span>' in row


def test_the_board_and_bench_suite_scores_print_the_same_figures(world: World) -> None:
    rows = _rows(world)
    for name, run_id in world.run_ids.items():
        done = CliRunner().invoke(
            cli, ["suite", "scores", run_id, "--runs-dir", str(world.runs), "--format", "json"]
        )
        assert done.exit_code == 0, done.output
        cli_scores = {c["category"]: c for c in json.loads(done.output)["categories"]}
        board_scores = {c["category"]: c for c in rows[run_id]["categories"]}
        assert set(cli_scores) <= set(board_scores), name
        # the command's errored attempts per category add up to the row's error rate (no
        # attempt here is over budget, the rate's other part)
        row = rows[run_id]
        errored = sum(c["errored"] for c in cli_scores.values())
        assert row["error_rate"] == errored / row["attempts"], name
        for category, on_board in board_scores.items():
            said = cli_scores.get(category)
            if said is None:  # the command lists what the run attempted; the board says so
                assert on_board["tasks"] == 0 and on_board["score"] is None, (name, category)
                continue
            assert (on_board["tasks"], on_board["scored"]) == (said["tasks"], said["scored"])
            mine, theirs = on_board["score"], said["score"]
            ends = [
                (mine["value"], theirs["value"]),
                (mine["lo"], theirs["interval"]["lo"]),
                (mine["hi"], theirs["interval"]["hi"]),
            ]
            for a, b in ends:  # same resamples, sums in another order (docs/SUITES.md)
                assert a == pytest.approx(b, abs=1e-12), (name, category)
                assert f"{a:.3f}" == f"{b:.3f}", (name, category)
            assert mine["method"] == theirs["interval"]["method"]
    # the runs differ per category, so the comparison is not of one number
    half = {c["category"]: c["score"]["value"] for c in rows[world.run_ids["half"]]["categories"]
            if c["score"]}  # fmt: skip
    assert min(half.values()) > 0.0 and max(half.values()) < 1.0


def test_an_error_is_a_failure_in_its_category(world: World) -> None:
    flaky = {c["category"]: c for c in _rows(world)[world.run_ids["flaky"]]["categories"]}
    relevance = flaky["live_relevance"]
    assert relevance["tasks"] == relevance["scored"] == 16
    assert relevance["score"]["value"] == 0.0
    assert flaky["live_parallel"]["score"]["value"] == 1.0
    assert _rows(world)[world.run_ids["flaky"]]["error_rate"] > 0
    done = CliRunner().invoke(
        cli, ["suite", "scores", world.run_ids["flaky"], "--runs-dir", str(world.runs),
              "--format", "json"],
    )  # fmt: skip
    said = {c["category"]: c for c in json.loads(done.output)["categories"]}
    assert {name: c["errored"] for name, c in said.items()} == {
        "simple_javascript": 0, "live_parallel": 0, "live_relevance": 16,
    }  # fmt: skip
    assert said["live_relevance"]["passed"] == 0 and said["live_relevance"]["not_scored"] == []


def test_a_subset_run_shows_not_run_never_0(world: World) -> None:
    index, cohort = _cohort_of(world, world.run_ids["subset"])
    assert cohort["subset"]
    [row] = cohort["entries"]
    by_name = {c["category"]: c for c in row["categories"]}
    assert by_name["simple_javascript"]["tasks"] == 2
    assert by_name["simple_javascript"]["score"] is not None
    for name in ("live_parallel", "live_relevance", "simple_python"):
        assert by_name[name] == {"category": name, "tasks": 0, "scored": 0, "score": None}
    section = world.html.split(f'id="cohort-{index}"', 1)[1].split("</section>", 1)[0]
    body = section.split("<tbody>", 1)[1]
    assert body.count('<span class="not-run">not run</span>') == 12
    for name in ("live_parallel", "live_relevance"):
        cell = body.split(f'data-category="{name}"', 1)[1].split("</td>", 1)[0]
        assert "not run" in cell and "0.000" not in cell


def _entry(entrant: str, suite: str, values: dict[str, float], **extra: Any) -> EntryInput:
    return EntryInput(
        entrant=entrant,
        display_name=entrant,
        run_id=f"20260101T000000Z-{entrant}",
        created_at="2026-01-01T00:00:00+00:00",
        cohort_key="k",
        fingerprint=hashlib.sha256(entrant.encode()).hexdigest()[:16],
        config={},
        task_set_hash="h" * 64,
        split="public",
        repeats=1,
        harness="1",
        status="complete",
        values=values,
        families=dict.fromkeys(values, "tool-trajectory"),
        counted=len(values),
        suite=suite,
        **extra,
    )


def test_a_task_not_scored_leaves_its_categorys_denominator() -> None:
    values = {"parallel-0": 1.0, "parallel-1": 0.0, "irrelevance-0": 1.0}
    not_scored = tuple(
        NotScoredInput(
            task_id=t, family="tool-trajectory", reason="no check decided", private=False
        )
        for t in ("parallel-2", "multiple-0")
    )
    board = build_rows(
        [_entry("a", "bfcl-v4", values, not_scored=not_scored)], inputs_hash="x", seed=1, B=50
    )
    [row] = board.cohorts[0].entries
    scores = {c.category: c for c in row.categories}
    assert (scores["parallel"].tasks, scores["parallel"].scored) == (3, 2)
    assert scores["parallel"].score is not None and scores["parallel"].score.value == 0.5
    assert (scores["multiple"].tasks, scores["multiple"].scored, scores["multiple"].score) == (
        1, 0, None,
    )  # fmt: skip
    assert (scores["simple_python"].tasks, scores["simple_python"].score) == (0, None)
    # bench-suite's own rows carry no category, and its board.json no key for them
    plain = build_rows([_entry("b", "bench-suite", {"t1": 1.0, "t2": 0.0})], inputs_hash="x",
                       seed=1, B=50)  # fmt: skip
    assert "categories" not in plain.model_dump_json()


def test_one_product_for_many_rows_gives_each_row_its_own_interval() -> None:
    """What the board draws for a category of many rows is what ``bench suite scores`` draws
    for one: same value and method, bounds to 1e-12 (sums in another order)."""
    from bench.stats.headline import stratified_headline, stratified_headlines

    rows = [
        [1.0] * 20,  # Wilson
        [0.0] * 20,
        [0.5] * 20,  # constant, not binary: the point
        [float(i % 3 == 0) for i in range(20)],
        [float(i % 7 != 0) for i in range(20)],
        [i / 19 for i in range(20)],
    ]
    many = stratified_headlines(rows, ["parallel"] * 20, seed=5, label="parallel")
    for row, got in zip(rows, many, strict=True):
        one = stratified_headline(row, ["parallel"] * 20, seed=5, label="parallel")
        assert (got.score.value, got.score.interval.method) == (
            one.score.value,
            one.score.interval.method,
        )
        assert got.score.interval.lo == pytest.approx(one.score.interval.lo, abs=1e-12)
        assert got.score.interval.hi == pytest.approx(one.score.interval.hi, abs=1e-12)
        assert got.warnings == one.warnings


CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def test_sorting_by_a_category_in_chromium(world: World) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail("chromium is missing: apt-get install -y chromium")
    index, cohort = _cohort_of(world, world.run_ids["oracle"])
    values = {
        e["key"]: next(c["score"]["value"] for c in e["categories"]
                       if c["category"] == "live_relevance")
        for e in cohort["entries"]
    }  # fmt: skip
    best_first = sorted(values, key=lambda k: -values[k])
    default = [e["key"] for e in cohort["entries"]]
    assert best_first != default  # the column orders rows otherwise than the headline
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((world.site / "index.html").as_uri())
            page.wait_for_selector("html[data-board-ready]", timeout=60_000)

            def keys() -> list[str]:
                rows = page.locator(f"#cohort-{index} tbody tr.entry:not([hidden])")
                return [rows.nth(i).get_attribute("data-key") or "" for i in range(rows.count())]

            assert keys() == default
            button = page.locator(f"#cohort-{index} th button[data-sort='category:live_relevance']")
            button.click()
            assert keys() == best_first
            header = page.locator(f"#cohort-{index} th[data-category='live_relevance']")
            assert header.get_attribute("aria-sort") == "descending"
            button.click()
            assert keys() == best_first[::-1]
            assert errors == []
        finally:
            browser.close()
