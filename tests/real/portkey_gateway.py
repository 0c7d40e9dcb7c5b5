"""Portkey's AI gateway (``@portkey-ai/gateway`` from npm, Node) for the tests: the gateway
users put in front of models to route one OpenAI-shaped API to many providers.

It is installed like the Python servers (engines.py): pinned to exact versions with their
integrity hashes (``portkey/package.json`` and the committed ``portkey/package-lock.json``),
by ``npm ci --ignore-scripts`` (no install script runs), once, into the same cache
(``portkey-<key>/``, a lock file). npm's published package carries no lock file of its own, so
its dependencies' ranges float; the lock pins ``@hono/node-server`` to 1.14.1 with an
override: every later 1.x hands the gateway an upstream ``fetch`` response's immutable headers,
and each streamed answer then fails with HTTP 500 ``Something went wrong`` (``TypeError:
immutable``; Portkey-AI/gateway#1389).

The gateway routes by request headers (``x-portkey-provider``, ``x-portkey-custom-host``), which
the tests' targets send with ``headers:`` (docs/TARGETS.md). It is started with
``portkey/loopback.cjs`` loaded first: its server listens on every interface otherwise, and
that file also refuses (and logs) any connection to anywhere but loopback, so the tests know
the gateway reached no one but the servers they started.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from .engines import (
    HERE,
    ProvisionError,
    Server,
    _provisioned,
    _run,
    _wait,
    cache_root,
    free_port,
)

PINS = ("portkey/package.json", "portkey/package-lock.json")
VERSION = "1.15.2"  # the gateway's version in portkey/package.json
ENTRY = Path("node_modules") / "@portkey-ai" / "gateway" / "build" / "start-server.js"
OUTBOUND = "OUTBOUND REFUSED"
MIN_NODE = 18
# What npm says when it cannot reach its registry (no network, a proxy refusing, DNS down).
OFFLINE = re.compile(r"\b(ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENETUNREACH)\b")


class Unavailable(Exception):
    """Node or npm is missing, too old, or npm's registry cannot be reached: skip, not fail."""


def _node() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise Unavailable("node and npm are not both on PATH")
    found = subprocess.run([node, "--version"], capture_output=True, text=True)
    major = re.match(r"v(\d+)\.", found.stdout.strip())
    if found.returncode != 0 or major is None or int(major.group(1)) < MIN_NODE:
        raise Unavailable(f"Portkey's gateway needs Node {MIN_NODE}+, found {found.stdout!r}")
    return node, npm


def _build(npm: str) -> Callable[[Path], None]:
    def build(home: Path) -> None:
        for name in PINS:
            shutil.copyfile(HERE / name, home / Path(name).name)
        env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false",
               "npm_config_audit": "false"}  # fmt: skip
        _run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error",
              "--prefix", str(home)], home / "build.log", env)  # fmt: skip
        if not (home / ENTRY).is_file():
            raise ProvisionError(f"npm ci left no {ENTRY} in {home}")

    return build


def portkey_home() -> Path:
    """The installed gateway (built once); ``Unavailable`` when npm cannot fetch it."""
    _, npm = _node()
    try:
        return _provisioned("portkey", PINS, f"npm ci --ignore-scripts {VERSION}", _build(npm))
    except ProvisionError as exc:
        offline = OFFLINE.search(str(exc))
        if offline is not None:
            raise Unavailable(
                f"npm's registry is unreachable ({offline.group(1)} from npm ci; its log is "
                f"build.log under {cache_root()})"
            ) from exc
        raise


def start_portkey(home: Path, logs: Path) -> Server:
    """The gateway on 127.0.0.1 (``--headless``: no log UI), ready when ``/`` answers."""
    node, _ = _node()
    port = free_port()
    log = logs / "portkey.log"
    command = [node, "--require", str(HERE / "portkey" / "loopback.cjs"), str(home / ENTRY),
               f"--port={port}", "--headless"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=home)
    return _wait(Server("portkey", f"http://127.0.0.1:{port}", process, log), "/", {}, 60)
