"""The harness against llama.cpp's own C++ ``llama-server`` (built from the pinned sdist's
vendored llama.cpp, tests/real/llama_server.py) serving the same SmolLM2-135M GGUF with
``--jinja``: the engine most self-hosters and LM Studio run.

The same checks as the other real servers (test_real_engines.py), on the same slice: the probe
names it (and reads the context window it serves), a plain and a streamed run complete with no
attempt failed for the shape of the harness's requests and the tools in the model's prompt, and
both runs bundle, verify and reach the board. About 40 s once built.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from bench.records import RunStore

from .conftest import Route, RouteRun, bench, run_route, target_file
from .engines import Server
from .llama_server import SERVER_CTX
from .test_real_engines import check_bundles, check_shape

ROUTES = (
    Route("llama-server", "openai", "llama-server", False, "a"),
    Route("llama-server-stream", "openai", "llama-server", True, "a"),
)


@pytest.fixture(scope="module")
def llama_runs(
    llama_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, RouteRun]:
    """``bench run`` of the slice, plain then streamed (one slot: one request at a time)."""
    base = tmp_path_factory.mktemp("llama-routes")
    done: dict[str, RouteRun] = {}
    problems: list[str] = []
    for route in ROUTES:
        target = target_file(base, route, llama_server.url + "/v1", "smollm2", "llama-server")
        run_route(base, route, target, done, problems)
    assert not problems, "\n".join(problems) + "\n" + llama_server.log_tail()
    return done


def test_the_probe_names_llama_server(llama_server: Server) -> None:
    said = bench("probe", "--base-url", llama_server.url + "/v1", "--format", "json",
                 "--timeout", "30")  # fmt: skip
    [report] = json.loads(said.stdout)
    assert report["engine"] == "llama.cpp", report
    # its build as it declares it (/props build_info: b<build number>-<commit>)
    assert report["version"] == "b1-0c1e570", report
    assert report["context_window"] == SERVER_CTX, report  # what it serves, not what it could
    assert "smollm2" in report["models"], report


@pytest.mark.parametrize("name", [route.name for route in ROUTES])
def test_no_attempt_fails_for_the_shape_of_the_harness_requests(
    llama_runs: dict[str, RouteRun], llama_server: Server, name: str
) -> None:
    """SmolLM2-135M calls no tool here (it answers in text; llama-server lays no grammar on it,
    not even under ``tool_choice: required``), so that the tools reached the model is checked
    where llama-server says it: the prompt it renders from each recorded request
    (``/apply-template``) names every tool the harness offered."""
    run = llama_runs[name]
    check_shape(run, name, called=False)
    records = list(RunStore(run.run_dir.parent).resolve(run.run_dir.name).attempts())
    checked = 0
    for record in records:
        request = record.trace.exchanges[0].response["raw"]["request"]
        offered = [tool["function"]["name"] for tool in request.get("tools") or []]
        if not offered:  # a task with no tools (the extraction family)
            continue
        assert request["tool_choice"] == "auto", (name, record.task_id)
        checked += 1
        answer = httpx.post(llama_server.url + "/apply-template", json=request, timeout=30)
        prompt = answer.json()["prompt"]
        assert all(f'"name": "{tool}"' in prompt for tool in offered), (record.task_id, prompt)
    assert checked >= 4, (name, checked)  # every family but extraction offers tools


def test_both_runs_bundle_verify_and_reach_the_board(
    llama_runs: dict[str, RouteRun], tmp_path: Path
) -> None:
    check_bundles(llama_runs, tmp_path)
