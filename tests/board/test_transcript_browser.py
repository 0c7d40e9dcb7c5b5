"""A reader follows a failed task to its transcript, in Debian's Chromium through Playwright,
from the site served over HTTP on 127.0.0.1 (as GitHub Pages serves it), and from file://."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from test_board_browser import ARGS, Watched, _chromium
from test_transcripts import shipped_options, shipped_results

from bench.board import build

REPO = Path(__file__).resolve().parents[2]
TASK = "gqa-pub-incident-detection"  # failed by the shipped v1 bundle, after a search_docs call
BIDI = "\u202e"
HUGE = "x" * 1_000_000


def _hostile_run(source: Path, runs: Path) -> tuple[str, str]:
    """A copy of the run ``source`` under ``runs`` whose first failed task's first attempt
    carries markup in its answer, its tool call's arguments and result, a direction override
    and a 1 MB string: (task id, run id)."""
    from bench.records.store import RunDir
    from bench.reports.summary import summarize

    run = runs / source.name
    shutil.copytree(source, run)
    summary = summarize(RunDir(run))
    task = next(f.task_id for f in summary.failures)
    file = run / "attempts" / f"{task}--r0.json"
    record = json.loads(file.read_text(encoding="utf-8"))
    trace = record["trace"]
    trace["answers"] = ["<script>window.__pwned = 1</script><img src=x onerror='window.__pwned=2'>"]
    trace["usage_measured"] = False  # an entrant that reported no token counts
    arguments = {"query": "<script>window.__pwned = 3</script>", "bidi": f"abc{BIDI}def"}
    trace["messages"] += [
        {"role": "assistant", "content": "</textarea><b>bold?</b>", "name": None,
         "tool_call_id": None,
         "tool_calls": [{"id": "c-evil", "name": "search_docs", "arguments": arguments,
                         "arguments_error": None}]},
        {"role": "tool", "content": HUGE, "name": "search_docs", "tool_call_id": "c-evil",
         "tool_calls": []},
    ]  # fmt: skip
    trace["tool_calls"].append(
        {"id": "c-evil", "name": "search_docs", "arguments": arguments, "turn": 0,
         "result": None, "error": "<img src=x onerror='window.__pwned=4'>", "retrieved": []}
    )  # fmt: skip
    file.write_text(json.dumps(record), encoding="utf-8")
    return task, run.name


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, board_inputs: Path) -> Iterator[Any]:
    """Two sites under one loopback HTTP server: ``shipped/`` (two shipped bundles, verified)
    and ``hostile/`` (a run whose transcript is an attack)."""
    root = tmp_path_factory.mktemp("served")
    shipped_results(root)
    (root / "www").mkdir()
    build(shipped_options(root, root / "www" / "shipped"))
    runs = root / "runs"
    from bench.runner import RunRequest, start_run

    start_run(
        RunRequest(
            tasks=REPO / "examples" / "tasks",
            target_file=REPO / "examples" / "targets" / "support-bot-v2.yaml",
            split="public",
            repeats=1,
            runs_dir=root / "made",
        )
    )
    (source,) = (root / "made").iterdir()
    task, run_id = _hostile_run(source, runs)
    build(shipped_options(root, root / "www" / "hostile", runs=runs, results=None,
                          submissions=board_inputs / "submissions"))  # fmt: skip
    handler = functools.partial(_Quiet, directory=str(root / "www"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield {"url": f"http://127.0.0.1:{server.server_port}", "root": root / "www",
               "task": task, "run_id": run_id}  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def chromium(served: Any) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def tab(chromium: Any) -> Iterator[Watched]:
    context = chromium.new_context(viewport={"width": 1300, "height": 1000})
    context.set_default_timeout(15_000)
    yield Watched(context.new_page())
    context.close()


def _open_card_of(p: Any, entrant: str) -> Any:
    p.wait_for_selector("html[data-board-ready]")
    p.locator(f"tr[data-key^='{entrant}/'] td.name").first.click()
    return p.locator("#card")


def test_a_failed_task_opens_its_transcript_with_the_call_the_result_and_the_check(
    served: Any, tab: Watched
) -> None:
    p = tab.page
    p.goto(served["url"] + "/shipped/index.html")
    card = _open_card_of(p, "example-support-bot")
    item = card.locator("ul.failed li", has=p.locator("code", has_text=TASK))
    assert item.locator("a", has_text="source").get_attribute("href").startswith("https://")
    item.locator("a.transcript").click()
    p.wait_for_selector("html[data-transcript='shown']")
    assert p.url.startswith(served["url"] + "/shipped/transcript.html#")
    assert (p.locator("#title").text_content() or "") == f"Transcript: {TASK}"
    attempts = p.locator("section.attempt")
    assert attempts.count() == 3  # every repeat, in order
    first = attempts.first
    assert "Repeat 0: scored, score 0.000" in (first.locator("h2").text_content() or "")
    text = first.text_content() or ""
    # the tool call with its arguments, its result, the failed check's sentence, the answer
    assert "search_docs" in text and "How did the team first find out" in text
    runs = first.locator("ol.turns").nth(1)
    assert "result" in (runs.text_content() or "")
    failed = first.locator("li.verdict.fail")
    assert failed.count() >= 1
    assert "the answer does not contain 'customer email'" in (failed.first.text_content() or "")
    roles = [first.locator("ol.turns").first.locator("> li .role").nth(i).text_content()
             for i in range(first.locator("ol.turns").first.locator("> li").count())]  # fmt: skip
    assert roles[0] in ("system", "user") and "assistant" in roles and "tool" in roles
    assert first.locator(".answer pre").count() >= 1
    assert tab.errors == [] and tab.dialogs == []
    assert all(u.startswith(served["url"]) for u in tab.requests), tab.requests


def test_the_way_back_is_to_the_page_the_reader_came_from(served: Any, tab: Watched) -> None:
    """A suite's own page (suite-<name>.html) links its failed tasks to the same viewer; "the
    board" link went to index.html, another suite's page."""
    site = served["root"] / "shipped"
    (site / "suite-x.html").write_bytes((site / "index.html").read_bytes())
    p = tab.page
    p.goto(served["url"] + "/shipped/suite-x.html")
    card = _open_card_of(p, "example-support-bot")
    card.locator("ul.failed a.transcript").first.click()
    p.wait_for_selector("html[data-transcript='shown']")
    assert p.locator("#back").get_attribute("href") == "suite-x.html"
    p.goto(served["url"] + "/shipped/index.html")
    _open_card_of(p, "example-support-bot").locator("ul.failed a.transcript").first.click()
    p.wait_for_selector("html[data-transcript='shown']")
    assert p.locator("#back").get_attribute("href") == "index.html"
    assert tab.errors == [] and tab.dialogs == []


