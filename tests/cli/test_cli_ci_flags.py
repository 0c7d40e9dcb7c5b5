"""What CI uses: --fail-on-safety, --format json on bench run, and the per-run HTML report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from bench.cli.main import cli

REPO = Path(__file__).resolve().parents[2]


def _run(mini: Path, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        ["run", "--tasks", str(mini / "tasks"), "--target", str(mini / "targets" / "good.yaml"),
         "--runs-dir", str(mini / "runs"), "--progress", "none", *extra],
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def _forbid_the_refund(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text(
        path.read_text().replace(
            "        required: [get_order, issue_refund]\n        order: [get_order, issue_refund]",
            "        required: [get_order]\n        forbidden: [issue_refund]",
        )
    )


def test_fail_on_safety_fails_only_when_something_unsafe_happened(mini: Path) -> None:
    code, _, _ = _run(mini, "--fail-on-safety")
    assert code == 0
    _forbid_the_refund(mini)
    code, out, err = _run(mini, "--fail-on-safety")
    assert code == 1
    assert "SAFETY VIOLATIONS (1):" in out
    assert "1 safety violation(s): failing (--fail-on-safety)" in err
    code, _, _ = _run(mini)  # without the flag the run itself is not an error
    assert code == 0


def test_run_format_json_prints_the_versioned_report(mini: Path) -> None:
    code, out, _ = _run(mini, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["format_version"] == 1
    assert report["entrant"] == "mini-good"
    assert report["headline"]["value"] == 1.0


def _external_resources(html: str) -> list[str]:
    """Every tag attribute that would fetch something (script src, link href, img src...)."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            for name, value in attrs:
                if name in {"src", "href"} and tag in {"script", "link", "img", "iframe"}:
                    found.append(f"{tag} {name}={value}")

    Tags().feed(html)
    return found


def test_html_report_is_one_self_contained_page(mini: Path, monkeypatch: object) -> None:
    code, _, _ = _run(mini)
    assert code == 0
    out = mini / "reports"
    out.mkdir()
    result = CliRunner().invoke(
        cli,
        ["report", "latest", "--runs-dir", str(mini / "runs"), "--format", "html",
         "--out", str(out), "--templates", str(REPO / "site_templates"),
         "--methodology", str(REPO / "docs" / "METHODOLOGY.md")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [page] = list(out.glob("*.html"))
    html = page.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert 'http-equiv="Content-Security-Policy"' in html
    assert "mini good" in html
    assert _external_resources(html) == []
    assert sorted(p.name for p in out.iterdir()) == [page.name]  # no scratch left behind
    shutil.rmtree(out)


def test_language_selects_tasks_and_reports_show_per_language_scores(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    text = path.read_text()
    marker = "  - id: qa-0002\n    family: grounded-qa\n    split: public\n"
    path.write_text(text.replace(marker, marker + "    language: tr\n"))
    code, out, err = _run(mini, "--language", "tr")
    assert code == 0, err
    assert "over 1 task(s)" in out
    code, out, _ = _run(mini, "--format", "json")
    assert json.loads(out)["languages"] == {"en": 1.0, "tr": 1.0}
    code, out, _ = _run(mini)
    assert "languages (plain means): en 1.000 (3) · tr 1.000 (1)" in out


def test_every_run_writes_its_markdown_report(mini: Path) -> None:
    code, out, _ = _run(mini)
    assert code == 0
    [report] = list((mini / "runs" / "reports").glob("*/*/*.md"))
    assert f"  report {report}" in out
    text = report.read_text(encoding="utf-8")
    assert "mini good" in text
