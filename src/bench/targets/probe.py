"""``bench probe``: is an inference server there, what does it serve, and what does it say it is.

The engine is named only from what the server declares about itself — a ``Server`` header, a
LiteLLM ``x-litellm-*`` header, the ``/health``, ``/info``, ``/props`` or ``/`` body, the
``owned_by`` of its models, the title of its ``/openapi.json`` (llama-cpp-python names itself
only there), the namespace of its ``/metrics`` names — and never from the port it listens on.
A server that declares nothing is ``unknown``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import ssl
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field

from bench.core.errors import EntrantError
from bench.core.models import Strict

from . import declared as declarations
from . import wire
from .base import AGENT_KINDS, TargetSpec
from .declared import Answer, Answered
from .http import closing, uses_wire

if TYPE_CHECKING:  # imported when a probe needs it (https, a proxy): a plain http:// one does not
    import httpx

PATHS = (
    "/v1/models",
    "/health",
    "/info",
    "/props",
    "/metrics",
    "/",
    "/version",
    "/api/version",
    "/api/tags",
    "/openapi.json",
)
READY_PATHS = ("/health", "/v1/models")
# Ports the usual servers listen on by default; scanned, never used to name an engine.
DEFAULT_PORTS: tuple[int, ...] = (8000, 8080, 30000, 11434, 4000, 3000, 1234, 5000)
MAX_PROBE_BYTES = 2 * 1024 * 1024

# Declared names, matched as lower-case substrings; first match wins.
KEYWORDS: tuple[tuple[str, str], ...] = (
    ("bench-mock", "bench-mock"),
    ("litellm", "litellm"),
    ("vllm", "vllm"),
    ("sglang", "sglang"),
    ("llama.cpp python", "llama-cpp-python"),  # its /openapi.json title: a server of its own
    ("llama-cpp-python", "llama-cpp-python"),
    ("llama_cpp_python", "llama-cpp-python"),
    ("llama.cpp", "llama.cpp"),
    ("llamacpp", "llama.cpp"),
    ("llama-cpp", "llama.cpp"),
    ("ollama", "ollama"),
    ("text-generation-inference", "tgi"),
    ("text-generation-router", "tgi"),
    ("tabbyapi", "tabbyapi"),
    ("lmstudio", "lm-studio"),
    ("lm studio", "lm-studio"),
)
METRIC_PREFIXES: tuple[tuple[str, str], ...] = (
    ("vllm:", "vllm"),
    ("sglang:", "sglang"),
    ("llamacpp:", "llama.cpp"),
    ("tgi_", "tgi"),
    ("litellm_", "litellm"),
)
IDENTITY_FIELDS = ("service", "server", "engine", "backend", "name", "router", "server_name")
# Why a path got no answer, when no connection was made (``ProbeReport.endpoints``).
REFUSED = "unreachable"  # refused, or no route: nothing accepts connections there
NO_SUCH_HOST = "no such host"  # the host name does not resolve
TLS_FAILED = "tls error"  # a connection, but no TLS handshake (an https:// URL, a plain server)


class ProbeReport(Strict):
    url: str = Field(description="the server root probed (no credentials, query or fragment)")
    reachable: bool
    engine: str = Field("unknown", description="as the server declares itself, else 'unknown'")
    evidence: list[str] = Field(default_factory=list, description="each declaration seen")
    models: list[str] = Field(default_factory=list)
    needs_key: bool = Field(False, description="/v1/models answered 401 or 403")
    endpoints: dict[str, int | str] = Field(
        default_factory=dict, description="path → HTTP status, or why there was none"
    )
    version: str | None = Field(None, description="the engine version, as declared")
    context_window: int | None = Field(None, description="of the model, as declared")
    quantisation: str | None = Field(None, description="of the model, as declared")
    renders_tools: bool | None = Field(
        None,
        description="whether its chat template renders a request's tools, as declared "
        "(llama.cpp: /props chat_template_caps.supports_tools); false: tools are dropped",
    )

    def not_connected(self) -> str | None:
        """Why no path got a connection (``REFUSED``, ``NO_SUCH_HOST``, ``TLS_FAILED``), or
        None when any path was answered or timed out (something may be there)."""
        said = set(self.endpoints.values())
        for why in (NO_SUCH_HOST, TLS_FAILED, REFUSED):
            if said == {why}:
                return why
        return None

    def loading(self) -> bool:
        """Whether the server says it is not ready yet: HTTP 503 from ``/health`` or
        ``/v1/models`` (llama.cpp while it loads a model, vLLM and TGI while they start)."""
        return any(self.endpoints.get(path) == 503 for path in READY_PATHS)

    def identity(self) -> ServerIdentity:
        return ServerIdentity(
            engine=self.engine,
            version=self.version,
            context_window=self.context_window,
            quantisation=self.quantisation,
        )


class ServerIdentity(Strict):
    """What a server declared about itself and its model when a run started; part of the
    run's config fingerprint (docs/TARGETS.md, "Engine identification")."""

    engine: str = Field("unknown", description="as declared, else 'unknown'")
    version: str | None = None
    context_window: int | None = None
    quantisation: str | None = None


