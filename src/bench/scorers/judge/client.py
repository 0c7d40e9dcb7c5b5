"""Asking the judge: one POST to ``<base_url>/chat/completions`` per question not in the cache.

``Judge.decide`` is synchronous and safe to call from several scoring threads at once. Each
request runs under one overall deadline (``timeout_s``, from before the connection is opened to
the last byte of the reply): httpx's own timeouts are per phase, so a server that trickles its
reply could otherwise hold a request for many times ``timeout_s``. The request runs on a private
event loop under ``asyncio.wait_for``, which cancels it, and closes its connection, when the
deadline passes.

Two kinds of trouble, told apart by class:

* the judge *broke* (an outage: an HTTP error status, a timeout, a connection error, a body that
  is not a chat completion) raises ``JudgeUnavailable``: the judge could not decide. That is
  ours, never cached and never a fail — unless the answer caused it. A server refuses a
  request for what it holds with a 400, 413 or 422 (a prompt past its context, a content
  filter), and the answer is the only part of the request an entrant writes: 12,000 characters
  that are a token each overflow a small judge's context, and an undecided verdict left the
  mean, so an answer that would FAIL could take itself out of the score
  (tests/scorers/gaming_cheats_8.py). So such a refusal is put to the test: the same request
  with the answer withheld (``WITHHELD``) is sent once. If the server takes that one, the
  refusal was the answer's doing: a decided FAIL that says so (``REFUSED_ANSWER``), cached
  like any verdict. If it refuses that too (a judge file whose model or parameters the server
  refuses, a prompt template too long for it), it is an outage;
* the judge *replied, but not with a verdict* (a chat completion whose content does not parse,
  or is empty): an answer can provoke that, so it is not let out of the denominator. The judge
  is asked once more, in the same conversation, to give its verdict first
  (``RETRY_INSTRUCTION``); a second reply without one is a decided FAIL whose reason says so
  (``NO_VERDICT``), cached like any verdict.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import ssl
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from bench.core.trace import Usage

from .cache import JudgeCache, cache_key
from .config import RETRY_INSTRUCTION, JudgeConfig, parse_verdict
from .errors import JudgeUnavailable

_T = TypeVar("_T")
_EXCERPT = 200
NO_VERDICT = "no verdict when asked twice, counted as FAIL"
"""The start of the reason of a FAIL the judge did not give: it replied twice without one."""
REFUSED_ANSWER = "the judge's server refused the answer, counted as FAIL"
"""The start of the reason of a FAIL the judge did not give: its server refused the request
with the answer in it and took the same request with the answer withheld."""
REFUSING_STATUSES = frozenset({400, 413, 422})
"""HTTP statuses by which a server refuses a request for what it holds (too long for its
context, a content filter, a body it will not read): the answer may be the cause."""
WITHHELD = "(the answer is withheld)"
"""The answer in the request that tells whether a refusal was the answer's doing."""


@dataclass(frozen=True)
class JudgeDecision:
    """What the judge said about one answer."""

    passed: bool
    reason: str
    usage: Usage | None
    """Tokens the verdict took when it was bought; None when the server reported none."""
    cost_usd: float | None
    """What the verdict cost when it was bought; None when the judge has no pricing or the
    server reported no usage (not measured, never $0)."""
    cached: bool
    """Served from the cache: this call made no request and cost nothing."""


@dataclass(frozen=True)
class JudgeReply:
    text: str
    usage: Usage | None
    latency_s: float


