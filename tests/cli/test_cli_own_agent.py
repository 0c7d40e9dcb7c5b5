"""A stranger's own HTTP agent, written from docs/TARGETS.md ("HTTP agents") alone: a stdlib
http.server on 127.0.0.1 that searches through ``tools_url`` and answers, run with
``bench run``, bundled with a fresh ed25519 key and verified."""

from __future__ import annotations

import json
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.targets.agent import read_usage


def _agent_handler(usage: dict[str, Any] | None) -> type[BaseHTTPRequestHandler]:
    class Agent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            turn = json.loads(self.rfile.read(int(self.headers["content-length"])))
            question = [m["content"] for m in turn["messages"] if m["role"] == "user"][-1]
            answer = "I do not know."
            if any(tool["name"] == "search_docs" for tool in turn["tools"]):
                call = urllib.request.Request(
                    turn["tools_url"] + "/tools/search_docs",
                    data=json.dumps({"query": question}).encode(),
                    headers={"content-type": "application/json"},
                )
                with urllib.request.urlopen(call, timeout=30) as reply:
                    passages = json.loads(reply.read())
                if passages:
                    first = passages[0]["text"].split(". ")[0]
                    answer = f"In short, {first}. [{passages[0]['id']}]"
            body = json.dumps({"answer": answer, **({"usage": usage} if usage else {})})
            data = body.encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return Agent


@contextmanager
def _agent(usage: dict[str, Any] | None) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _agent_handler(usage))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent"
    finally:
        server.shutdown()
        server.server_close()


def _invoke(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout + result.stderr


def _target(mini: Path, url: str) -> Path:
    path = mini / "targets" / "own-agent.yaml"
    path.write_text(
        "format_version: 1\nkind: http-agent\nentrant: my-agent\ndisplay_name: My agent\n"
        f"model: my-agent-v3\nbase_url: {url}\n"
        "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}\n",
        encoding="utf-8",
    )
    return path


def _attempts(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "attempts").glob("*.json"))]


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": 12, "output_tokens": 3},
        {"total_tokens": 15},
        # A count that is not a whole number was read as 0 tokens, and with pricing a measured $0.
        {"prompt_tokens": "ten", "completion_tokens": 5},
        {"prompt_tokens": 10.5, "completion_tokens": 5},
        {"prompt_tokens": -10, "completion_tokens": 5},
        {"prompt_tokens": True, "completion_tokens": 5},
        {"prompt_tokens": None, "completion_tokens": 5},
    ],
    ids=["anthropic-names", "total-only", "string", "float", "negative", "bool", "null"],
)
def test_usage_the_agent_does_not_count_in_our_words_is_not_measured(
    mini: Path, usage: dict[str, Any]
) -> None:
    # docs/TARGETS.md: usage is {prompt_tokens, completion_tokens}, optional; without it tokens
    # and cost are "not measured". A usage in other words was read as 0 tokens: $0.000000.
    with _agent(usage) as url:
        code, out = _invoke(
            "run", "--tasks", mini / "tasks", "--target", _target(mini, url), "--split", "public",
            "--runs-dir", mini / "runs", "--progress", "none",
        )  # fmt: skip
    assert code == 0, out
    assert "tokens not measured" in out and "cost not measured" in out
    [run_dir] = [p for p in (mini / "runs").iterdir() if (p / "config.json").is_file()]
    for attempt in _attempts(run_dir):
        assert attempt["trace"]["cost_usd"] is None, attempt["task_id"]
        assert attempt["trace"]["usage_measured"] is False, attempt["task_id"]


def test_read_usage_reads_our_counts_and_nothing_else() -> None:
    assert read_usage({"prompt_tokens": 5, "completion_tokens": 2}) is not None
    assert read_usage({"completion_tokens": 2}) is not None
    assert read_usage({"input_tokens": 5, "output_tokens": 2}) is None
    assert read_usage({}) is None
    assert read_usage("12") is None
    assert read_usage({"prompt_tokens": 0, "completion_tokens": 0}) is not None  # a measured 0
    assert read_usage({"prompt_tokens": 5, "completion_tokens": 2, "cached_tokens": None})
    assert read_usage({"prompt_tokens": 5, "completion_tokens": 2, "cached_tokens": "2"}) is None
    assert read_usage({"prompt_tokens": 10**13, "completion_tokens": 2}) is None


@pytest.mark.usefixtures("ssh_keygen")  # installed when missing, never skipped
@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 40, "completion_tokens": 9},
        {"prompt_tokens": "ten", "completion_tokens": 9},
    ],
    ids=["counted", "garbage-count"],
)
def test_own_agent_runs_bundles_and_verifies(mini: Path, usage: dict[str, Any]) -> None:
    # verify re-reads each recorded reply's usage (binding.py) with the run's reader: a run whose
    # agent reported garbage verifies, its tokens not measured.
    with _agent(usage) as url:
        code, out = _invoke(
            "run", "--tasks", mini / "tasks", "--target", _target(mini, url), "--split", "public",
            "--runs-dir", mini / "runs", "--progress", "none",
        )  # fmt: skip
    assert code == 0, out
    assert "errored 0 task(s)" in out
    key = mini / "bench_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    code, line = _invoke("key", "register", "--entrant", "my-agent", "--pubkey", f"{key}.pub")
    assert code == 0, line
    (mini / "submissions").mkdir()
    (mini / "submissions" / "allowed_signers").write_text(line, encoding="utf-8")
    code, out = _invoke(
        "bundle", "latest", "--entrant", "my-agent", "--key", key, "--runs-dir", mini / "runs",
        "--out", mini / "results", "--allowed-signers", mini / "submissions" / "allowed_signers",
    )  # fmt: skip
    assert code == 0, out
    [bundle] = (mini / "results" / "my-agent").iterdir()
    code, out = _invoke("verify", bundle, "--seed", "7")
    assert code == 0, out
    assert out.startswith("valid: ")
    # An agent's bundle is not replayed (the binding check re-drives every turn): "replayed 0
    # attempt(s)" read as if nothing had been checked.
    assert "replay: not applicable" in out and "replayed 0" not in out, out
