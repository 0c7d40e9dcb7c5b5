"""``bench probe`` names an engine only from what the server declares, and ``bench mock-server``
runs on loopback only."""

from __future__ import annotations

import asyncio
import importlib
import socket
import subprocess
import sys

import httpx
import pytest
from click.testing import CliRunner

from bench.cli.mock_cmd import mock_server
from bench.cli.probe_cmd import probe as probe_command
from bench.core.errors import EntrantError
from bench.targets.probe import identify, probe, scan, server_root
from bench.testing.mock_server import MockServer, main, parse_fault


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_the_mock_server_is_named_from_what_it_declares(server: MockServer) -> None:
    report = asyncio.run(probe(server.url + "/v1"))
    assert report.reachable
    assert report.url == server.url
    assert report.engine == "bench-mock"
    assert report.models == ["bench-mock", "bench-mock-parallel"]
    assert "/v1/models: Server header 'bench-mock/1'" in report.evidence
    assert "/v1/models: owned_by 'bench-mock'" in report.evidence
    assert report.endpoints["/health"] == 200
    assert report.endpoints["/metrics"] == 404


def test_a_server_that_declares_nothing_is_unknown() -> None:
    with MockServer(declare=False, max_seconds=30) as quiet:
        report = asyncio.run(probe(quiet.url))
    assert report.reachable
    assert report.engine == "unknown"
    assert report.evidence == []
    assert report.models == ["bench-mock", "bench-mock-parallel"]


