"""Honest numbers on every surface: awkward runs × every surface that shows a run.

Each awkward run is a real ``bench run`` of a scripted entrant over the mini task set: cost
partly known, unknown, or free ($0, which is $0); tokens not reported; some or every attempt
errored; tasks no check could decide, or none at all; a run of one task. Each surface must tell
the story the run's summary tells (``bench.reports.summarize``, the one source): the same
passed / scored counts, errored as its own figure, every task left out of the score named,
cost *not measured* wherever any part of it is unknown (never a $0 or a partial sum standing
for it), the same headline and interval, and no NaN, None, -0.000 or traceback
(docs/SCORING.md, docs/REPORTS.md, docs/METHODOLOGY.md)."""

from __future__ import annotations

import html
import json
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.records.store import RunDir
from bench.reports.order import shown
from bench.reports.summary import COUNTED, RunSummary, summarize

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
PRICES = "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}\n"
FREE = "pricing: {prompt_per_mtok: 0.0, completion_per_mtok: 0.0}\n"

PARTIAL_USAGE = '''

def partial_usage(request: ModelRequest) -> ModelResponse:
    """``good``, but the endpoint reports no tokens on refunds: part of the cost is unknown."""
    response = good(request)
    if "Refund" in _question(request):
        return response.model_copy(update={"usage": None})
    return response
'''

JUDGED = (
    "      - type: contains\n        value: 1 day\n"
    "      - type: citations\n        required: [faq.md#shipping]\n"
)


@dataclass(frozen=True)
class Case:
    agent: str
    pricing: str = PRICES
    tasks: str = "mini"  # mini, judged (qa-0002 only judged), all-judged (every qa task)
    args: tuple[str, ...] = ()


CASES = {
    "partial-cost": Case("partial_usage"),
    "no-prices": Case("good", pricing=""),
    "free": Case("good", pricing=FREE),
    "no-usage": Case("no_usage"),
    "some-errored": Case("crashes_on_refunds"),
    "all-errored": Case("crashes"),
    "unscored": Case("good", tasks="judged", args=("--repeats", "2")),
    "all-unscored": Case("good", tasks="all-judged"),
    "one-task": Case("good", args=("--task", "tool-0001")),
}


def _invoke(*args: str | Path) -> str:
    from bench.cli.main import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return result.stdout


def _task_sets(root: Path) -> dict[str, Path]:
    mini = root / "mini"
    shutil.copytree(MINI, mini, ignore=shutil.ignore_patterns("__pycache__"))
    agents = mini / "agents.py"
    agents.write_text(agents.read_text(encoding="utf-8") + PARTIAL_USAGE, encoding="utf-8")
    text = (mini / "tasks" / "mini.yaml").read_text(encoding="utf-8")
    assert JUDGED in text
    judged = text.replace(JUDGED, "      - type: judge\n        rubric: States the time.\n")
    out = {"mini": mini / "tasks"}
    for name, body in (("judged", judged), ("all-judged", _only_judged_qa(text))):
        (mini / name).mkdir()
        (mini / name / "mini.yaml").write_text(body, encoding="utf-8")
        out[name] = mini / name
    return out


def _only_judged_qa(text: str) -> str:
    import yaml

    data = yaml.safe_load(text)
    data["tasks"] = [t for t in data["tasks"] if t["family"] == "grounded-qa"]
    for task in data["tasks"]:
        task["expectations"] = [{"type": "judge", "rubric": "Answers the question."}]
    return yaml.safe_dump(data, sort_keys=False)


