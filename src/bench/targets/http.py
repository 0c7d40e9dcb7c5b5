"""One model call over HTTP: retries, back-off, deadlines, and what gets recorded.

What is retried: HTTP 408, 429 and 5xx, timeouts, connection errors (refused, reset, dropped
mid-body), a body that is not complete JSON, and a stream that ends early or reports an error.
Everything else fails at once: 400/401/403/404/422 and any other 4xx, a redirect, a body of
the wrong shape.

Waiting: before retry *n* the target waits ``uniform(0, min(cap, base * 2**(n-1)))`` (full
jitter, from a seeded ``random.Random``), or what ``Retry-After`` asks (seconds or an HTTP date;
``retry-after-ms`` first when sent) plus a little jitter. After a 429 every concurrent request
of the same target waits out the same pause before its next attempt. Each HTTP attempt is
bounded as a whole (``timeouts.request_s``, not only per chunk as httpx's read timeout is), and
the whole call with every retry by ``timeouts.deadline_s``; a wait that would pass the deadline
is not started.

Nothing sent in headers (the API key) is recorded; the key is scrubbed from anything the
server sends back before it reaches a trace.

The transport: plain ``http://`` with no proxy in the way (loopback always; another host when
no ``http_proxy``/``HTTP_PROXY``/``all_proxy``/``ALL_PROXY`` is set) goes over ``wire``, our own
small HTTP/1.1 client, because httpx costs several times its CPU per request; ``https://`` and
proxied URLs go over httpx. Both map to the same failure codes.

Over 800 lines: the retry loop, the status classification and the event-stream reading raise
the same ``AttemptFailed`` under the same body caps. The event-stream reading (``SseParser``
to ``_finish_body``, ~150 lines) is the part to move out next, with ``Failure`` and
``loads_strict`` in a module of their own so that nothing imports in a circle.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import re
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

from bench import __version__
from bench.core.errors import EntrantError, HarnessFault
from bench.core.recordtext import MAX_MARKS, long_marks, showable, unfit_text

from . import wire
from .base import (
    BODY_DEPTH,
    EMPTY_RESPONSE,
    REQUEST_REFUSED,
    STREAM_EMPTY,
    STREAM_NOT_SERVED,
    RetrySettings,
    TargetSpec,
    too_deep,
)
from .inflight import InFlight

if TYPE_CHECKING:  # httpx is imported only by an endpoint that uses it (``HttpEndpoint._http``)
    import httpx

MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_ERROR_BYTES = 64 * 1024
DEADLINE_GRACE_S = 1.0
RECORDED_HEADERS = ("server", "x-request-id", "request-id")
HEADER_TEXT_LIMIT = 256
"""How much of a recorded header's value a trace keeps. A header comes with every exchange of
a run: a server sending a 60 KB ``server`` header (``wire`` reads a head of up to 64 KB, httpx
more) added some 80 MB to each of a suite run's attempts and cassette (172 tasks x 5, 1,325
calls), past the 64 MiB a bundle's file may hold (``LIMIT_SIZE``)."""
MESSAGE_LIMIT = 4000
"""How much of a failure's message a trace keeps: the server's words are cut at
``ERROR_TEXT_LIMIT``, this bounds what the harness says around them. An error quoted whole is
written in the attempt's reason, its failed call and the cassette: 9 MB of a server's message
made a run of four attempts 75 MB of attempts, past what a bundle may hold (``LIMIT_SIZE``)."""
REDACTED = "[redacted]"
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")


@dataclass(frozen=True)
class Failure:
    """Why one HTTP attempt failed, and whether another attempt may help."""

    code: str
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None

    def __post_init__(self) -> None:
        # The message may quote the server (an error body, a status line): it is recorded,
        # and a control character in it made the run's bundle unverifiable (TEXT_INVALID).
        object.__setattr__(self, "message", cut(showable(self.message), MESSAGE_LIMIT))


class NeverConnected(EntrantError):
    """``ENDPOINT_UNREACHABLE`` from a call none of whose HTTP attempts connected (refused,
    unreachable, no such host): the server gave no answer at all, so the runner may count it
    towards stopping a run whose endpoint went away (docs/DECISIONS.md 52)."""

    default_code = "ENDPOINT_UNREACHABLE"