def _run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` to completion on a private loop (in a helper thread if this thread
    already runs a loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """Built once per process: loading the CA bundle for every request costs ~0.1 s each."""
    return httpx.create_ssl_context()


def _usage(payload: dict[str, Any]) -> Usage | None:
    raw = payload.get("usage")
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None

    def count(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    if not isinstance(raw.get("prompt_tokens"), int) and not isinstance(
        raw.get("completion_tokens"), int
    ):
        return None
    return Usage(
        prompt_tokens=count(raw.get("prompt_tokens")),
        completion_tokens=count(raw.get("completion_tokens")),
        cached_tokens=count(cached),
    )


def _total(usages: list[Usage | None]) -> Usage | None:
    """The tokens of a verdict's requests together; None when any went unreported (a partial
    count would read as the whole)."""
    total = Usage()
    for usage in usages:
        if usage is None:
            return None
        total = total.plus(usage)
    return total if usages else None


class JudgeClient:
    """The HTTP side: messages in, reply text and usage out, or ``JudgeUnavailable``."""

    def __init__(self, config: JudgeConfig, api_key: str | None) -> None:
        self.config = config
        self._api_key = api_key
        self.requests = 0
        self._lock = threading.Lock()

    def redact(self, text: str) -> str:
        """``text`` with the API key, should a server echo it, replaced by ``[redacted]``. A key
        under 6 characters is left alone, as the targets leave it (``targets.http``): a test
        key ``x`` would otherwise cut every ``x`` out of the server's words."""
        if self._api_key and len(self._api_key) >= 6:
            text = text.replace(self._api_key, "[redacted]")
        return text

    def unavailable(self, reason: str) -> JudgeUnavailable:
        return JudgeUnavailable(self.redact(reason))

    async def _post(self, body: dict[str, Any]) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        timeout = httpx.Timeout(self.config.timeout_s)
        async with httpx.AsyncClient(timeout=timeout, verify=_ssl_context()) as client:
            response = await client.post(self.config.endpoint, json=body, headers=headers)
            return response.status_code, response.content

    def ask(self, messages: list[dict[str, str]]) -> JudgeReply:
        config = self.config
        body: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
        }
        with self._lock:
            self.requests += 1
        started = time.monotonic()
        try:
            status, content = _run(asyncio.wait_for(self._post(body), timeout=config.timeout_s))
        except (TimeoutError, httpx.TimeoutException):
            raise self.unavailable(
                f"no reply within {config.timeout_s:g}s from {config.endpoint}"
            ) from None
        except httpx.HTTPError as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise self.unavailable(f"cannot reach {config.endpoint} ({detail})") from None
        latency = time.monotonic() - started
        text = content.decode("utf-8", errors="replace")
        if not 200 <= status < 300:
            excerpt = " ".join(text.split())[:_EXCERPT]
            raise JudgeUnavailable(
                self.redact(
                    f"HTTP {status} from {config.endpoint}" + (f": {excerpt}" if excerpt else "")
                ),
                status=status,
            )
        try:
            payload = json.loads(text)
        except ValueError:
            raise self.unavailable(f"unparseable reply from {config.endpoint}: not JSON") from None
        reply = None
        if isinstance(payload, dict):
            choices = payload.get("choices")
            if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                message = choices[0].get("message")
                if isinstance(message, dict):
                    said = message.get("content")
                    if isinstance(said, str):
                        reply = said
                    elif said is None and "content" in message:
                        reply = ""  # it replied with nothing to read: no verdict, not an outage
        if reply is None:
            raise self.unavailable(
                f"unparseable reply from {config.endpoint}: no choices[0].message.content"
            )
        return JudgeReply(text=reply, usage=_usage(payload), latency_s=latency)


class Judge:
    """A configured judge with its cache: ``decide`` answers from the cache when it can and
    asks the model otherwise. Thread-safe; counts what it spent."""

    def __init__(
        self, config: JudgeConfig, cache: JudgeCache, *, api_key: str | None = None
    ) -> None:
        self.config = config
        self.cache = cache
        self.client = JudgeClient(config, api_key if api_key is not None else config.api_key())
        self.outages = 0
        self.retries = 0
        """Replies without a verdict, each asked once more."""
        self.no_verdicts = 0
        """Second replies without a verdict, counted as FAIL."""
        self._spent: float | None = None
        self._lock = threading.Lock()

    @property
    def requests(self) -> int:
        """HTTP requests made (cache hits make none)."""
        return self.client.requests

    @property
    def spent_usd(self) -> float | None:
        """What this judge's requests cost; None when nothing priced was bought."""
        return self._spent

    def key(self, rubric: str, question: str, answer: str) -> str:
        return cache_key(
            rubric=rubric,
            prompt=question,
            answer=answer,
            model=self.config.model,
            temperature=self.config.temperature,
            template=self.config.template_fingerprint(),
        )

    def decide(self, rubric: str, question: str, answer: str) -> JudgeDecision:
        """The judge's verdict on ``answer``; raises ``JudgeUnavailable`` when it cannot say."""
        key = self.key(rubric, question, answer)
        hit = self.cache.get(key)
        if hit is not None:
            return JudgeDecision(
                passed=hit.passed,
                reason=hit.reason,
                usage=hit.usage,
                cost_usd=hit.cost_usd,
                cached=True,
            )
        messages = self.config.messages(rubric, question, answer)
        usages: list[Usage | None] = []
        try:
            reply = self.client.ask(messages)
            usages.append(reply.usage)
            parsed = parse_verdict(reply.text)
            if parsed is None:
                with self._lock:
                    self.retries += 1
                again = self.client.ask(
                    [
                        *messages,
                        {"role": "assistant", "content": reply.text},
                        {"role": "user", "content": RETRY_INSTRUCTION},
                    ]
                )
                usages.append(again.usage)
                parsed = parse_verdict(again.text)
                if parsed is None:
                    with self._lock:
                        self.no_verdicts += 1
                    excerpt = " ".join(again.text.split())[:_EXCERPT] or "(empty)"
                    parsed = (False, f"{NO_VERDICT} (its second reply: {excerpt!r})")
        except JudgeUnavailable as exc:
            refused = self._refused_answer(exc, rubric, question, usages)
            if refused is None:
                with self._lock:
                    self.outages += 1
                raise
            parsed = refused
        passed, reason = parsed[0], self.client.redact(parsed[1])
        usage = _total(usages)
        pricing = self.config.pricing
        cost = None if pricing is None or usage is None else pricing.cost(usage)
        if cost is not None:
            with self._lock:
                self._spent = (self._spent or 0.0) + cost
        self.cache.put(
            key,
            passed=passed,
            reason=reason,
            model=self.config.model,
            temperature=self.config.temperature,
            usage=usage,
            cost_usd=cost,
        )
        return JudgeDecision(passed=passed, reason=reason, usage=usage, cost_usd=cost, cached=False)

    def _refused_answer(
        self, exc: JudgeUnavailable, rubric: str, question: str, usages: list[Usage | None]
    ) -> tuple[bool, str] | None:
        """A FAIL when the server refused a request (``REFUSING_STATUSES``) that it takes with
        the answer withheld: the answer was the cause. None when it is an outage."""
        if exc.status not in REFUSING_STATUSES:
            return None
        try:
            probe = self.client.ask(self.config.messages(rubric, question, WITHHELD))
        except JudgeUnavailable:
            return None
        usages.append(probe.usage)
        return False, f"{REFUSED_ANSWER} ({exc.reason}; it took the request without the answer)"


__all__ = [
    "NO_VERDICT",
    "REFUSED_ANSWER",
    "REFUSING_STATUSES",
    "WITHHELD",
    "Judge",
    "JudgeClient",
    "JudgeDecision",
    "JudgeReply",
]
