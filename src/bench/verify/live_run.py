"""Re-running sampled tasks through the real harness against an allow-listed endpoint.

The target is rebuilt from two sources with different trust: *what* the entrant ran (sampling
parameters, system prompt, tool choice and selection, streaming, pricing) comes from the bundle;
*where and how hard* to call (kind, full base URL, model, the key's variable, a gateway's
routing headers, retries, timeouts, rate, request cap, concurrency) comes only from the
allow-list. Nothing else of the bundle's
target is used: ``provider`` would read a base URL from the environment, so it is dropped.

The target file written to the scratch directory names the key's variable, never the key; the
harness reads the key from the process environment only (no ``.env``).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from bench.core.errors import EntrantError, HarnessFault
from bench.corpus import CorpusLibrary
from bench.records.run import AttemptRecord, RunConfig
from bench.records.store import RunStore
from bench.runner import RunPlan, RunRequest, execute, prepare
from bench.targets.base import ModelRequest, ModelResponse, Target, TargetSpec
from bench.targets.load import FIELD_KINDS

from .live_allowlist import AllowedEndpoint

# From the bundle's recorded target: what the entrant's configuration was.
FROM_BUNDLE = (
    "display_name",
    "params",
    "system_prompt",
    "tool_choice",
    "tool_selection",
    "pricing",
    "stream",
    "max_tokens_param",
    "anthropic_version",
)
UNREACHABLE = "ENDPOINT_UNREACHABLE"


class MeteredTarget:
    """The allow-list's limits around a target: at most ``max_requests`` model calls, spaced
    ``60 / requests_per_minute`` seconds apart; after one unreachable call, no more tries."""

    def __init__(self, inner: Target, endpoint: AllowedEndpoint) -> None:
        self.spec: TargetSpec = inner.spec
        self._inner = inner
        self._cap = endpoint.max_requests
        rate = endpoint.requests_per_minute
        self._interval = 60.0 / rate if rate else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()
        self.sent = 0
        self.capped = False
        self.unreachable = False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        async with self._lock:
            if self.unreachable:
                raise EntrantError(
                    "not tried: the endpoint was unreachable earlier in this re-run",
                    code="ENDPOINT_UNREACHABLE",
                )
            if self._cap is not None and self.sent >= self._cap:
                self.capped = True
                raise HarnessFault(f"the allow-list's max_requests ({self._cap}) is spent")
            wait = self._next - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._next = time.monotonic() + self._interval
            self.sent += 1
        try:
            return await self._inner.complete(request)
        except EntrantError as exc:
            if exc.code == UNREACHABLE:
                self.unreachable = True
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


def live_target(config: RunConfig, endpoint: AllowedEndpoint) -> dict[str, Any]:
    """The target file of the re-run (JSON): the bundle's configuration, the allow-list's
    endpoint. It names the key's variable, never holds the key."""
    recorded = config.target
    data: dict[str, Any] = {name: recorded[name] for name in FROM_BUNDLE if name in recorded}
    data.update(
        format_version=1,
        kind=endpoint.kind,
        entrant=config.entrant,
        model=endpoint.model,
        base_url=endpoint.base_url,
        api_key_env=endpoint.api_key_env,
        retry=endpoint.retry.model_dump(mode="json"),
        timeouts=endpoint.timeouts.model_dump(mode="json"),
        headers=endpoint.headers,  # the allow-list's, which the bundle's recorded ones equal
    )
    data.setdefault("display_name", config.display_name)
    return {
        name: value
        for name, value in data.items()
        if value is not None
        and (FIELD_KINDS.get(name) is None or endpoint.kind in FIELD_KINDS[name])
    }


class ServerChanged(Exception):
    """The endpoint declares another engine, version, context window or quantisation than the
    bundle's run recorded: a re-run would test another configuration. Raised after the probe,
    before any model call."""

    def __init__(self, recorded: dict[str, Any], live: dict[str, Any]) -> None:
        self.recorded = recorded
        self.live = live
        super().__init__(f"recorded {recorded}, live {live}")


def rerun(
    scratch: Path,
    config: RunConfig,
    endpoint: AllowedEndpoint,
    tasks: Path,
    corpus_root: Path | None,
    task_ids: list[str],
) -> tuple[list[AttemptRecord], MeteredTarget]:
    """Run ``task_ids`` (public split) with the bundle's repeats, budgets and seed into
    ``scratch``; returns the attempts and the metered target (how many calls, cap, reach).
    ``ServerChanged`` if the run recorded what its server declared and the endpoint now
    declares something else; an endpoint that declares nothing now (or does not answer) is
    re-run, and the re-run decides."""
    target_file = scratch / "target.json"
    target_file.write_text(json.dumps(live_target(config, endpoint), indent=2), encoding="utf-8")
    request = RunRequest(
        tasks=tasks,
        corpus_root=corpus_root,
        target_file=target_file,
        runs_dir=scratch / "runs",
        split="public",
        task_ids=tuple(task_ids),
        repeats=config.repeats,
        concurrency=endpoint.concurrency,
        attempt_timeout_s=config.attempt_timeout_s,
        task_budget=config.task_budget,
        seed=config.seed,
        require_connection=False,  # an unreachable endpoint is reported from the re-run
    )
    store = RunStore(request.runs_dir)
    prepared = prepare(request, store)  # probes what the endpoint declares, no model call
    live = prepared.config.server
    declares = live is not None and live.get("engine", "unknown") != "unknown"
    if config.server is not None and live is not None and declares and live != config.server:
        raise ServerChanged(config.server, live)  # declares nothing now: the re-run decides
    metered = MeteredTarget(prepared.target, endpoint)
    status = prepared.first_status()
    run = store.create(prepared.config, status)
    plan = RunPlan(
        run=run,
        config=prepared.config,
        tasks=prepared.tasks.tasks,
        target=metered,
        corpora=CorpusLibrary(prepared.tasks.corpus_root),
    )

    async def main() -> None:
        try:
            await execute(plan)
        finally:
            await metered.aclose()

    asyncio.run(main())
    return run.attempts(), metered


__all__ = ["FROM_BUNDLE", "MeteredTarget", "ServerChanged", "live_target", "rerun"]