class AttemptFailed(Exception):
    def __init__(self, failure: Failure) -> None:
        self.failure = failure
        super().__init__(failure.message)


@dataclass(frozen=True)
class SseEvent:
    event: str | None
    data: Any  # parsed JSON, or the text when it is not JSON (e.g. "[DONE]")

    def wire(self) -> dict[str, Any]:
        return (
            {"data": self.data} if self.event is None else {"event": self.event, "data": self.data}
        )


class StreamFormat(Protocol):
    """How one API's server-sent events end and assemble into a whole response body."""

    def done(self, event: SseEvent) -> bool: ...

    def assemble(self, events: list[SseEvent]) -> dict[str, Any]: ...

    def served(self, body: dict[str, Any]) -> bool:
        """Whether an assembled body holds anything the model generated, reasoning included."""
        ...


@dataclass
class Reply:
    """A successful exchange: the (assembled) body and everything worth recording."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    events: list[SseEvent] | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)

    def raw(self, path: str, request: dict[str, Any]) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "path": path,
            "request": request,
            "status": self.status,
            "headers": self.headers,
            "response": self.body,
            "attempts": self.attempts,
        }
        if self.events is not None:
            # How many events, not each one: verify reads the assembled body (``response``),
            # and a copy of every event (a token each, ~250 bytes of JSON around it) made a
            # streamed answer 40 times the size of the same answer unstreamed: a reasoning
            # model's streamed run of the whole suite was gigabytes, past what a bundle may
            # hold (``LIMIT_SIZE``, ``BUNDLE_TOO_LARGE``).
            raw["stream_events"] = len(self.events)
        return raw


def backoff_delay(retry_number: int, settings: RetrySettings, rng: random.Random) -> float:
    """Full jitter: uniform between 0 and the capped exponential step (1-based ``retry_number``)."""
    ceiling = min(settings.cap_s, settings.base_s * (2 ** max(retry_number - 1, 0)))
    return rng.uniform(0.0, ceiling)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds from now: a number of seconds or an HTTP date; None if absent
    or unreadable. A date in the past is 0."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


def _retry_after_ms(value: str | None) -> float | None:
    """``retry-after-ms`` (Azure OpenAI, and OpenAI's SDKs read it first) as seconds; None if
    absent or not a number of milliseconds."""
    try:
        millis = float(value) if value is not None else None
    except ValueError:
        return None
    if millis is None or millis != millis or millis in (float("inf"), float("-inf")):
        return None
    return max(0.0, millis / 1000)


def cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and an ellipsis."""
    return text if len(text) <= limit else text[:limit] + "…"


def quoted(value: Any) -> str:
    """What a server said (an error's ``message``, which may be any JSON value) as a failure
    quotes it: at most ``ERROR_TEXT_LIMIT`` characters."""
    return cut(value if isinstance(value, str) else str(value), ERROR_TEXT_LIMIT)


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


T = TypeVar("T")
R = TypeVar("R")


@asynccontextmanager
async def closing(iterator: AsyncIterator[T]) -> AsyncGenerator[AsyncIterator[T], None]:
    """Close an async iterator (httpx's body iterators) even when the loop over it breaks."""
    try:
        yield iterator
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


class UnfitJson(ValueError):
    """Valid JSON that a trace cannot hold: a number that overflows to infinity (``1e400``),
    text a record may not hold (``core.recordtext``: a lone surrogate such as ``"\\ud800"``, a
    control character, a non-character, more than 30 combining marks in a row). Taken, a lone
    surrogate stopped ``bench run`` with a traceback (the attempt could not be written),
    ``1e400`` in a call's arguments was run as ``null`` and recorded so that verify's re-drive
    disagreed (``REPLAY_MISMATCH``), and the rest made the run's bundle unverifiable
    (``TEXT_INVALID``, ``LIMIT_COMBINING``)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise UnfitJson(f"the number {text[:40]} overflows to infinity")
    return value


_STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite)


def nests_too_deep(text: str | bytes, value: Any) -> bool:
    """Whether ``value`` (parsed from ``text``) nests deeper than ``BODY_DEPTH``; the walk is
    skipped when ``text`` has too few brackets to nest that deep (every answer a server sends)."""
    if isinstance(text, str):
        opened = text.count("{") + text.count("[")
    else:
        opened = text.count(b"{") + text.count(b"[")
    return opened > BODY_DEPTH and too_deep(value, BODY_DEPTH)


def _too_deep_failure(what: str) -> AttemptFailed:
    return AttemptFailed(
        Failure(
            code="ENDPOINT_BAD_RESPONSE",
            message=f"{what} nests deeper than {BODY_DEPTH} levels",
            retryable=False,
        )
    )


def _unfit_failure(what: str, exc: UnfitJson) -> AttemptFailed:
    return AttemptFailed(
        Failure(
            code="ENDPOINT_BAD_JSON",
            message=f"{what} is JSON a trace cannot hold ({exc})",
            retryable=True,
        )
    )


def loads_strict(data: str | bytes) -> Any:
    """JSON a record can hold: no NaN or Infinity, no number that overflows to infinity, no
    text ``bench verify`` refuses in a record (``UnfitJson``). What ``json.loads(data,
    parse_constant=...)`` does, with one decoder made once instead of one per call."""
    if isinstance(data, bytes | bytearray):
        data = data.decode(json.detect_encoding(data), "surrogatepass")
    elif data.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
    value = _STRICT.decode(data)
    unfit = unfit_text(value, data)
    if unfit is not None:
        raise UnfitJson(f"{unfit}: text a record cannot hold")
    return value


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """Every occurrence of a secret in every string of a JSON value, replaced."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(item, secrets) for item in value]
    return value


ERROR_TEXT_LIMIT = 2000
"""How much of a server's error text a failure keeps: enough for a validation error's field
path and message (300 hid the cause of llama-cpp-python's refusals)."""

# How servers word a refusal of the request's own shape: pydantic (llama-cpp-python, vLLM,
# LiteLLM), FastAPI's 422 detail, JSON Schema validators. Matched on the error text of a 400,
# 422 or 500; a context-length or content-policy refusal does not match.
_REQUEST_SHAPE = re.compile(
    r"validation error|Input should be|Field required|Extra inputs are not permitted"
    r"|is not of type|\bunexpected (?:keyword|field|argument)|\bunrecognized (?:field|key)"
    r"|['\"]loc['\"]\s*:",
    re.IGNORECASE,
)


def _error_text(body: bytes) -> str:
    """The server's own words about an error: ``error.message`` or the text, whitespace
    squashed, at most ``ERROR_TEXT_LIMIT`` characters."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        elif isinstance(data.get("message"), str):
            text = data["message"]
        elif isinstance(data.get("detail"), list | str):  # FastAPI's 422
            text = json.dumps(data["detail"], ensure_ascii=False)
    text = " ".join(text.split())
    limit = ERROR_TEXT_LIMIT
    return text[:limit] + ("…" if len(text) > limit else "")


def _filtered_prompt(body: bytes) -> bool:
    """Whether an error body is Azure OpenAI's content filter refusing the prompt: ``error``
    with ``code: content_filter`` (``innererror.code: ResponsibleAIPolicyViolation``)."""
    if b"content_filter" not in body and b"ResponsibleAIPolicyViolation" not in body:
        return False
    try:
        error = as_object(as_object(json.loads(body)).get("error"))
    except ValueError:
        return False
    inner = as_object(error.get("innererror"))
    return error.get("code") == "content_filter" or inner.get("code") == (
        "ResponsibleAIPolicyViolation"
    )


def classify_status(status: int, headers: Mapping[str, str], body: bytes) -> Failure:
    detail = _error_text(body)
    message = f"HTTP {status}" + (f": {detail}" if detail else "")
    if status in (400, 422, 500) and _REQUEST_SHAPE.search(detail):
        # The server says our request does not fit its schema: asking again cannot help, and
        # it is the harness's fault, not the entrant's (recorded as a harness fault).
        return Failure(code=REQUEST_REFUSED, message=message, retryable=False, status=status)
    retry_after = _retry_after_ms(headers.get("retry-after-ms"))
    if retry_after is None:
        retry_after = parse_retry_after(headers.get("retry-after"))
    if status in (408, 429) or status >= 500:
        if status == 408:
            code = "ENDPOINT_TIMEOUT"
        elif status == 429:
            code = "ENDPOINT_RATE_LIMITED"
        else:
            code = "ENDPOINT_SERVER_ERROR"
        return Failure(
            code=code, message=message, retryable=True, status=status, retry_after=retry_after
        )
    if status in (401, 403):
        return Failure(code="ENDPOINT_AUTH", message=message, retryable=False, status=status)
    if status == 400 and _filtered_prompt(body):
        # Azure OpenAI's filter refusing the prompt: the provider's, like finish_reason
        # content_filter on an answer (``base.FILTERED``), and asking again gets the same.
        return Failure(code="ENDPOINT_FILTERED", message=message, retryable=False, status=status)
    if 400 <= status < 500:
        return Failure(code="ENDPOINT_REJECTED", message=message, retryable=False, status=status)
    return Failure(
        code="ENDPOINT_BAD_RESPONSE",
        message=f"unexpected {message} (redirects are not followed)",
        retryable=False,
        status=status,
    )


def _loaded_httpx() -> Any:
    """httpx if this process has imported it, else None. An httpx error can only come from an
    endpoint that imported httpx, so a check for one never needs to import it."""
    return sys.modules.get("httpx")


def _is_transport_error(exc: Exception) -> bool:
    """Whether ``exc`` is one of the transport's own errors (``wire``'s or httpx's)."""
    if isinstance(exc, wire.WireError):
        return True
    httpx_module = _loaded_httpx()
    return httpx_module is not None and isinstance(exc, httpx_module.HTTPError)


def _transport_failure(exc: Exception) -> Failure:
    """The failure for one of the transport's errors (``_is_transport_error``)."""
    kind = type(exc).__name__
    text = str(exc) or kind
    httpx_module = _loaded_httpx() if not isinstance(exc, wire.WireError) else None
    if isinstance(exc, wire.ConnectError) or (
        httpx_module is not None
        and isinstance(exc, httpx_module.ConnectTimeout | httpx_module.ConnectError)
    ):
        return Failure(
            code="ENDPOINT_UNREACHABLE", message=f"cannot connect ({kind}: {text})", retryable=True
        )
    if isinstance(exc, wire.WireTimeout) or (
        httpx_module is not None and isinstance(exc, httpx_module.TimeoutException)
    ):
        return Failure(code="ENDPOINT_TIMEOUT", message=f"timed out ({kind})", retryable=True)
    if httpx_module is not None and isinstance(exc, httpx_module.UnsupportedProtocol):
        return Failure(
            code="ENDPOINT_UNREACHABLE", message=f"cannot connect ({kind}: {text})", retryable=False
        )
    if isinstance(exc, wire.DecodingError) or (
        httpx_module is not None and isinstance(exc, httpx_module.DecodingError)
    ):
        return Failure(
            code="ENDPOINT_BAD_JSON",
            message=f"the body could not be decoded ({text})",
            retryable=True,
        )
    return Failure(
        code="ENDPOINT_DISCONNECTED",
        message=f"the connection dropped ({kind}: {text})",
        retryable=True,
    )


class SseParser:
    """Server-sent events, line by line: ``event:`` and ``data:`` fields; a blank line ends
    an event; ``:`` lines are comments. An ``error:`` field (what older llama.cpp servers send
    when generation fails mid-stream) is an event named ``error`` with that data."""

    def __init__(self) -> None:
        self._name: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        if not line.strip():
            return self.finish()
        if line.startswith(":"):
            return None
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "event":
            self._name = showable(value.strip()) or None
        elif key == "data":
            self._data.append(value)
        elif key == "error":  # older llama.cpp servers: ``error: {...}`` instead of data
            self._name = "error"
            self._data.append(value)
        return None

    def finish(self) -> SseEvent | None:
        name, data = self._name, self._data
        self._name, self._data = None, []
        return _event(name, data) if data else None


def _event(name: str | None, data: list[str]) -> SseEvent:
    text = "\n".join(data)
    try:
        parsed: Any = loads_strict(text)
    except RecursionError:
        raise _too_deep_failure("a stream event") from None
    except UnfitJson as exc:
        raise _unfit_failure("a stream event", exc) from None
    except ValueError:
        if text.strip() == "[DONE]":
            return SseEvent(name, "[DONE]")
        raise AttemptFailed(
            Failure(
                code="ENDPOINT_BAD_JSON",
                message=f"a stream event is not JSON: {text[:120]!r}",
                retryable=True,
            )
        ) from None
    if nests_too_deep(text, parsed):
        raise _too_deep_failure("a stream event")
    return SseEvent(name, parsed)


def _is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def uses_wire(url: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``url`` goes over ``wire`` rather than httpx: plain ``http://`` that no proxy
    variable applies to (loopback never goes through a proxy here)."""
    if urlsplit(url).scheme.lower() != "http":
        return False
    if _is_loopback(url):
        return True
    env = os.environ if environ is None else environ
    return not any(env.get(name) for name in PROXY_VARIABLES)


class HttpEndpoint:
    """One per target: a lazily made client (``wire`` or httpx, see the module docstring), the
    shared pause after a 429, the retry loop.

    Safe to share between the concurrent attempts of a run (one event loop)."""

    def __init__(
        self, spec: TargetSpec, headers: Mapping[str, str], *, rng: random.Random | None = None
    ) -> None:
        if spec.base_url is None:
            raise ValueError("an HTTP target needs a base URL")
        self.spec = spec
        self.base_url = spec.base_url.rstrip("/")
        common = {
            "content-type": "application/json",
            "user-agent": f"bench-suite/{__version__}",
            # No Accept-Encoding would let a server compress (RFC 9110, 12.5.3), and wire
            # decodes nothing: ask for the body as it is.
            "accept-encoding": "identity",
            **(spec.headers or {}),  # a gateway's routing headers; none the harness sets
            **headers,
        }
        self._plain_headers = {**common, "accept": "application/json"}
        self._stream_headers = {**common, "accept": "text/event-stream"}
        key = spec.api_key()
        self.secrets: tuple[str, ...] = (key,) if key and len(key) >= 6 else ()
        self._rng = rng if rng is not None else random.Random(spec.retry.seed)
        self._client: httpx.AsyncClient | wire.Pool | None = None
        self.transport = "wire" if uses_wire(self.base_url) else "httpx"
        self._paused_until = 0.0
        self.requests_sent = 0
        self.in_flight = InFlight(spec.max_in_flight)

    def _http(self) -> httpx.AsyncClient | wire.Pool:
        if self._client is None:
            t = self.spec.timeouts
            if self.transport == "wire":
                self._client = wire.Pool(connect_s=t.connect_s, read_s=t.read_s)
                return self._client
            import httpx  # only here: start-up of a run over ``wire`` does not pay for it

            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(
                    connect=t.connect_s, read=t.read_s, write=t.read_s, pool=t.connect_s
                ),
                follow_redirects=False,
                trust_env=not _is_loopback(self.base_url),
            )
        return self._client

    async def aclose(self) -> None:
        await self.in_flight.aclose()
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def post(self, path: str, body: dict[str, Any], stream: StreamFormat | None) -> Reply:
        """Send ``body`` to ``base_url + path``, retrying as the module says; raise
        ``EntrantError`` with the last failure's code when no attempt succeeded."""
        payload = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        started = time.monotonic()
        deadline = started + self.spec.timeouts.deadline_s
        log: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(self.spec.timeouts.deadline_s + DEADLINE_GRACE_S) as whole:
                reply = await self._retry(
                    self.base_url + path, payload, stream, deadline, log, whole
                )
        except (EntrantError, HarnessFault):
            raise
        except TimeoutError:
            failure = Failure(
                code="ENDPOINT_TIMEOUT",
                message=f"no response within the {self.spec.timeouts.deadline_s:g}s deadline",
                retryable=True,
            )
            raise self._give_up(failure, log, started, None) from None
        except Exception as exc:  # anything unforeseen is still the entrant's, and still scrubbed
            raise EntrantError(
                scrub(f"{type(exc).__name__}: {exc}", self.secrets), code="ENTRANT_ERROR"
            ) from None
        reply.attempts = log
        reply.body = scrub(reply.body, self.secrets)
        if reply.events is not None:
            reply.events = [SseEvent(e.event, scrub(e.data, self.secrets)) for e in reply.events]
        return reply

    async def post_parsed(
        self,
        path: str,
        body: dict[str, Any],
        stream: StreamFormat | None,
        parse: Callable[[dict[str, Any]], R],
    ) -> tuple[Reply, dict[str, Any], list[str], R]:
        """``post`` and ``parse``; a streamed call that came back empty (a stream closed before
        its first event, ``STREAM_EMPTY``, or an answer with neither content nor tool calls,
        ``EMPTY_RESPONSE``, as a gateway relays the first) is asked once more without
        streaming, unless the stream carried reasoning or text (``StreamFormat.served``). The
        reply, the request that got it, the warnings to record (``[STREAM_NOT_SERVED]`` after
        that second call) and the parsed answer."""
        if stream is not None:
            reply: Reply | None = None
            try:
                reply = await self.post(path, body, stream)
                return reply, body, [], parse(reply.body)
            except EntrantError as exc:
                if exc.code not in (STREAM_EMPTY, EMPTY_RESPONSE):
                    raise
                if reply is not None and stream.served(reply.body):
                    # The stream carried the model's text or reasoning and no answer (its
                    # tokens ran out while it reasoned): served, so not asked again.
                    raise
            body = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            try:
                reply = await self.post(path, body, None)
            except NeverConnected as exc:  # the streamed call was answered: not "never"
                raise EntrantError(exc.message, code=exc.code) from None
            return reply, body, [STREAM_NOT_SERVED], parse(reply.body)
        reply = await self.post(path, body, None)
        return reply, body, [], parse(reply.body)

    async def _retry(
        self,
        url: str,
        payload: bytes,
        stream: StreamFormat | None,
        deadline: float,
        log: list[dict[str, Any]],
        whole: asyncio.Timeout,
    ) -> Reply:
        settings = self.spec.retry
        started = time.monotonic()
        last: Failure | None = None
        note: str | None = None
        for number in range(1, settings.max_attempts + 1):
            pause = self._paused_until - time.monotonic()
            if pause > 0:
                if time.monotonic() + pause >= deadline:
                    note = f"the shared {pause:.1f}s pause after a 429 would pass the deadline"
                    break
                await asyncio.sleep(pause)
            # Queue time is not this call's: its deadline moves back as far.
            deadline += await self.in_flight.take(whole)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.in_flight.give()
                note = "the deadline passed"
                break
            budget = min(self.spec.timeouts.request_s, remaining)
            began = time.monotonic()
            try:
                return await self._slotted(url, payload, stream, budget)
            except TimeoutError:
                failure = Failure(
                    code="ENDPOINT_TIMEOUT",
                    message=f"no complete response within {budget:.3g}s",
                    retryable=True,
                )
            except AttemptFailed as exc:
                failure = exc.failure
            except Exception as exc:
                if not _is_transport_error(exc):
                    raise
                failure = _transport_failure(exc)
            entry: dict[str, Any] = {
                "attempt": number,
                "code": failure.code,
                "error": scrub(failure.message, self.secrets),
                "elapsed_s": round(time.monotonic() - began, 3),
            }
            if failure.status is not None:
                entry["status"] = failure.status
            if failure.retry_after is not None:
                entry["retry_after_s"] = round(failure.retry_after, 3)
            log.append(entry)
            last = failure
            if not failure.retryable or number == settings.max_attempts:
                break
            if failure.retry_after is not None:
                wait = failure.retry_after + self._rng.uniform(
                    0.0, min(settings.base_s, settings.cap_s)
                )
            else:
                wait = backoff_delay(number, settings, self._rng)
            if failure.status == 429:
                self._paused_until = max(self._paused_until, time.monotonic() + wait)
            if time.monotonic() + wait >= deadline:
                note = f"waiting {wait:.1f}s more would pass the deadline"
                break
            entry["wait_s"] = round(wait, 3)
            await asyncio.sleep(wait)
        if last is None:
            last = Failure(
                code="ENDPOINT_TIMEOUT",
                message="no attempt could start before the deadline",
                retryable=True,
            )
        raise self._give_up(last, log, started, note)

    def _give_up(
        self, failure: Failure, log: list[dict[str, Any]], started: float, note: str | None
    ) -> EntrantError | HarnessFault:
        tries = len(log)
        if not failure.retryable:
            detail = f"{failure.message} (not retried)"
        else:
            detail = (
                f"{failure.message} (gave up after {tries} attempt{'s' if tries != 1 else ''} "
                f"in {time.monotonic() - started:.1f}s" + (f"; {note}" if note else "") + ")"
            )
        if failure.code == REQUEST_REFUSED:
            return HarnessFault(
                scrub(
                    f"the server refused the harness's request as malformed: {detail}", self.secrets
                ),
                code=REQUEST_REFUSED,
            )
        if failure.code == "ENDPOINT_UNREACHABLE" and all(
            entry["code"] == "ENDPOINT_UNREACHABLE" for entry in log
        ):
            return NeverConnected(scrub(detail, self.secrets))
        return EntrantError(scrub(detail, self.secrets), code=failure.code)

    async def _slotted(
        self, url: str, payload: bytes, stream: StreamFormat | None, budget: float
    ) -> Reply:
        """One HTTP attempt within ``budget`` seconds, in the slot already taken, which it
        gives back. A plain request abandoned from outside (the attempt's timeout) is read out
        in the background instead of closed, holding its slot (``inflight``)."""
        if stream is not None or not self.in_flight.drains:
            try:
                async with asyncio.timeout(budget):
                    return await self._attempt(url, payload, stream)
            finally:
                self.in_flight.give()
        began = time.monotonic()
        request = asyncio.get_running_loop().create_task(self._attempt(url, payload, None))
        request.add_done_callback(self.in_flight.settled)
        try:
            async with asyncio.timeout(budget) as bound:
                return await asyncio.shield(request)
        except asyncio.CancelledError:
            if not request.done() and not bound.expired():
                self.in_flight.abandon(request, began + budget - time.monotonic())
            elif not request.done():
                request.cancel()
            raise
        except TimeoutError:
            request.cancel()  # its own request_s: closed, as any attempt past its bound
            raise

    async def _attempt(self, url: str, payload: bytes, stream: StreamFormat | None) -> Reply:
        headers = self._stream_headers if stream is not None else self._plain_headers
        self.requests_sent += 1
        client = self._http()
        if isinstance(client, wire.Pool):  # no context manager: the common path, kept short
            sent = await client.send("POST", url, payload, headers)
            try:
                received = await self._receive(sent, stream)
            finally:
                sent.release()
        else:
            async with client.stream("POST", url, content=payload, headers=headers) as response:
                received = await self._receive(response, stream)
        if isinstance(received, Reply):
            return received
        status, recorded, raw = received
        try:
            data = loads_strict(raw)
        except RecursionError:
            raise _too_deep_failure("the body") from None
        except UnfitJson as exc:
            raise _unfit_failure(f"HTTP {status} but the body", exc) from None
        except ValueError as exc:
            what = "empty" if not raw.strip() else f"not complete JSON ({exc})"
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_JSON",
                    message=f"HTTP {status} but the body is {what}",
                    retryable=True,
                )
            ) from None
        if nests_too_deep(raw, data):
            raise _too_deep_failure("the body")
        if not isinstance(data, dict):
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_RESPONSE",
                    message="the body is JSON but not an object",
                    retryable=False,
                )
            )
        return Reply(status, data, recorded)

    async def _receive(
        self, response: httpx.Response | wire.Response, stream: StreamFormat | None
    ) -> Reply | tuple[int, dict[str, str], bytes]:
        """A streamed reply whole, or a plain one's status, recorded headers and body."""
        status = response.status_code
        headers = response.headers
        recorded = {
            name: cut(showable(scrub(headers[name], self.secrets)), HEADER_TEXT_LIMIT)
            for name in RECORDED_HEADERS
            if name in headers
        }
        if not 200 <= status < 300:
            body = await _read_capped(response, MAX_ERROR_BYTES, truncate=True)
            raise AttemptFailed(classify_status(status, headers, scrub_bytes(body, self.secrets)))
        coding = getattr(response, "content_coding", None)  # wire's; httpx decodes its own
        if coding is not None and coding not in wire.DECODED_CODINGS:
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_RESPONSE",
                    message=f"the body came with content-encoding {coding}, which the harness "
                    "does not decode (it asks for identity; gzip and deflate are decoded)",
                    retryable=False,
                    status=status,
                )
            )
        if stream is not None and "text/event-stream" in headers.get("content-type", "").lower():
            events = await _read_events(response.aiter_bytes(), stream)
        else:
            body = await _read_capped(response, MAX_BODY_BYTES)
            if stream is None or not _SSE_START.match(body):
                return status, recorded, body
            # Events under another media type (text/plain, application/octet-stream, none:
            # a hand-made server's StreamingResponse). OpenAI's own SDK reads a stream's body
            # as events whatever its type, so such servers work with it and exist.
            events = await _read_events(_once(body), stream)
        if not events:
            raise AttemptFailed(
                Failure(
                    code=STREAM_EMPTY,
                    message="the server opened the stream and closed it before its first event",
                    retryable=False,
                )
            )
        assembled = stream.assemble(events)
        # Each event's strings are held to what a record may hold (``loads_strict``), but the
        # assembled body joins them: two runs of combining marks in two events, each within
        # the limit, are one past it. Refused as the same text in a plain body is: recorded,
        # it made an honest run's bundle unverifiable (LIMIT_COMBINING).
        marks = long_marks(assembled)
        if marks is not None:
            where, start = marks
            said = f"{where or 'the body'} holds more than {MAX_MARKS} combining marks or "
            said += f"invisible characters in a row (from character {start})"
            raise _unfit_failure("the assembled stream", UnfitJson(said))
        return Reply(status, assembled, recorded, events)


