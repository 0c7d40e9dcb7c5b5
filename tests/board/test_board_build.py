"""The whole build: determinism, --strict, the old site kept on failure, CSP, escaping, CLI."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.board import Board, BoardBuildError, BoardUsageError, build

XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_NOTE = "</script><script>alert(1)</script>"


class _Inline(HTMLParser):
    """Every inline <script> and <style> body, and the first child of <head>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self.head_children: list[tuple[str, dict[str, str | None]]] = []
        self._open: tuple[str, dict[str, str | None]] | None = None
        self._in_head = False
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "head":
            self._in_head = True
        elif self._in_head:
            self.head_children.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open, self._buffer = (tag, dict(attrs)), []

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self._in_head = False
        if self._open and tag == self._open[0]:
            text = "".join(self._buffer)
            if tag == "script":
                self.scripts.append((self._open[1], text))
            else:
                self.styles.append(text)
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self._buffer.append(data)


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_same_inputs_give_identical_bytes(
    board_inputs: Path, built_site: Path, make_options: Callable[..., Any]
) -> None:
    again = board_inputs / "site-again"
    build(make_options(board_inputs, again))
    assert (again / "index.html").read_bytes() == (built_site / "index.html").read_bytes()
    assert (again / "board.json").read_bytes() == (built_site / "board.json").read_bytes()


def test_page_prints_inputs_hash_and_seed(built_site: Path) -> None:
    board = Board.model_validate_json((built_site / "board.json").read_text())
    page = (built_site / "index.html").read_text()
    assert f'<code id="inputs-hash">{board.inputs_hash}</code>' in page
    assert f'<code id="seed">{board.seed}</code>' in page
    assert board.format_version == 1


def test_csp_is_first_in_head_and_hashes_every_inline_script_and_style(built_site: Path) -> None:
    parser = _Inline()
    parser.feed((built_site / "index.html").read_text())
    tag, attrs = parser.head_children[0]
    assert tag == "meta" and attrs["http-equiv"] == "Content-Security-Policy"
    policy = {d.split()[0]: d.split()[1:] for d in str(attrs["content"]).split("; ")}
    executable = [text for a, text in parser.scripts if a.get("type") != "application/json"]
    assert len(executable) == 1  # board.js, nothing else: the charts are SVG drawn at build
    assert sorted(policy["script-src"]) == sorted(_sha(t) for t in executable)
    assert sorted(policy["style-src"]) == sorted(_sha(t) for t in parser.styles)
    assert len(parser.styles) == 1 and _sha("") not in policy["style-src"]
    assert policy["default-src"] == ["'none'"] and policy["connect-src"] == ["'none'"]
    assert "'unsafe-inline'" not in str(attrs["content"])
    assert "'unsafe-eval'" not in str(attrs["content"])


def test_contributor_strings_are_escaped_in_the_source(built_site: Path) -> None:
    page = (built_site / "index.html").read_text()
    assert XSS_NAME not in page and XSS_NOTE not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # the data block, the comparisons' block, board.js: nothing injected
    assert page.count("<script") == 3
    assert page.count('<script type="application/json"') == 2
    data = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page, re.S)
    assert data is not None
    parsed = json.loads(data.group(1))
    names = [e["display_name"] for c in parsed["board"]["cohorts"] for e in c["entries"]]
    assert XSS_NAME in names