def server_root(base_url: str) -> str:
    """The server root of a base URL: credentials, query and a trailing ``/v1`` dropped."""
    parts = urlsplit(base_url.strip())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, netloc, path, "", ""))


def declared(text: str) -> str | None:
    lowered = text.lower()
    for keyword, engine in KEYWORDS:
        if keyword in lowered:
            return engine
    return None


def _unconnected(exc: BaseException) -> str:
    """The word for a connection that could not be made (``exc`` and what caused it)."""
    seen: BaseException | None = exc
    for _ in range(8):  # a cause chain is short; never follow a cycle
        if seen is None:
            break
        if isinstance(seen, socket.gaierror):
            return NO_SUCH_HOST
        if isinstance(seen, ssl.SSLError):
            return TLS_FAILED
        seen = seen.__cause__ or seen.__context__
    return REFUSED


async def _get(client: httpx.AsyncClient, url: str, timeout_s: float) -> Answer | str:
    import httpx

    try:
        async with asyncio.timeout(timeout_s):
            async with client.stream("GET", url) as response:
                body = bytearray()
                async with closing(response.aiter_bytes()) as chunks:
                    async for chunk in chunks:
                        body += chunk
                        if len(body) > MAX_PROBE_BYTES:
                            break
                return Answered(response.status_code, response.headers, bytes(body))
    except TimeoutError:
        return "timeout"
    except httpx.ConnectError as exc:
        return _unconnected(exc)
    except httpx.TimeoutException:
        return "timeout"
    except httpx.HTTPError as exc:
        return f"error ({type(exc).__name__})"


async def _wire_get(
    pool: wire.Pool, url: str, headers: dict[str, str], timeout_s: float
) -> Answer | str:
    """``_get`` over the run's own client (``wire``): what a plain ``http://`` probe uses,
    so a run's fingerprint never imports httpx (70 ms and 8 MiB of a run's start)."""
    try:
        async with asyncio.timeout(timeout_s):
            async with pool.stream("GET", url, headers=headers) as response:
                body = await response.read(MAX_PROBE_BYTES, truncate=True)
                return Answered(response.status_code, response.headers, body)
    except TimeoutError:
        return "timeout"
    except wire.ConnectError as exc:
        return _unconnected(exc)
    except wire.WireTimeout:
        return "timeout"
    except (wire.WireError, ValueError) as exc:
        return f"error ({type(exc).__name__})"


