"""A stranger brings their own agent and their own tasks, from docs/BRING-YOUR-OWN.md alone.

Every file that page says to save is written from the page into an empty directory, and every
command it shows is run as a real ``bench`` process; its HTTP agent and its judge are started
as the page starts them, real processes on loopback. A second, faulty agent serves each mistake
of the page's table, and the table's words are checked against what the harness recorded.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "BRING-YOUR-OWN.md"
BENCH = Path(sys.executable).parent / "bench"
GUARD_S = 120  # a hung process fails the test instead of the suite; no test relies on it

_SAVE = re.compile(r"Save as `([^`]+)`:\n\n```\w*\n(.*?)^```$", re.M | re.S)


def saved_files(text: str) -> dict[str, str]:
    """Each ``Save as `PATH`:`` of the page and the fenced block that follows it."""
    return dict(_SAVE.findall(text))


def bench(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BENCH), *args], cwd=cwd, capture_output=True, text=True, timeout=GUARD_S
    )


@contextmanager
def serving(cwd: Path, script: str) -> Iterator[str]:
    """Start one of the page's servers as the page does (``python SCRIPT PORT``, port 0 here)
    and yield the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, script, "0"], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=GUARD_S)
        if process.stdout is not None:
            process.stdout.close()


def shown(cwd: Path, run: str) -> dict[str, Any]:
    done = bench(cwd, "show", run, "--format", "json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def reasons(data: dict[str, Any]) -> list[str]:
    """Every failing sentence or error reason of a ``bench show --format json``."""
    return [line for failure in data["failures"] for line in failure["lines"]]


def run_id(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    [found] = re.findall(r"^  run directory runs/(\S+)$", done.stdout, re.M)
    return found


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty directory holding what the page says to save."""
    home = tmp_path_factory.mktemp("stranger")
    for name, text in saved_files(PAGE.read_text(encoding="utf-8")).items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text, encoding="utf-8")
    return home


@pytest.fixture(scope="module")
def runs(stranger: Path) -> dict[str, str]:
    """The page's two runs, as it gives them: the scripted agent, then the HTTP agent."""
    scripted = bench(stranger, "run", "--tasks", "tasks", "--target", "targets/scripted.yaml")
    with serving(stranger, "http_agent.py") as url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/agent", url), url
        agent = bench(stranger, "run", "--tasks", "tasks", "--target",
                      "targets/http-agent.yaml", "--base-url", url)  # fmt: skip
    return {"acme-rules": run_id(scripted), "acme-agent": run_id(agent)}


def test_the_page_saves_every_file_its_commands_use() -> None:
    files = saved_files(PAGE.read_text(encoding="utf-8"))
    assert sorted(files) == [
        "agent.py", "corpora/faq.md", "http_agent.py", "judge.yaml", "judge_server.py",
        "judged/returns.yaml", "labels.jsonl", "targets/http-agent.yaml",
        "targets/scripted.yaml", "tasks/support.yaml",
    ]  # fmt: skip


def test_the_tasks_validate_and_lint_as_the_page_prints(stranger: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    [printed] = re.findall(r"^bench task validate tasks +# (.*)$", text, re.M)
    done = bench(stranger, "task", "validate", "tasks")
    assert done.returncode == 0 and done.stdout.splitlines()[0] == printed, done
    [finding] = re.findall(r"^(baseline-pass: .*)$", text, re.M)
    done = bench(stranger, "task", "lint", "tasks")
    assert done.returncode == 1 and done.stdout.splitlines()[0] == finding, done
    assert done.stdout.splitlines()[1].startswith("1 finding(s); 4 task(s)"), done.stdout


@pytest.mark.parametrize("entrant", ["acme-rules", "acme-agent"])
def test_each_agent_of_the_page_passes_three_of_the_four_tasks(
    stranger: Path, runs: dict[str, str], entrant: str
) -> None:
    """The scripted agent answers the harness's requests; the HTTP agent runs its own loop and
    calls the tools on tools_url. Either way the harness ran and recorded every call."""
    data = shown(stranger, runs[entrant])
    assert data["entrant"] == entrant and data["outcomes"] == {"scored": 4}, data
    assert [f["task_id"] for f in data["failures"]] == ["acme-qa-0002"]
    said = "1/1 repeats: the corpus cannot answer this and the agent answered anyway: "
    assert any(r.startswith(said) for r in reasons(data)), reasons(data)
    trace = bench(stranger, "show", runs[entrant], "--task", "acme-tool-0001").stdout
    assert 'tool get_order({"order_id": "1041"}) ⇒ {"status": "delivered"}' in trace
    assert 'tool issue_refund({"order_id": "1041"}) ⇒ {"refund_id": "rf-1041"}' in trace


def test_a_module_beside_you_is_named_as_a_file_as_the_page_says(stranger: Path) -> None:
    """The current directory is not on sys.path when the ``bench`` script runs."""
    page = PAGE.read_text(encoding="utf-8")
    [said] = re.findall(
        r"`callable: agent:respond`\s+beside you is .*?`(error\[[^`]+)`", page, re.S
    )
    text = (stranger / "targets" / "scripted.yaml").read_text(encoding="utf-8")
    module = stranger / "targets" / "module.yaml"
    module.write_text(text.replace("../agent.py:respond", "agent:respond"), encoding="utf-8")
    before = sorted((stranger / "runs").glob("*/config.json"))
    done = bench(stranger, "run", "--tasks", "tasks", "--target", "targets/module.yaml")
    head, _, tail = said.partition("…")
    assert done.returncode == 3 and done.stderr.startswith(head), done.stderr
    assert tail in done.stderr and sorted((stranger / "runs").glob("*/config.json")) == before


def test_the_board_of_both_runs_ranks_them_in_one_cohort(
    stranger: Path, runs: dict[str, str]
) -> None:
    done = bench(stranger, "board", "build", "--out", "site-both")
    assert done.returncode == 0, done.stderr
    assert (stranger / "site-both" / "index.html").is_file()
    board = json.loads((stranger / "site-both" / "board.json").read_text(encoding="utf-8"))
    [cohort] = board["cohorts"]
    ranked = {e["entrant"]: (e["run_id"], e["rank"]) for e in cohort["entries"]}
    assert ranked == {name: (run, 1) for name, run in runs.items()}, ranked


# The page's table of mistakes, served by one agent that makes each mistake on its own task.
MISTAKES: dict[str, tuple[str, str | None]] = {
    # mode: (the start of the table's row, what the attempt records; None: it is scored)
    "text-plain": ("replies JSON under another", None),
    "500": ("answers HTTP 500", "ENDPOINT_SERVER_ERROR: HTTP 500: boom"),
    "slow": ("replies after", "ENDPOINT_TIMEOUT"),
    "response": ("replies without `answer`",
                 "AGENT_NO_ANSWER: the agent's reply has no 'answer' (keys: response)"),
    "null": ("replies `{\"answer\": null}`",
             "AGENT_BAD_ANSWER: the agent's 'answer' is null, not a string"),
    "not-json": ("replies a body that is not JSON", "ENDPOINT_BAD_JSON"),
    "list": ("replies a body that is not JSON", "ENDPOINT_BAD_RESPONSE"),
    "claims": ("lists the tools it used",
               "missing required tool(s) get_order, issue_refund (called: nothing)"),
}  # fmt: skip


class _Faulty(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        turn = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = turn["task_id"].removeprefix("mistake-")
        status, ctype, body = 200, "application/json", b""
        if mode == "text-plain":
            ctype, body = "text/plain", b'{"answer": "Order 1041 is delivered."}'
        elif mode == "500":
            status, body = 500, b'{"error": "boom"}'
        elif mode == "slow":
            time.sleep(1.0)  # past the target's request_s of 0.5 s
            body = b'{"answer": "late"}'
        elif mode == "response":
            body = b'{"response": "Order 1041 is delivered."}'
        elif mode == "null":
            body = b'{"answer": null}'
        elif mode == "not-json":
            ctype, body = "text/plain", b"Order 1041 is delivered."
        elif mode == "list":
            body = b'["Order 1041 is delivered."]'
        elif mode == "claims":
            body = json.dumps({
                "answer": "Refunded order 1041: rf-1041",
                "tool_calls": [{"name": "get_order", "arguments": {"order_id": "1041"}},
                               {"name": "issue_refund", "arguments": {"order_id": "1041"}}],
            }).encode()  # fmt: skip
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the slow reply's client has gone: that is the point of it


def _table() -> dict[str, str]:
    """The page's mistakes table: what the agent does → what the attempt records."""
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("| the agent | the attempt |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ", 1) for line in table.splitlines()[2:]]
    return {agent.strip("| "): attempt.rstrip(" |") for agent, attempt in rows}


def _mistake_tasks(stranger: Path) -> None:
    """One task per mistake: the page's status task (its refund task for ``claims``)."""
    tasks = yaml.safe_load((stranger / "tasks" / "support.yaml").read_text(encoding="utf-8"))
    by_id = {task["id"]: task for task in tasks["tasks"]}
    made = []
    for mode in MISTAKES:
        task = dict(by_id["acme-tool-0001" if mode == "claims" else "acme-tool-0002"])
        task["id"] = f"mistake-{mode}"
        task["input"] = [{"role": "user", "content": f"{task['input'][0]['content']} ({mode})"}]
        made.append(task)
    (stranger / "mistakes").mkdir(exist_ok=True)
    text = json.dumps({"format_version": 1, "tasks": made})  # a task file refuses YAML anchors
    (stranger / "mistakes" / "tasks.json").write_text(text, encoding="utf-8")


def test_each_mistake_of_the_table_gives_what_the_page_says(stranger: Path) -> None:
    _mistake_tasks(stranger)
    table = _table()
    server = _Server(("127.0.0.1", 0), _Faulty)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        target = stranger / "targets" / "faulty.yaml"
        text = (stranger / "targets" / "http-agent.yaml").read_text(encoding="utf-8")
        url = f"http://127.0.0.1:{server.server_port}/agent"
        target.write_text(text.replace("http://127.0.0.1:9000/agent", url)
                          + "timeouts: {request_s: 0.5}\n", encoding="utf-8")  # fmt: skip
        done = bench(stranger, "run", "--tasks", "mistakes", "--corpora", "corpora",
                     "--target", str(target))  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    data = shown(stranger, run_id(done))
    failed = {f["task_id"]: " ".join(f["lines"]) for f in data["failures"]}
    outcomes = {task["task_id"]: task["outcomes"] for task in data["tasks"]}
    for mode, (row, said) in MISTAKES.items():
        [attempt] = [v for k, v in table.items() if k.startswith(row)]
        if said is None:  # read as JSON whatever its content type: scored, not errored
            assert "not checked" in attempt, attempt
            assert outcomes[f"mistake-{mode}"] == {"scored": 1}, outcomes
            continue
        assert said.split(":")[0] in attempt, (mode, attempt)
        assert said in failed[f"mistake-{mode}"], (mode, failed)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_wrong_port_is_refused_before_anything_is_written_as_the_page_says(
    stranger: Path,
) -> None:
    """It was a run left ``started`` (or complete, every attempt errored) and the entrant's
    latest on the local board: now the port is tried, a connection and no request, first."""
    url = f"http://127.0.0.1:{_closed_port()}/agent"
    before = sorted((stranger / "runs").glob("*")) if (stranger / "runs").exists() else []
    done = bench(stranger, "run", "--tasks", "tasks", "--target", "targets/http-agent.yaml",
                 "--base-url", url, "--wait-ready", "0")  # fmt: skip
    attempt = _table()["is not listening (a wrong port)"]
    assert "before anything is written" in attempt and "exits 5" in attempt, attempt
    [said] = re.findall(r"`(error\[ENDPOINT_UNREACHABLE\]: [^`]+)`", attempt)
    head, _, tail = said.replace(" after waiting 120 s", "").partition("…")
    head = head.replace("http://127.0.0.1:9001/agent", url)
    assert done.returncode == 5 and done.stderr.startswith(head), done.stderr
    assert done.stderr.rstrip().endswith(tail.rstrip()), done.stderr
    after = sorted((stranger / "runs").glob("*")) if (stranger / "runs").exists() else []
    assert after == before


def test_the_page_shows_the_labels_it_calibrates_with() -> None:
    """The page's `bench judge calibrate … --labels labels.jsonl` runs on a file it saves:
    the floor's 20 labels, both verdicts, in the label file's own fields (docs/JUDGE.md)."""
    from bench.scorers.judge.calibration import LABELS_FLOOR, Label

    page = PAGE.read_text(encoding="utf-8")
    assert "--labels labels.jsonl" in page
    lines = saved_files(page)["labels.jsonl"].splitlines()
    labels = [Label.model_validate(json.loads(line)) for line in lines]
    assert len(labels) == len({label.id for label in labels}) == LABELS_FLOOR
    assert {label.label for label in labels} == {True, False}


def test_the_stand_in_judge_calibrates_and_decides_the_judged_task(stranger: Path) -> None:
    """The page's labels, as saved, against its stand-in judge: κ 1.00, as the page says."""
    assert "κ 1.00" in PAGE.read_text(encoding="utf-8")
    with serving(stranger, "judge_server.py") as url:
        judge = stranger / "judge-here.yaml"
        text = (stranger / "judge.yaml").read_text(encoding="utf-8")
        judge.write_text(text.replace("http://127.0.0.1:9100/v1", url), encoding="utf-8")
        done = bench(stranger, "judge", "calibrate", "--judge", judge.name, "--labels",
                     "labels.jsonl")  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines()[-1].startswith("usable: κ 1.00 over 20 labels")
        done = bench(stranger, "run", "--tasks", "judged", "--corpora", "corpora", "--target",
                     "targets/scripted.yaml", "--judge", judge.name)  # fmt: skip
    trace = bench(stranger, "show", run_id(done), "--task", "acme-judged-0001").stdout
    assert "[ok] judge: the judge said PASS: it says 30 days." in trace, trace


def test_the_mock_server_is_no_judge_as_the_page_says(stranger: Path) -> None:
    assert "`bench mock-server` is not a judge" in PAGE.read_text(encoding="utf-8")
    process = subprocess.Popen(
        [str(BENCH), "mock-server", "--port", "0", "--max-seconds", str(GUARD_S)],
        cwd=stranger, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        judge = stranger / "judge-mock.yaml"
        judge.write_text(f"format_version: 1\nbase_url: {url}/v1\nmodel: mock\n", "utf-8")
        done = bench(stranger, "judge", "calibrate", "--judge", judge.name, "--labels",
                     "labels.jsonl")  # fmt: skip
    finally:
        process.terminate()
        process.wait(timeout=GUARD_S)
        if process.stdout is not None:
            process.stdout.close()
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unusable: κ 0.00 is below the floor 0.70" in done.stdout


def _expectation_table() -> dict[str, tuple[set[str], set[str]]]:
    """docs/TASKS.md, "Expectation fields": type → (its fields, the required ones)."""
    text = (REPO / "docs" / "TASKS.md").read_text(encoding="utf-8")
    table = text.split("| type | fields (required in bold) |", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, tuple[set[str], set[str]]] = {}
    for line in table.splitlines()[2:]:
        _, kind, fields, _ = line.split("|")
        named = re.sub(r"\([^()]*\)", "", fields)  # defaults and values, in parentheses
        rows[kind.strip(" `")] = (
            set(re.findall(r"`(\w+)`", named)),
            set(re.findall(r"\*\*`(\w+)`\*\*", named)),
        )
    return rows


def test_the_expectation_fields_table_is_every_field_of_every_type() -> None:
    """A stranger writing tasks from the docs found each type's fields only in the JSON Schema:
    the table in docs/TASKS.md lists them, and must name exactly the model's."""
    from typing import get_args

    from bench.tasks.expectations import EXPECTATION_TYPES, Expectation

    common = {"type", "weight", "note", "axis", "safety"}
    models = {
        model.model_fields["type"].default: model for model in get_args(get_args(Expectation)[0])
    }
    assert sorted(models) == sorted(EXPECTATION_TYPES)
    expected = {  # a field is written by its alias where it has one (``schema``)
        name: (
            {info.alias or f for f, info in model.model_fields.items()} - common,
            {info.alias or f for f, info in model.model_fields.items() if info.is_required()},
        )
        for name, model in models.items()
    }
    assert _expectation_table() == expected