def test_links_are_https_only(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    with pytest.raises(BoardUsageError) as info:
        build(make_options(board_inputs, tmp_path / "s", repo_url="javascript:alert(1)//"))
    assert info.value.code == "BOARD_REPO_URL"
    board = json.loads((board_inputs / "site" / "board.json").read_text())
    links = [f["transcript"] for c in board["cohorts"] for e in c["entries"] for f in e["failed"]]
    assert links and all(link.startswith("https://github.com/example/") for link in links)


def test_strict_failure_leaves_the_old_site_untouched(
    board_inputs: Path, make_options: Callable[..., Any]
) -> None:
    out = board_inputs / "site-strict"
    build(make_options(board_inputs, out))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert any(p.parent.name == "transcripts" for p in before)
    with pytest.raises(BoardBuildError) as info:
        build(make_options(board_inputs, out, strict=True, seed=5))
    assert info.value.code == "BOARD_STRICT"
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    leftovers = [p.name for p in board_inputs.iterdir() if p.name.startswith(".site-strict")]
    assert leftovers == []


def test_a_broken_template_fails_and_keeps_the_site(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    out = board_inputs / "site-template"
    build(make_options(board_inputs, out))
    before = (out / "index.html").read_bytes()
    with pytest.raises(BoardBuildError) as info:
        build(make_options(board_inputs, out, templates=tmp_path, seed=9))
    assert info.value.code == "BOARD_TEMPLATE"
    assert (out / "index.html").read_bytes() == before


def test_board_rows_from_real_runs(built_site: Path) -> None:
    board = Board.model_validate_json((built_site / "board.json").read_text())
    assert len(board.cohorts) == 2
    synthetic = next(c for c in board.cohorts if any(e.entrant == "xss" for e in c.entries))
    rows = {e.entrant: e for e in synthetic.entries}
    assert rows["fragile"].display_name == "Fragile Stack"  # latest, not the better old run
    assert rows["fragile"].error_rate == pytest.approx(6 / 24)
    assert rows["xss"].safety and rows["xss"].cost_usd is None
    assert synthetic.cost_not_measured == [rows["xss"].key]
    assert rows["tied-one"].rank == rows["tied-two"].rank
    assert rows["fragile"].pass_hat_k is not None and rows["fragile"].flakiness is not None
    fragile = [(s.language, s.n, round(s.mean, 9)) for s in rows["fragile"].languages]
    assert fragile == [("en", 10, 0.7), ("tr", 2, 0.25)]
    page = (built_site / "index.html").read_text()
    assert '<option value="en">en</option><option value="tr">tr</option>' in page


def test_cli_builds_and_reports_errors(board_inputs: Path, tmp_path: Path) -> None:
    from bench.cli.board_cmd import board

    repo = Path(__file__).resolve().parents[2]
    args = [
        "build", "--runs", str(board_inputs / "runs"), "--results", str(tmp_path / "none"),
        "--out", str(tmp_path / "site"), "--templates", str(repo / "site_templates"),
        "--methodology", str(repo / "docs" / "METHODOLOGY.md"), "--resamples", "200",
    ]  # fmt: skip
    result = CliRunner().invoke(board, args)
    assert result.exit_code == 0, result.output
    assert f"wrote {tmp_path / 'site' / 'index.html'}" in result.output
    result = CliRunner().invoke(board, [*args, "--strict"])
    assert isinstance(result.exception, BoardBuildError)
    assert result.exception.exit_code == 3


def test_importing_the_command_pulls_in_no_numpy_or_jinja2() -> None:
    code = (
        "import sys, bench.cli.board_cmd, bench.board;"
        "print(sorted(m for m in ('numpy', 'scipy', 'jinja2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registry_names_the_rows_and_warns_of_unknown_entrants(built_site: Path) -> None:
    board = Board.model_validate_json((built_site / "board.json").read_text())
    rows = {e.entrant: e for c in board.cohorts for e in c.entries}
    assert rows["tied-one"].display_name == "Tied One (registered)"
    assert rows["tied-one"].config_label == "Tied One"  # the run's own name, kept
    assert rows["xss"].config_label is None  # the same name twice is said once
    info = rows["tied-one"].entrant_info
    assert info is not None and info.links == ["https://example.com/tied-one"]
    assert info.organisation == "Example Lab" and info.description is None
    assert rows["fragile"].entrant_info is None and rows["fragile"].display_name == "Fragile Stack"
    unknown = sorted(w for w in board.warnings if w.startswith("unknown entrant"))
    assert [w.split("'")[1] for w in unknown] == ["fragile", "tied-two"]
    assert all("submissions/" in w for w in unknown)


def test_strict_fails_on_an_unknown_entrant(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    registry = tmp_path / "submissions"
    registry.mkdir()
    with pytest.raises(BoardBuildError) as info:
        build(make_options(board_inputs, tmp_path / "site", strict=True, submissions=registry))
    assert "unknown entrant 'fragile'" in str(info.value)
    assert not (tmp_path / "site").exists()


def test_a_broken_registry_file_is_a_warning_naming_it(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    registry = tmp_path / "submissions"
    registry.mkdir()
    (registry / "fragile.yaml").write_text("display_name: x\nsurprise: 1\n", encoding="utf-8")
    result = build(make_options(board_inputs, tmp_path / "site", submissions=registry))
    [broken] = [w for w in result.warnings if w.startswith("entrant 'fragile'")]
    assert "fragile.yaml" in broken


def test_descriptions_render_markdown_with_html_off_and_https_links_only(
    built_site: Path,
) -> None:
    from bench.board.page import description_html

    html = description_html(
        "A **bold** claim <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n"
        "[js](javascript:alert(1)) [plain](http://example.com/p) [data](data:text/html,x) "
        "[ok](https://example.com/ok) ![pixel](https://example.com/p.png)"
    )
    assert "<strong>bold</strong>" in html
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<a ") == 2  # [ok] and the image syntax read as a link
    assert '<a href="https://example.com/ok" rel="nofollow noopener noreferrer">ok</a>' in html
    for refused in ("javascript:", 'href="http:', 'href="data:'):
        assert refused not in html.replace("[js](javascript:alert(1))", "")
    page = (built_site / "index.html").read_text()
    [template] = re.findall(
        r'<template id="desc-xss" class="description">(.*?)</template>', page, re.S
    )
    assert "<strong>hostile</strong>" in template and "<script" not in template


def test_unverifiable_bundles_and_stale_runs_are_warnings(board_inputs: Path) -> None:
    import dataclasses

    from bench import HARNESS_VERSION
    from bench.board.build import input_warnings
    from bench.board.load import RunsLoader

    [(entry, _), *_] = RunsLoader(board_inputs / "runs").load(None)
    assert input_warnings([entry], True) == []
    failed = dataclasses.replace(
        entry, source="bundle", verified=False, verified_note="verification failed: X"
    )
    old = dataclasses.replace(entry, harness="0.0.1")
    assert input_warnings([failed], True) == [
        f"unverifiable bundle {entry.source_path}: verification failed: X"
    ]
    assert input_warnings([failed], False) == []  # --no-verify says so on the row instead
    [stale] = input_warnings([old], True)
    assert stale.startswith(f"stale schema: {entry.source_path} was made by harness 0.0.1")
    assert HARNESS_VERSION in stale


def test_the_baseline_is_a_reference_row_outside_ranks_and_frontier(built_site: Path) -> None:
    board = Board.model_validate_json((built_site / "board.json").read_text())
    cohort = next(
        c for c in board.cohorts if any(e.entrant == "baseline-do-nothing" for e in c.entries)
    )
    ref = cohort.entries[-1]
    assert (ref.entrant, ref.reference, ref.ranked, ref.rank) == (
        "baseline-do-nothing", "do_nothing", False, None)  # fmt: skip
    assert ref.headline is not None and ref.frontier_probability is None
    assert ref.key not in cohort.cost_view + cohort.latency_view
    assert [e.rank for e in cohort.entries if e.ranked] and all(
        e.reference is None for e in cohort.entries if e.ranked
    )
    assert not any("baseline-do-nothing" in w for w in board.warnings)  # needs no registry record


# Issue 16: the page's charts are SVG drawn here; the introduction; no plotly anywhere.


def _rows(n: int, **changes: Any) -> Any:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from board_synth import synthetic_board

    cohort = synthetic_board(n).cohorts[0]
    return cohort.model_copy(update=changes) if changes else cohort


def test_charts_are_byte_stable_svg_with_escaped_labels_and_the_right_axis() -> None:
    from bench.board.charts import LABELLED, cohort_charts

    cohort = _rows(200)
    first = cohort.entries[0].model_copy(
        update={"display_name": XSS_NAME, "config_label": XSS_NOTE, "cost_usd": None}
    )
    cohort = cohort.model_copy(update={"entries": [first, *cohort.entries[1:]]})
    charts = cohort_charts(cohort, 3)
    assert charts == cohort_charts(cohort, 3)  # deterministic
    cost, latency = charts["cost"], charts["latency"]
    assert cost is not None and latency is not None
    assert cost.startswith('<svg class="chart-svg" id="svg-cost-3"')
    for svg in (cost, latency):
        assert (
            XSS_NAME not in svg
            and "<script" not in svg
            and "onerror=" not in svg.replace("onerror=alert(1)&gt;", "")
        )
    assert f'data-key="{first.key}"' not in cost  # cost not measured: never on the cost axis
    assert f'data-key="{first.key}"' in latency
    assert "&lt;img src=x onerror=alert(1)&gt; (&lt;/script&gt;" in latency  # name and version
    points = re.compile(r'<g class="point[ "]')
    assert len(points.findall(cost)) == 199 and len(points.findall(latency)) == 200
    assert "dollars per run (log scale)" in cost  # 1e-4 .. 1: four orders of magnitude
    assert "p95 latency per attempt (s) (linear scale)" in latency  # 0.5 .. 40 s
    front = cost.count('class="point front')
    assert front >= 1 and cost.count('<text class="front"') == front
    assert cost.count('<text class="top"') <= LABELLED
    assert re.search(r"<title>[^<]*\nrun 20260101T000000Z-", cost)  # the run id in the tooltip


def test_two_versions_of_a_long_named_entrant_never_share_a_label() -> None:
    from bench.board.charts import LABEL_MAX, cohort_charts

    cohort = _rows(2)
    long = "Example support bot with a very long display name"
    a, b = (
        e.model_copy(update={"display_name": long, "config_label": f"example-support-bot v{n}"})
        for n, e in zip((1, 2), cohort.entries, strict=True)
    )
    cost = cohort_charts(cohort.model_copy(update={"entries": [a, b]}), 0)["cost"]
    assert cost is not None
    labels = re.findall(r'<text class="(?:front|top)"[^>]*>([^<]*)</text>', cost)
    assert sorted(labels) == ["Example su… (example-support-bot v1)",
                              "Example su… (example-support-bot v2)"]  # fmt: skip
    assert all(len(label) <= LABEL_MAX for label in labels)


def test_nothing_to_plot_without_measured_values() -> None:
    from bench.board.charts import cohort_charts

    cohort = _rows(3)
    none = [e.model_copy(update={"cost_usd": None, "p95_latency_s": None}) for e in cohort.entries]
    charts = cohort_charts(cohort.model_copy(update={"entries": none}), 0)
    assert charts == {"cost": None, "latency": None}


def test_the_introduction_names_the_guide_without_a_repository_url(tmp_path: Path) -> None:
    from bench.board.build import BuildOptions, render_board
    from bench.board.model import Board

    repo = Path(__file__).resolve().parents[2]
    board = Board(inputs_hash="0" * 64, seed=1, resamples=1, frontier_resamples=1,
                  cohorts=[_rows(3)], warnings=[])  # fmt: skip
    options = BuildOptions(out=tmp_path, templates=repo / "site_templates",
                           methodology=repo / "docs" / "METHODOLOGY.md")  # fmt: skip
    page = render_board(board, options).decode()
    [intro] = re.findall(r'<p class="intro" id="intro">(.*?)</p>', page, re.S)
    assert re.findall(r'href="([^"]*)"', intro) == ["#methodology"]
    assert "the submission guide (<code>docs/SUBMISSIONS.md</code>)" in intro
    with_repo = render_board(board, replace_repo(options, "https://github.com/o/r")).decode()
    [intro] = re.findall(r'<p class="intro" id="intro">(.*?)</p>', with_repo, re.S)
    assert re.findall(r'href="([^"]*)"', intro) == [
        "#methodology", "https://github.com/o/r/blob/HEAD/docs/SUBMISSIONS.md",
        "https://github.com/o/r",
    ]  # fmt: skip


def replace_repo(options: Any, url: str) -> Any:
    import dataclasses

    return dataclasses.replace(options, repo_url=url)


def test_no_plotly_left_in_the_package_or_the_page(built_site: Path) -> None:
    import tomllib

    repo = Path(__file__).resolve().parents[2]
    project = tomllib.loads((repo / "pyproject.toml").read_text())
    assert not any("plotly" in d for d in project["project"]["dependencies"])
    sources = [*(repo / "src" / "bench").rglob("*.py"), *(repo / "site_templates").iterdir()]
    assert [p.name for p in sources if "plotly" in p.read_text().lower()] == []
    page = (built_site / "index.html").read_text()
    assert "Plotly" not in page and "main-svg" not in page  # no plotly.js embedded or drawn


def test_the_page_data_says_each_string_once_and_loses_nothing(built_site: Path) -> None:
    from bench.board.page import page_data

    board = Board.model_validate_json((built_site / "board.json").read_text())
    data = page_data(board)
    strings = data["strings"]
    assert len(strings) == len(set(strings))
    original = board.model_dump(mode="json")
    decoded_any = False
    for cohort, compact in zip(original["cohorts"], data["board"]["cohorts"], strict=True):
        for entry, row in zip(cohort["entries"], compact["entries"], strict=True):
            decoded, folder = [], None
            for f in row["failed"]:
                if f[5] != -2:
                    folder = None if f[5] < 0 else strings[f[5]]
                decoded.append({
                    "task_id": strings[f[0]], "family": strings[f[1]], "value": f[2],
                    "lines": [strings[i] for i in f[3]], "private": f[4] == 1,
                    "transcript": None if folder is None else folder + "/" + strings[f[6]],
                })  # fmt: skip
            assert decoded == entry["failed"]
            decoded_any = decoded_any or bool(decoded)
            assert {k: v for k, v in row.items() if k != "failed"} == {
                k: v for k, v in entry.items() if k != "failed"
            }
    assert decoded_any
    assert any(
        f[5] == -2 for c in data["board"]["cohorts"] for e in c["entries"] for f in e["failed"]
    )
    page = (built_site / "index.html").read_text()
    block = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page, re.S)
    assert block is not None and json.loads(block.group(1)) == data


def test_a_cassette_replay_is_never_a_second_row(
    board_inputs: Path, tmp_path: Path, make_options: Any
) -> None:
    import shutil

    from bench.board import build
    from bench.records import RunStore
    from bench.runner import RunRequest, start_run

    root = tmp_path / "copy"
    shutil.copytree(board_inputs / "runs", root / "runs")
    shutil.copytree(board_inputs / "submissions", root / "submissions")
    before = build(make_options(root, tmp_path / "before"))
    [v2] = [r for r in RunStore(root / "runs").runs() if r.config().display_name.endswith("v2")]
    replayed, _ = start_run(
        RunRequest(tasks=Path(__file__).parents[2] / "examples" / "tasks", replay=str(v2.path),
                   split="public", repeats=2, runs_dir=root / "runs")
    )  # fmt: skip
    after = build(make_options(root, tmp_path / "after"))
    keys = [[e.key for e in c.entries] for c in after.board.cohorts]
    assert keys == [[e.key for e in c.entries] for c in before.board.cohorts]
    assert f"runs/{replayed.run_id} is a replay of {v2.run_id}: a replay is not a row" in (
        after.warnings
    )
    assert after.problems == before.problems  # a note, not a reason for --strict to fail


def test_a_registered_entrant_names_its_reference_row(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    """A reference row needs no registry record, but when its entrant has one, the reviewed
    name is shown, not the bundle's own word (which could name another entrant or a famous
    model beside a no-model baseline's score)."""
    import shutil

    registry = tmp_path / "submissions"
    shutil.copytree(board_inputs / "submissions", registry)
    record = (registry / "example-support-bot.yaml").read_text(encoding="utf-8")
    named = record.replace("display_name: ", "display_name: Reviewed Baseline Name  # ", 1)
    (registry / "baseline-do-nothing.yaml").write_text(named, encoding="utf-8")
    result = build(make_options(board_inputs, tmp_path / "site", submissions=registry))
    [ref] = [e for c in result.board.cohorts for e in c.entries if e.reference is not None]
    assert ref.entrant == "baseline-do-nothing" and ref.display_name == "Reviewed Baseline Name"
    assert ref.entrant_info is not None and ref.config_label is not None
    assert not any("baseline-do-nothing" in w for w in result.warnings)


@pytest.mark.parametrize(
    "lookalike",
    [
        "Tied \u041ene (registered)",  # a Cyrillic capital O
        "tied one (Registered)",  # case
        "\uff34ied One (registered)",  # a full-width T
        "Tied 0ne (registered)",  # a zero
    ],
)
def test_two_entrants_whose_names_look_alike_fail_strict(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path, lookalike: str
) -> None:
    """tied-two registers a name that reads as tied-one's: the page would show one entrant's
    rows under another's name, so the build names both and --strict fails."""
    import shutil

    registry = tmp_path / "submissions"
    shutil.copytree(board_inputs / "submissions", registry)
    record = (registry / "tied-one.yaml").read_text(encoding="utf-8")
    assert "display_name: Tied One (registered)" in record
    twin = record.replace("Tied One (registered)", lookalike)
    (registry / "tied-two.yaml").write_text(twin, encoding="utf-8")
    result = build(make_options(board_inputs, tmp_path / "site", submissions=registry))
    [problem] = [p for p in result.problems if "look alike" in p]
    assert "'tied-one'" in problem and "'tied-two'" in problem
    with pytest.raises(BoardBuildError, match="look alike"):
        build(make_options(board_inputs, tmp_path / "strict", submissions=registry, strict=True))


def test_distinct_names_are_no_problem(built_site: Path, board_inputs: Path) -> None:
    from bench.board.registry import name_collisions

    board = Board.model_validate_json((built_site / "board.json").read_text())
    names = {e.entrant: e.display_name for c in board.cohorts for e in c.entries}
    assert len(names) >= 5 and name_collisions(names) == []
    assert not any("look alike" in w for w in board.warnings)


def test_a_run_label_that_looks_like_another_entrants_name_fails_strict(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path: Path
) -> None:
    """A registered entrant's rows show the run's own display name beside the registry's, as a
    label (and a chart point keeps the label whole, cutting the name). That name is the
    bundle's word, never reviewed: a run named like another entrant would show under that
    entrant's name. Here tied-one registers the name the example bot's v1 run gives itself;
    the mirror case (a run naming itself after a registered entrant) is the same pair."""
    import shutil

    registry = tmp_path / "submissions"
    shutil.copytree(board_inputs / "submissions", registry)
    record = (registry / "tied-one.yaml").read_text(encoding="utf-8")
    (registry / "tied-one.yaml").write_text(
        record.replace("Tied One (registered)", "Example-Support-Bot v1"), encoding="utf-8"
    )
    result = build(make_options(board_inputs, tmp_path / "site", submissions=registry))
    [problem] = [p for p in result.problems if "look alike" in p]
    assert "'example-support-bot'" in problem and "'tied-one'" in problem
    with pytest.raises(BoardBuildError, match="look alike"):
        build(make_options(board_inputs, tmp_path / "strict", submissions=registry, strict=True))


def test_an_interrupted_run_first_in_its_cohort_does_not_break_the_build(
    make_options: Callable[..., Any], tmp_path: Path
) -> None:
    """A run killed after its first attempts (status ``started``, as ``kill -9`` leaves it)
    first in its cohort, beside a complete run of the same model. The cohort read the family
    of each ranked task from its first member, the interrupted run, and the build died with a
    KeyError (a traceback, no board). Now the complete run is ranked and the other listed."""
    from bench.records.store import ATTEMPTS
    from bench.runner import RunRequest, start_run

    examples = Path(__file__).parents[2] / "examples"
    runs = tmp_path / "runs"
    made = {}
    for entrant in ("a-cut", "z-done"):
        target = tmp_path / f"{entrant}.yaml"
        target.write_text(
            f"format_version: 1\nkind: scripted\nentrant: {entrant}\ndisplay_name: {entrant}\n"
            f"model: example-support-bot-v1\ncallable: {examples / 'support_bot.py'}:respond_v1\n"
            "params: {temperature: 0}\n",
            encoding="utf-8",
        )
        made[entrant], _ = start_run(
            RunRequest(tasks=examples / "tasks", target_file=target, split="public", runs_dir=runs)
        )
    cut = made["a-cut"]
    status = json.loads((cut.path / "status.json").read_text())
    status.update(status="started", finished_at=None, attempts_done=4)
    (cut.path / "status.json").write_text(json.dumps(status))
    for stale in sorted((cut.path / ATTEMPTS).iterdir())[4:]:
        stale.unlink()
    result = build(make_options(tmp_path, tmp_path / "site", submissions=None))
    [cohort] = result.board.cohorts
    assert [(e.entrant, e.status, e.ranked) for e in cohort.entries] == [
        ("z-done", "complete", True),
        ("a-cut", "started", False),
    ]
    assert "z-done" in (tmp_path / "site" / "index.html").read_text()