@dataclass(frozen=True)
class Made:
    run: RunDir
    printed: str  # what ``bench run`` printed
    truth: RunSummary


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Made], Path]:
    root = tmp_path_factory.mktemp("honest")
    tasks, runs = _task_sets(root), root / "runs"
    made = {}
    for name, case in CASES.items():
        target = root / "mini" / "targets" / f"{name}.yaml"
        target.write_text(
            f"format_version: 1\nkind: scripted\nentrant: h-{name}\ndisplay_name: h {name}\n"
            f"model: h-{name}\ncallable: ../agents.py:{case.agent}\n{case.pricing}"
            "params: {temperature: 0}\n",
            encoding="utf-8",
        )
        before = set(runs.iterdir()) if runs.is_dir() else set()
        printed = _invoke(
            "run", "--tasks", tasks[case.tasks], "--split", "public", "--target", target,
            "--runs-dir", runs, *case.args,
        )  # fmt: skip
        (path,) = [p for p in set(runs.iterdir()) - before if (p / "config.json").is_file()]
        run = RunDir(path)
        made[name] = Made(run, printed, summarize(run))
    site = root / "site"
    _invoke(
        "board", "build", "--runs", runs, "--no-verify", "--results", root / "no-results",
        "--out", site, "--templates", REPO / "site_templates",
        "--methodology", REPO / "docs" / "METHODOLOGY.md", "--submissions", root / "no-subs",
    )  # fmt: skip
    return runs, made, site


# ---- what the summary says, as each surface must say it ---------------------------------------


def _errored(truth: RunSummary) -> int:
    return truth.outcomes.get("errored", 0)


def _counted(truth: RunSummary) -> int:
    return sum(1 for r in truth.records if r.outcome in COUNTED)


def _tokens_unknown(truth: RunSummary) -> bool:
    return truth.tokens_measured == 0 and bool(truth.records)


def _unscored(truth: RunSummary) -> list[str]:
    return [task_id for task_id, _ in truth.not_scorable]


def _head(truth: RunSummary) -> tuple[str, str, str] | None:
    if truth.headline is None:
        return None
    score = truth.headline.score
    return shown(score.value), shown(score.interval.lo), shown(score.interval.hi)


def _assert_cost(text: str, truth: RunSummary) -> None:
    """Cost as the summary knows it: *not measured* whenever any part is unknown, with no
    dollar figure beside it; a measured cost (0 included: a free model costs $0) as dollars."""
    if truth.cost_usd is None:
        assert "not measured" in text
        if truth.records:  # attempts ran: never "no attempts"
            assert "no attempts" not in text
    else:
        assert f"${truth.cost_usd:.6f}" in text


BAD = re.compile(r"\bnan\b|\bNaN\b|\bNone\b|-0\.0+\b|Traceback|\binf\b")


def _assert_clean(text: str) -> None:
    found = BAD.search(text)
    assert found is None, f"{found.group(0)!r} in: {text[max(0, found.start() - 200) :][:400]}"


# ---- one check per surface ----------------------------------------------------------------------


def _terminal(text: str, truth: RunSummary) -> None:
    head = _head(truth)
    if head is None:
        assert "score: not scorable (no task could be scored)" in text
    else:
        assert f"score {head[0]} [{head[1]}, {head[2]}]" in text
    assert f"passed {truth.passed_tasks}/{truth.scored_tasks} task(s)" in text
    assert f"{_errored(truth)} errored ·" in text
    for task_id in _unscored(truth):
        assert task_id in text, f"{task_id} is left out of the score and not named"
    (line,) = [ln for ln in text.splitlines() if "   cost " in ln]
    _assert_cost(line, truth)
    if _tokens_unknown(truth):
        assert "tokens not measured" in line
    if truth.p95_latency_s is not None and _counted(truth) < 20:
        assert f"the slowest of {_counted(truth)} attempt(s)" in line  # p95 of so few is the max


def check_run(runs: Path, made: Made, site: Path) -> str:
    _terminal(made.printed, made.truth)
    return made.printed