def _json(response: Answer) -> Any:
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def identify(found: dict[str, Answer]) -> tuple[str, list[str], list[str]]:
    """``(engine, evidence, models)`` from the answers to ``PATHS`` (declarations only)."""
    evidence: list[tuple[int, str, str]] = []  # (rank, engine, sentence)
    models: list[str] = []
    headers_seen: set[str] = set()  # a header every answer repeats is said once
    for path, response in found.items():
        for header in response.headers:
            name = header.lower()
            if name.startswith("x-litellm-") and name not in headers_seen:
                headers_seen.add(name)
                evidence.append((0, "litellm", f"{path}: header {name}"))
        server = response.headers.get("server")
        if server and server not in headers_seen and (engine := declared(server)):
            headers_seen.add(server)
            evidence.append((1, engine, f"{path}: Server header {server!r}"))
    models_answer = found.get("/v1/models")
    if models_answer is not None and models_answer.status_code == 200:
        data = _json(models_answer)
        items = data.get("data") if isinstance(data, dict) else None
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("id"), str):
                models.append(item["id"])
            owner = item.get("owned_by")
            if isinstance(owner, str) and (engine := declared(owner)):
                evidence.append((2, engine, f"/v1/models: owned_by {owner!r}"))
    for rank, path in ((3, "/health"), (3, "/info"), (4, "/props"), (5, "/")):
        answer = found.get(path)
        if answer is None or answer.status_code != 200:
            continue
        body = _json(answer)
        if isinstance(body, dict):
            for key in IDENTITY_FIELDS:
                said = body.get(key)
                if isinstance(said, str) and (engine := declared(said)):
                    evidence.append((rank, engine, f"{path}: {key} {said!r}"))
        elif body is None:
            text = answer.content[:200].decode("utf-8", errors="replace").strip()
            if text and (engine := declared(text)):
                evidence.append((rank, engine, f"{path}: says {text[:60]!r}"))
    openapi = found.get("/openapi.json")
    if openapi is not None and openapi.status_code == 200:
        info = _json(openapi)
        info = info.get("info") if isinstance(info, dict) else None
        title = info.get("title") if isinstance(info, dict) else None
        if isinstance(title, str) and (engine := declared(title)):
            evidence.append((5, engine, f"/openapi.json: title {title[:60]!r}"))
    metrics = found.get("/metrics")
    if metrics is not None and metrics.status_code == 200:
        seen: set[str] = set()
        for line in metrics.content.decode("utf-8", errors="replace").splitlines():
            if not line or line.startswith("#"):
                continue
            for prefix, engine in METRIC_PREFIXES:
                if line.startswith(prefix) and engine not in seen:
                    seen.add(engine)
                    evidence.append((6, engine, f"/metrics: names {prefix}*"))
    evidence.sort(key=lambda item: item[0])
    engine = evidence[0][1] if evidence else "unknown"
    return engine, list(dict.fromkeys(sentence for _, _, sentence in evidence)), models


async def probe(
    base_url: str,
    *,
    api_key: str | None = None,
    timeout_s: float = 3.0,
    model: str | None = None,
    headers: dict[str, str] | None = None,
) -> ProbeReport:
    """Ask one server what it serves and what it is (``model``: whose context window and
    quantisation to read; ``headers`` replace the default bearer header)."""
    root = server_root(base_url)
    if headers is None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    answers: list[Answer | str]
    if uses_wire(root):
        pool = wire.Pool(connect_s=timeout_s, read_s=timeout_s)
        try:
            answers = list(
                await asyncio.gather(
                    *(_wire_get(pool, root + path, headers, timeout_s) for path in PATHS)
                )
            )
        finally:
            await pool.aclose()
    else:
        host = (urlsplit(root).hostname or "").lower()
        loopback = host in ("localhost", "::1") or host.startswith("127.")
        import httpx

        async with httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s), headers=headers, trust_env=not loopback
        ) as client:
            answers = list(
                await asyncio.gather(*(_get(client, root + path, timeout_s) for path in PATHS))
            )
    found = {
        path: answer
        for path, answer in zip(PATHS, answers, strict=True)
        if not isinstance(answer, str)
    }
    endpoints: dict[str, int | str] = {
        path: answer if isinstance(answer, str) else answer.status_code
        for path, answer in zip(PATHS, answers, strict=True)
    }
    engine, evidence, models = identify(found)
    models_status = endpoints.get("/v1/models")
    return ProbeReport(
        url=root,
        reachable=bool(found),
        engine=engine,
        evidence=evidence,
        models=models,
        needs_key=models_status in (401, 403),
        endpoints=endpoints,
        version=declarations.version(found, declared) if found else None,
        context_window=declarations.context_window(found, model),
        quantisation=declarations.quantisation(found, model),
        renders_tools=declarations.renders_tools(found) if found else None,
    )