# A body that begins as an event stream does: a field name and a colon, or a comment.
_SSE_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:(?:data|event|id|retry)\s*:|:)")


async def _once(body: bytes) -> AsyncGenerator[bytes, None]:
    yield body


def scrub_bytes(body: bytes, secrets: tuple[str, ...]) -> bytes:
    for secret in secrets:
        body = body.replace(secret.encode("utf-8"), REDACTED.encode())
    return body


async def _read_capped(
    response: httpx.Response | wire.Response, cap: int, *, truncate: bool = False
) -> bytes:
    if isinstance(response, wire.Response):
        try:
            return await response.read(cap, truncate=truncate)
        except wire.BodyTooLarge:
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_RESPONSE",
                    message=f"the body is over {cap} bytes",
                    retryable=False,
                )
            ) from None
    chunks: list[bytes] = []
    size = 0
    async with closing(response.aiter_bytes()) as body:
        async for chunk in body:
            if size + len(chunk) > cap:
                if truncate:
                    chunks.append(chunk[: cap - size])
                    break
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_BAD_RESPONSE",
                        message=f"the body is over {cap} bytes",
                        retryable=False,
                    )
                )
            size += len(chunk)
            chunks.append(chunk)
    return b"".join(chunks)


STREAM_TAIL_S = 0.05  # after a stream's last event, how long its body may take to end