def check_show(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("show", made.run.run_id, "--runs-dir", runs)
    _terminal(text, made.truth)
    return text


def check_markdown(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("report", made.run.run_id, "--runs-dir", runs, "--format", "markdown")
    plain = text.replace("\\", "")  # Markdown escapes: '0\.5' reads '0.5'
    truth, head = made.truth, _head(made.truth)
    if head is None:
        assert "**Score:** not scorable" in plain
    else:
        assert f"**Score:** {head[0]} [{head[1]}, {head[2]}]" in plain
    (line,) = [ln for ln in plain.splitlines() if ln.startswith("- cost ")]
    _assert_cost(line, truth)
    rows = re.findall(r"^\| ([\w-]+) \| (\d+) \| [^|]+ \| (\d+)/(\d+) \| (\d+) \|", plain, re.M)
    assert sum(int(r[2]) for r in rows) == truth.passed_tasks
    assert sum(int(r[4]) for r in rows) == _errored(truth)  # errored attempts, its own column
    unscored = plain.split("## Not scorable", 1)[1] if truth.not_scorable else ""
    for task_id in _unscored(truth):
        assert f"- {task_id}:" in unscored
    return text


def check_json(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("report", made.run.run_id, "--runs-dir", runs, "--format", "json")
    data, truth = json.loads(text), made.truth
    if truth.headline is None:
        assert data["headline"] is None
    else:
        score = truth.headline.score
        got = data["headline"]
        assert (got["value"], got["interval"]["lo"], got["interval"]["hi"]) == (
            score.value, score.interval.lo, score.interval.hi,
        )  # fmt: skip
    assert (data["tasks_scored"], data["tasks_passed"]) == (truth.scored_tasks, truth.passed_tasks)
    assert data["outcomes"].get("errored", 0) == _errored(truth)
    assert [u["task_id"] for u in data["not_scorable"]] == _unscored(truth)
    assert data["cost_usd"] == truth.cost_usd  # None: not measured; 0.0 only when measured
    _assert_cost(data["cost"], truth)
    if _tokens_unknown(truth):  # never a 0 that was not measured
        assert data["tokens"] is None and data["tokens_note"] == "not measured"
    return text


def check_junit(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("report", made.run.run_id, "--runs-dir", runs, "--format", "junit")
    suite = ET.fromstring(text).find("testsuite")
    assert suite is not None
    truth = made.truth
    errored = sum(1 for s in truth.task_scores if s.outcomes.get("errored"))
    assert int(suite.get("tests", "")) == len(truth.config.task_set.task_ids)
    assert int(suite.get("errors", "")) == errored
    assert int(suite.get("skipped", "")) == len(truth.not_scorable)
    failed = truth.scored_tasks - truth.passed_tasks - errored
    assert int(suite.get("failures", "")) == failed
    props = {p.get("name"): p.get("value", "") for p in suite.iter("property")}
    _assert_cost(props["cost"], truth)
    skipped = [c.get("name") for c in suite.iter("testcase") if c.find("skipped") is not None]
    assert skipped == _unscored(truth)
    return text


def check_history(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("history", "--runs-dir", runs)
    (line,) = [ln for ln in text.splitlines() if made.run.run_id in ln]
    truth, head = made.truth, _head(made.truth)
    assert (f"{head[0]} [{head[1]}, {head[2]}]" if head else "n/a") in line
    cells = line.split()
    at = cells.index(f"{truth.passed_tasks}/{truth.scored_tasks}")
    assert cells[at + 1] == str(_errored(truth))
    _assert_cost(line, truth)
    return line


def check_export(runs: Path, made: Made, site: Path) -> str:
    text = _invoke("export", "--runs-dir", runs, "--format", "json")
    (row,) = [r for r in json.loads(text)["runs"] if r["run_id"] == made.run.run_id]
    truth = made.truth
    assert row["cost_usd"] == truth.cost_usd
    assert (row["tasks_scored"], row["tasks_passed"]) == (truth.scored_tasks, truth.passed_tasks)
    assert row["errored"] == _errored(truth)
    head = truth.headline
    assert row["headline"] == (None if head is None else head.score.value)
    return json.dumps(row)


def check_compare(runs: Path, made: Made, site: Path) -> str:
    run_id = made.run.run_id
    text = _invoke("compare", run_id, run_id, "--runs-dir", runs, "--format", "json")
    side, truth = json.loads(text)["first"], made.truth
    assert (side["passed"], side["scored"]) == (truth.passed_tasks, truth.scored_tasks)
    assert side["errored"] == _errored(truth)
    head = truth.headline
    if head is None:
        assert side["headline"] is None
    else:
        assert (side["headline"], side["lo"], side["hi"]) == (
            head.score.value, head.score.interval.lo, head.score.interval.hi,
        )  # fmt: skip
    _assert_cost(side["cost"], truth)
    printed = _invoke("compare", run_id, run_id, "--runs-dir", runs)
    (line,) = [ln for ln in printed.splitlines() if ln.rstrip().endswith(run_id)][:1]
    _assert_cost(line, truth)
    return text + printed


def _board_entry(site: Path, made: Made) -> dict[str, object]:
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    (entry,) = [e for c in board["cohorts"] for e in c["entries"] if e["run_id"] == made.run.run_id]
    return dict(entry)


def check_board_json(runs: Path, made: Made, site: Path) -> str:
    entry, truth = _board_entry(site, made), made.truth
    head = truth.headline
    if head is None:
        assert entry["headline"] is None
    else:
        got = entry["headline"]
        assert isinstance(got, dict)
        assert (got["value"], got["lo"], got["hi"]) == (
            head.score.value, head.score.interval.lo, head.score.interval.hi,
        )  # fmt: skip
    if _counted(truth):
        assert entry["error_rate"] == _errored(truth) / _counted(truth)
    assert (entry["cost_usd"] is None) == (truth.cost_usd is None)
    assert isinstance(entry["cost_note"], str)
    _assert_cost(entry["cost_note"], truth)
    not_scored = entry["not_scored"]
    assert isinstance(not_scored, list)
    assert [n["task_id"] for n in not_scored] == _unscored(truth)
    return json.dumps(entry)


def check_board_html(runs: Path, made: Made, site: Path) -> str:
    page = (site / "index.html").read_text(encoding="utf-8")
    key = str(_board_entry(site, made)["key"])
    start = page.index(f'data-key="{html.escape(key)}"')
    row = page[start : page.index("</tr>", start)]
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", row)))
    truth, head = made.truth, _head(made.truth)
    if head is not None:
        assert f"{head[0]} [{head[1]}, {head[2]}]" in text
    if truth.cost_usd is None:
        assert "not measured" in text and 'data-cost=""' in row
    else:
        assert f"{truth.cost_usd:.6f}" in text or truth.config.repeats > 1  # per pass
    if truth.not_scorable:
        assert f"{len(truth.not_scorable)} not scored" in text
    return row


SURFACES = {
    "run": check_run,
    "show": check_show,
    "markdown": check_markdown,
    "json": check_json,
    "junit": check_junit,
    "history": check_history,
    "export": check_export,
    "compare": check_compare,
    "board-json": check_board_json,
    "board-html": check_board_html,
}


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("case", list(CASES))
def test_every_surface_tells_the_runs_story(
    world: tuple[Path, dict[str, Made], Path], case: str, surface: str
) -> None:
    runs, made, site = world
    said = SURFACES[surface](runs, made[case], site)
    _assert_clean(said)


def test_the_awkward_runs_are_awkward(world: tuple[Path, dict[str, Made], Path]) -> None:
    """The matrix tests what it says: each run has the awkwardness it is named for."""
    made = {name: m.truth for name, m in world[1].items()}
    assert made["partial-cost"].cost_usd is None and "1 of 3" in made["partial-cost"].cost_note
    assert made["no-prices"].cost_usd is None
    assert made["free"].cost_usd == 0.0 and made["free"].cost_note == "$0.000000"
    assert _tokens_unknown(made["no-usage"])
    assert 0 < made["some-errored"].outcomes["errored"] < len(made["some-errored"].records)
    assert made["all-errored"].outcomes == {"errored": 3}
    assert [t for t, _ in made["unscored"].not_scorable] == ["qa-0002"]
    assert made["all-unscored"].headline is None and made["all-unscored"].records
    assert len(made["one-task"].task_scores) == 1


def test_a_leaderboard_of_unscored_runs_says_why_it_is_empty(
    world: tuple[Path, dict[str, Made], Path], tmp_path: Path
) -> None:
    """A complete run with no score is not ranked: the leaderboard says "no complete run with a
    score", never that there is no complete run."""
    runs, made, _ = world
    only = tmp_path / "runs"
    only.mkdir()
    shutil.copytree(made["all-unscored"].run.path, only / made["all-unscored"].run.run_id)
    assert _invoke("leaderboard", "--runs-dir", only) == (
        "no complete run with a score in the history\n"
    )
