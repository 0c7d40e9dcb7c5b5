"""``bench probe`` of an http-agent URL: a stdlib server that answers POST only, so every path
the probe GETs answers 501. It said "reachable" as if an inference server were there."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from click.testing import CliRunner

from bench.cli.main import cli


class _PostOnly(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _agent() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PostOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_probing_an_agent_says_it_answered_but_serves_no_model_api() -> None:
    with _agent() as url:
        result = CliRunner().invoke(cli, ["probe", "--base-url", url + "/agent"])
    assert result.exit_code == 0, result.output
    [line] = result.stdout.splitlines()
    assert line.startswith(f"{url}/agent  answered, but no OpenAI or Anthropic endpoint there ")
    assert "/v1/models 501" in line and "reachable" not in line
    assert line.endswith("an http-agent URL answers POST only, which bench run checks")