def test_a_server_named_only_in_its_openapi_document() -> None:
    """llama-cpp-python's server names itself nowhere but in ``/openapi.json`` (its
    ``/v1/models`` says ``owned_by: me``): the probe reads the title and the version there."""
    import json as json_module
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    documents = {
        "/v1/models": {"object": "list", "data": [{"id": "smollm2", "owned_by": "me"}]},
        "/openapi.json": {"openapi": "3.1.0", "info": {"title": "🦙 llama.cpp Python API",
                                                       "version": "0.3.36"}},
    }  # fmt: skip

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            document = documents.get(self.path)
            body = json_module.dumps(document if document else {"detail": "Not Found"}).encode()
            self.send_response(200 if document else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        report = asyncio.run(probe(url + "/v1"))
        documents.pop("/openapi.json")
        quiet = CliRunner().invoke(probe_command, ["--base-url", url + "/v1"])
    finally:
        server.shutdown()
        server.server_close()
    assert (report.engine, report.version) == ("llama-cpp-python", "0.3.36")
    assert "/openapi.json: title '🦙 llama.cpp Python API'" in report.evidence
    assert quiet.exit_code == 0, quiet.output
    assert "declared: nothing (engine unknown); looked at: /v1/models 200" in quiet.output
    assert "/openapi.json 404" in quiet.output


def test_a_key_protected_server_says_so() -> None:
    with MockServer(api_key="sk-probe-key-123456", max_seconds=30) as guarded:
        without = asyncio.run(probe(guarded.url))
        with_key = asyncio.run(probe(guarded.url, api_key="sk-probe-key-123456"))
    assert without.needs_key and without.models == []
    assert not with_key.needs_key and with_key.models


def test_a_scan_finds_what_answers_and_nothing_else(server: MockServer) -> None:
    closed = free_port()
    reports = asyncio.run(scan("127.0.0.1", (server.port, closed), timeout_s=0.5))
    assert [(r.url, r.reachable) for r in reports] == [
        (server.url, True),
        (f"http://127.0.0.1:{closed}", False),
    ]
    assert reports[1].engine == "unknown"


def _answer(
    status: int = 200, *, json_body: object = None, text: str = "", **headers: str
) -> httpx.Response:
    if json_body is not None:
        return httpx.Response(status, json=json_body, headers=headers)
    return httpx.Response(status, text=text, headers=headers)


@pytest.mark.parametrize(
    ("found", "engine"),
    [
        ({"/v1/models": _answer(json_body={"data": [{"id": "m", "owned_by": "vllm"}]})}, "vllm"),
        ({"/metrics": _answer(text="# HELP x\nsglang:num_running_reqs 0\n")}, "sglang"),
        ({"/metrics": _answer(text="llamacpp:prompt_tokens_total 3\n")}, "llama.cpp"),
        ({"/": _answer(text="Ollama is running")}, "ollama"),
        ({"/info": _answer(json_body={"router": "text-generation-router"})}, "tgi"),
        ({"/health": _answer(json_body={"status": "ok"})}, "unknown"),
        (
            {"/v1/models": _answer(json_body={"data": [{"id": "m", "owned_by": "system"}]})},
            "unknown",
        ),
        (
            {
                "/v1/models": _answer(
                    json_body={"data": [{"id": "m", "owned_by": "vllm"}]},
                    **{"x-litellm-version": "1.50"},
                )
            },
            "litellm",
        ),
        (
            {
                "/v1/models": _answer(json_body={"data": []}, server="llama.cpp"),
                "/metrics": _answer(text="vllm:num_requests_running 0\n"),
            },
            "llama.cpp",
        ),
    ],
    ids=[
        "owned_by",
        "metrics-sglang",
        "metrics-llamacpp",
        "root-text",
        "tgi-info",
        "bare-health",
        "generic-owner",
        "proxy-header-wins",
        "declared-name-beats-metrics",
    ],
)
def test_engines_are_named_from_declarations(found: dict[str, httpx.Response], engine: str) -> None:
    assert identify(found)[0] == engine


def test_the_server_root_drops_v1_and_credentials() -> None:
    assert (
        server_root("https://user:pw@example.com:8443/api/v1/?x=1")
        == "https://example.com:8443/api"
    )


def test_the_probe_command(server: MockServer) -> None:
    runner = CliRunner()
    result = runner.invoke(probe_command, ["--base-url", server.url + "/v1"])
    assert result.exit_code == 0, result.output
    assert f"{server.url}  reachable  engine: bench-mock" in result.output
    scanned = runner.invoke(probe_command, ["--port", str(server.port), "--format", "json"])
    assert scanned.exit_code == 0, scanned.output
    assert '"engine": "bench-mock"' in scanned.output
    nothing = runner.invoke(probe_command, ["--port", str(free_port())])
    assert isinstance(nothing.exception, EntrantError)
    assert nothing.exception.code == "ENDPOINT_UNREACHABLE"


def test_the_mock_server_binds_loopback_only() -> None:
    for host in ("0.0.0.0", "192.168.1.10", "localhost", "::"):
        with pytest.raises(ValueError, match="binds only to 127.0.0.1 or ::1"):
            MockServer(host)
    assert main(["--host", "127.0.0.1", "--fault", "bogus", "--max-seconds", "1"]) == 2
    with pytest.raises(SystemExit):
        main(["--host", "0.0.0.0"])
    refused = CliRunner().invoke(mock_server, ["--host", "0.0.0.0"])
    assert refused.exit_code == 2


def test_the_mock_server_stops_by_itself() -> None:
    result = CliRunner().invoke(mock_server, ["--max-seconds", "0.3"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("http://127.0.0.1:")


def test_python_dash_m_prints_the_url_and_serves() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.testing.mock_server", "--port", "0", "--max-seconds", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with httpx.Client(trust_env=False) as client:
            health = client.get(url + "/health")
        assert health.json() == {"status": "ok", "service": "bench-mock", "version": "1"}
        assert health.headers["server"] == "bench-mock/1"
    finally:
        process.terminate()
        process.communicate(timeout=10)
    assert process.returncode is not None


def test_fault_plans_are_checked() -> None:
    fault = parse_fault("429,retry-after=2,times=3,latency=0.1")
    assert (fault.kind, fault.status, fault.retry_after, fault.times, fault.latency) == (
        "status",
        429,
        "2",
        3,
        0.1,
    )
    for bad in ("42", "nope", "drip,bps=0", "503,times", "503,colour=red", "503,times=x"):
        with pytest.raises(ValueError):
            parse_fault(bad)


def test_a_bad_fault_path_is_a_400(server: MockServer) -> None:
    with httpx.Client(trust_env=False) as client:
        answer = client.post(server.url + "/fault/nope/v1/chat/completions", json={})
    assert answer.status_code == 400
    assert "unknown fault 'nope'" in answer.json()["error"]["message"]


def test_a_plain_http_probe_answers_as_httpx_does_without_importing_it(
    server: MockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: a run's fingerprint probe goes over the run's own client (``wire``) on plain
    ``http://``, with the same report as over httpx, and never imports httpx."""
    probe_module = importlib.import_module("bench.targets.probe")
    over_wire = asyncio.run(probe(server.url + "/v1", model="bench-mock"))
    monkeypatch.setattr(probe_module, "uses_wire", lambda url: False)
    over_httpx = asyncio.run(probe(server.url + "/v1", model="bench-mock"))
    assert over_wire == over_httpx
    assert over_wire.engine == "bench-mock" and over_wire.endpoints["/metrics"] == 404
    closed = free_port()  # nothing listens: the same word for every path, both ways
    assert asyncio.run(probe(f"http://127.0.0.1:{closed}", timeout_s=1.0)).endpoints == {
        path: "unreachable" for path in probe_module.PATHS
    }
    code = (
        "import asyncio, sys\n"
        "from bench.targets.probe import probe\n"
        f"report = asyncio.run(probe({server.url!r}))\n"
        "print(report.engine, 'httpx' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["bench-mock", "False"]