IDENTIFIED_KINDS = ("openai", "anthropic")
TOOLS_DROPPED = (
    "the server at {url} declares a chat template without tools (/props chat_template_caps."
    "supports_tools: false): it drops the tools every request offers from the prompt, even "
    "when a call is required, so no tool task can pass; serve the model with a template that "
    "has tools (llama-server --chat-template-file)"
)


def probe_headers(spec: TargetSpec) -> dict[str, str]:
    """What a probe of ``spec``'s server sends: its key as the run sends it, and the target's
    own ``headers`` (a gateway routes the probe by them, as it routes the run's requests)."""
    key = spec.api_key()
    if spec.kind == "anthropic":
        own = {"anthropic-version": spec.anthropic_version, **({"x-api-key": key} if key else {})}
    else:
        own = {"authorization": f"Bearer {key}"} if key else {}
    return {**(spec.headers or {}), **own}


async def server_identity(
    spec: TargetSpec,
    *,
    timeout_s: float = 3.0,
    wait_s: float = 0.0,
    poll_s: float = 0.5,
    on_wait: Callable[[str], None] | None = None,
    refuse_unreachable: bool = True,
) -> ServerIdentity | None:
    """What the server behind an OpenAI-compatible or Anthropic target declares, for the run's
    fingerprint; ``None`` for every other kind. A server that answers nothing it is asked (but
    accepts connections) is ``unknown``. An ``http-agent`` declares nothing, but is refused as
    below when nothing accepts connections at its ``base_url`` (``_listening``: no HTTP sent).

    A server still loading its model (:meth:`ProbeReport.loading`) is probed again every
    ``poll_s`` for up to ``wait_s`` (``on_wait`` is told once): its attempts would only error,
    and what it declares while loading is not what it declares once ready (the fingerprint).
    Still loading after ``wait_s`` (> 0): ``SERVER_NOT_READY``, before anything is written.

    Nothing accepting connections (refused: a server not started yet, or a wrong port) is
    waited for the same way, and after ``wait_s`` (at once when it is 0) is
    ``ENDPOINT_UNREACHABLE``. A host name that does not resolve, or an ``https://`` URL whose
    TLS handshake fails, is ``ENDPOINT_UNREACHABLE`` at once: waiting does not mend a URL.
    ``refuse_unreachable=False``: such a server is ``unknown``, as one that answers nothing.
    ``on_wait`` is also told when the server declares a chat template without tools
    (``TOOLS_DROPPED``): the run goes on, and its tool tasks will fail for it."""
    if spec.kind in AGENT_KINDS and spec.base_url is not None:
        if refuse_unreachable:
            await _listening(spec.base_url, timeout_s, wait_s, poll_s, on_wait)
        return None
    if spec.kind not in IDENTIFIED_KINDS or spec.base_url is None:
        return None
    headers = probe_headers(spec)
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        report = await probe(spec.base_url, timeout_s=timeout_s, model=spec.model, headers=headers)
        left = deadline - time.monotonic()
        why = report.not_connected() if refuse_unreachable else None
        if why is not None and (why != REFUSED or left <= 0):
            raise _unreachable(report.url, why, wait_s)
        if why == REFUSED:
            if on_wait is not None and not told:
                on_wait(WAITING_REFUSED.format(wait_s=wait_s, url=report.url))
                told = True
            await asyncio.sleep(min(poll_s, left))
            continue
        if not report.loading() or wait_s <= 0:
            if report.renders_tools is False and on_wait is not None:
                on_wait(TOOLS_DROPPED.format(url=report.url))
            return report.identity()
        if left <= 0:
            raise EntrantError(
                f"the server at {report.url} still answers HTTP 503 (not ready: loading its "
                f"model?) after {wait_s:g} s; start the run once it is ready, or wait longer "
                "with --wait-ready SECONDS",
                code="SERVER_NOT_READY",
            )
        if on_wait is not None and not told:
            on_wait(
                f"waiting up to {wait_s:g} s for the server at {report.url} to be ready "
                "(HTTP 503: loading its model?)"
            )
            told = True
        await asyncio.sleep(min(poll_s, left))


