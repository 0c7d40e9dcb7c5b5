"""``bench report`` in every format, from real runs of the mini fixture."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from bench.records import RunDir
from bench.reports import build_report, render_junit, render_markdown, render_show, summarize
from bench.reports.jsonreport import RunReport
from bench.reports.markdown import escape, fence

Invoke = Callable[..., tuple[int, str, str]]


def test_terminal_is_render_show(mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke) -> None:
    run = mini_runs["crashes_on_refunds"]
    code, out, err = invoke("report", run.run_id, "--runs-dir", mini / "runs")
    assert code == 0, err
    assert out == render_show(summarize(run))


def test_markdown_report(mini_runs: dict[str, RunDir]) -> None:
    text = render_markdown(summarize(mini_runs["crashes_on_refunds"]))
    assert text.startswith("# mini crashes\\_on\\_refunds: run ")
    assert "**Score:** 0.500 [0.500, 0.500] (95% interval;" in text
    assert "| grounded\\-qa | 2 | 1.000 | 2/2 | 0 | 2/2 (100%) |" in text
    assert "| tool\\-trajectory | 1 | 0.000 | 0/1 | 1 | 1/1 (100%) |" in text
    assert "## Failed tasks (1)" in text
    assert "### tool\\-0001 (tool\\-trajectory), score 0.000" in text
    assert "- 1/1 repeats: errored: ENTRANT\\_EXCEPTION: ValueError: cannot handle refunds" in text
    assert "```text\nattempt tool-0001 repeat 0: errored, score 0.000\n" in text
    assert "user: Refund order 1041." in text
    good = render_markdown(summarize(mini_runs["good"]))
    assert "No failed tasks." in good and "Safety violations" not in good


def test_markdown_escapes_contributor_text() -> None:
    assert escape("**bold** [x](http://e) <b> | a_b # h") == (
        "\\*\\*bold\\*\\* \\[x\\]\\(http://e\\) \\<b\\> \\| a\\_b \\# h"
    )
    assert escape("line one\nline two & more") == "line one line two &amp; more"
    fenced = fence("agent said ```` and ``` here")
    assert fenced.startswith("`````text\n") and fenced.endswith("\n`````")


def test_junit_report_has_the_common_shape(mini_runs: dict[str, RunDir]) -> None:
    root = ET.fromstring(render_junit(summarize(mini_runs["crashes_on_refunds"])))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    for attr in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
        assert attr in suite.attrib, attr
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "0", "1")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("grounded-qa", "qa-0001"),
        ("grounded-qa", "qa-0002"),
        ("tool-trajectory", "tool-0001"),
    ]
    for case in cases:
        assert {"name", "classname", "time"} <= set(case.attrib)
        assert len([c for c in case if c.tag in ("failure", "error", "skipped")]) <= 1
    error = cases[2].find("error")
    assert error is not None
    assert error.get("message") == "errored: ENTRANT_EXCEPTION: ValueError: cannot handle refunds"
    assert error.get("type") == "errored"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["headline"] == "0.500000"


def test_junit_failures_carry_sentences(example_runs: dict[str, RunDir]) -> None:
    root = ET.fromstring(render_junit(summarize(example_runs["v2"])))
    failed = {c.get("name"): c.find("failure") for c in root.iter("testcase")}
    assert sorted(k for k, v in failed.items() if v is not None) == [
        "gqa-0001",
        "gqa-0003",
        "tool-0001",
    ]
    node = failed["gqa-0001"]
    assert node is not None
    assert node.get("message") == (
        "1/1 repeats: did not cite faq.md#refunds; cited 0 passages, the task asks for at least 1"
    )


def test_json_report_is_versioned_and_valid(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke
) -> None:
    run = mini_runs["crashes_on_refunds"]
    code, out, err = invoke("report", run.run_id, "--format", "json", "--runs-dir", mini / "runs")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["format_version"] == 1
    report = RunReport.model_validate(payload)
    assert report == build_report(summarize(run))
    assert report.outcomes == {"errored": 1, "scored": 2}
    assert [f.task_id for f in report.failures] == ["tool-0001"]
    assert report.headline is not None and report.headline.value == 0.5
    schema = RunReport.model_json_schema()
    assert schema["properties"]["format_version"]["const"] == 1


def test_out_directory_gets_run_id_name(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke
) -> None:
    run = mini_runs["good"]
    out_dir = mini / "reports"
    out_dir.mkdir()
    for fmt, ext in (("markdown", "md"), ("junit", "xml"), ("json", "json"), ("terminal", "txt")):
        code, out, err = invoke(
            "report", run.run_id, "--format", fmt, "--out", out_dir, "--runs-dir", mini / "runs"
        )
        assert code == 0, err
        assert out == f"wrote {out_dir / f'{run.run_id}.{ext}'}\n"
    file = mini / "deep" / "r.md"
    code, _, _ = invoke("report", run.run_id, "--format", "markdown", "--out", file,
                        "--runs-dir", mini / "runs")  # fmt: skip
    assert code == 0 and file.read_text().startswith("# mini good: run ")