def test_a_private_task_has_no_link_and_the_viewer_will_not_show_it(
    served: Any, tab: Watched
) -> None:
    p = tab.page
    p.goto(served["url"] + "/shipped/index.html")
    card = _open_card_of(p, "example-support-bot")
    private = card.locator("ul.failed li", has_text="private split")
    assert private.count() >= 1
    assert private.locator("a").count() == 0
    task = private.first.locator("code").text_content()
    link = card.locator("ul.failed a.transcript").first.get_attribute("href")
    key = link.split("#", 1)[1].split("/", 1)[0]
    p.goto(f"{served['url']}/shipped/transcript.html#{key}/{task}")
    p.wait_for_selector("html[data-transcript='error']")
    assert "private split" in (p.locator("main").text_content() or "")
    assert p.locator("section.attempt").count() == 0


def test_a_hostile_transcript_shows_as_text_and_runs_nothing(served: Any, tab: Watched) -> None:
    p = tab.page
    p.goto(served["url"] + "/hostile/index.html")
    card = _open_card_of(p, "example-support-bot")
    href = card.locator("ul.failed a.transcript").first.get_attribute("href")
    assert href.endswith("/" + served["task"])
    p.goto(served["url"] + "/hostile/" + href)
    p.wait_for_selector("html[data-transcript='shown']")
    first = p.locator("section.attempt").first
    text = first.text_content() or ""
    assert "<script>window.__pwned = 1</script><img src=x onerror='window.__pwned=2'>" in text
    assert "<script>window.__pwned = 3</script>" in text
    assert "</textarea><b>bold?</b>" in text
    assert "abc\u27e6U+202E\u27e7def" in text and BIDI not in text
    error = first.locator(".error", has_text="window.__pwned=4")
    assert error.count() == 1 and "<img" in (error.text_content() or "")
    assert HUGE in text
    # counts the entrant did not report are not measured, never "0 prompt / 0 completion"
    tokens = first.locator("dt", has_text="tokens").locator("xpath=following-sibling::dd[1]")
    assert (tokens.text_content() or "") == "not measured", tokens.text_content()
    assert tokens.count() == 1
    p.wait_for_timeout(200)
    assert p.evaluate("window.__pwned") is None
    assert p.locator("main script, main img, main b, main textarea").count() == 0
    assert tab.errors == [] and tab.dialogs == []


def test_opened_as_a_file_it_says_so_and_offers_the_raw_file(served: Any, tab: Watched) -> None:
    p = tab.page
    site = served["root"] / "shipped"
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    key = next(e["transcripts"] for c in board["cohorts"] for e in c["entries"] if e["transcripts"])
    p.goto((site / "transcript.html").as_uri() + f"#{key}/{TASK}")
    p.wait_for_selector("html[data-transcript='error']")
    text = p.locator("main").text_content() or ""
    assert "opened as a file" in text and "http.server" in text
    raw = p.locator("main a")
    assert raw.get_attribute("href") == f"transcripts/{key}.jsonl.gz"
    assert (site / "transcripts" / f"{key}.jsonl.gz").is_file()


def test_a_gzip_bomb_of_a_data_file_is_refused_not_inflated_whole(
    served: Any, tab: Watched
) -> None:
    # The viewer inflated a data file whole: 2 GB from a 2 MB file would hang the reader's tab.
    # It now stops past 64 MiB (verify's cap on attempts.jsonl.gz, inflated) and says so.
    import gzip

    key = "b" * 24
    bomb = gzip.compress(b"\n" * (80 * 1024 * 1024), compresslevel=9)
    (served["root"] / "shipped" / "transcripts" / f"{key}.jsonl.gz").write_bytes(bomb)
    p = tab.page
    p.goto(f"{served['url']}/shipped/transcript.html#{key}/{TASK}")
    p.wait_for_selector("html[data-transcript='error']")
    text = p.locator("main").text_content() or ""
    assert "larger than 64 MiB once inflated" in text, text
    assert p.locator("section.attempt").count() == 0
    assert tab.errors == [] and tab.dialogs == []