async def _finish_body(lines: AsyncIterator[str], size: int) -> None:
    """Read the rest of a stream's body after its format's last event: the closing chunk,
    usually in the same packet, so the connection goes back to the pool. A server that keeps
    the stream open past its last event gets ``STREAM_TAIL_S``; then the connection is closed
    instead of reused (what happened to every stream before)."""
    with suppress(TimeoutError):
        async with asyncio.timeout(STREAM_TAIL_S):
            async for line in lines:
                size += len(line) + 1
                if size > MAX_BODY_BYTES:
                    return


async def _read_events(body: AsyncIterator[bytes], stream: StreamFormat) -> list[SseEvent]:
    """Events until the format's last one (or the end of the body)."""
    parser = SseParser()
    events: list[SseEvent] = []
    size = 0
    first = True
    # Lines end at CR, LF or CRLF only, over either transport (``wire.text_lines``).
    async with closing(wire.text_lines(body)) as lines:
        async for line in lines:
            if first:  # the SSE rule: one leading byte order mark is not part of the stream
                line, first = line.removeprefix("\ufeff"), False
            size += len(line) + 1
            if size > MAX_BODY_BYTES:
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_BAD_RESPONSE",
                        message=f"the stream is over {MAX_BODY_BYTES} bytes",
                        retryable=False,
                    )
                )
            event = parser.feed(line)
            if event is not None:
                events.append(event)
                if stream.done(event):
                    await _finish_body(lines, size)
                    return events
    last = parser.finish()
    if last is not None:
        events.append(last)
    return events


__all__ = [
    "AttemptFailed",
    "as_object",
    "closing",
    "Failure",
    "HttpEndpoint",
    "NeverConnected",
    "Reply",
    "SseEvent",
    "StreamFormat",
    "backoff_delay",
    "SseParser",
    "classify_status",
    "BODY_DEPTH",
    "UnfitJson",
    "loads_strict",
    "nests_too_deep",
    "quoted",
    "parse_retry_after",
    "scrub",
]