WAITING_REFUSED = (
    "waiting up to {wait_s:g} s for the server at {url} to accept connections (refused: not "
    "started yet?)"
)


async def _connects(host: str, port: int, timeout_s: float) -> str | None:
    """Why a TCP connection to ``host:port`` could not be made (``REFUSED``, ``NO_SUCH_HOST``),
    or None: it was made (and closed at once, nothing sent) or timed out (something may be
    there, as a probe that timed out)."""
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        return None
    except OSError as exc:
        return _unconnected(exc)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return None


async def _listening(
    base_url: str,
    timeout_s: float,
    wait_s: float,
    poll_s: float,
    on_wait: Callable[[str], None] | None,
) -> None:
    """An ``http-agent``'s start-up check: a TCP connection to its ``base_url``'s host and
    port, waited for and refused as an OpenAI-compatible server that refuses connections
    (``server_identity``). Only a connection: any HTTP request to an agent would run a turn.
    An agent reached through a proxy is not checked (a direct connection says nothing)."""
    parts = urlsplit(base_url.strip())
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:  # check_base_url refused it already; nothing to connect to here
        return
    host = parts.hostname or ""
    loopback = host.lower() in ("localhost", "::1") or host.startswith("127.")
    proxies = (f"{parts.scheme.lower()}_proxy", "all_proxy")  # as httpx reads them
    if not host or (
        not loopback and any(os.environ.get(n) or os.environ.get(n.upper()) for n in proxies)
    ):
        return
    url = server_root(base_url)
    deadline = time.monotonic() + wait_s
    told = False
    while (why := await _connects(host, port, timeout_s)) is not None:
        left = deadline - time.monotonic()
        if why != REFUSED or left <= 0:
            raise _unreachable(url, why, wait_s)
        if on_wait is not None and not told:
            on_wait(WAITING_REFUSED.format(wait_s=wait_s, url=url))
            told = True
        await asyncio.sleep(min(poll_s, left))


def _unreachable(url: str, why: str, wait_s: float) -> EntrantError:
    """``ENDPOINT_UNREACHABLE`` for a run's server that no probe connected to, in one line."""
    host = urlsplit(url).hostname or url
    if why == NO_SUCH_HOST:
        text = f"the host name {host!r} of {url} does not resolve; check the target's base_url"
    elif why == TLS_FAILED:
        text = (
            f"the TLS handshake with {url} failed (a plain http:// server, or a certificate "
            "this machine does not trust?); check the target's base_url"
        )
    else:
        waited = f" after waiting {wait_s:g} s" if wait_s > 0 else ""
        text = (
            f"nothing accepts connections at {url} (refused){waited}; start the server or "
            "fix the port, or wait longer for it with --wait-ready SECONDS"
        )
    return EntrantError(text + "; the run is not started", code="ENDPOINT_UNREACHABLE")


async def scan(
    host: str = "127.0.0.1",
    ports: tuple[int, ...] = DEFAULT_PORTS,
    *,
    timeout_s: float = 0.5,
    api_key: str | None = None,
) -> list[ProbeReport]:
    """Probe every port on ``host`` at once, with short timeouts; reports for each port."""
    shown = f"[{host}]" if ":" in host else host
    return list(
        await asyncio.gather(
            *(
                probe(f"http://{shown}:{port}", api_key=api_key, timeout_s=timeout_s)
                for port in ports
            )
        )
    )


__all__ = [
    "DEFAULT_PORTS",
    "NO_SUCH_HOST",
    "REFUSED",
    "TLS_FAILED",
    "ProbeReport",
    "ServerIdentity",
    "declared",
    "identify",
    "probe",
    "probe_headers",
    "scan",
    "server_identity",
    "server_root",
]
