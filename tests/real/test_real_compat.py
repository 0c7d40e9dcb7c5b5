"""docs/TARGETS.md's compatibility table is what these servers do, measured here, not
remembered: each cell comes from a request sent now. ``BENCH_UPDATE_COMPAT=1`` rewrites the
table from the measurement; otherwise a difference fails with the measured table."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from .conftest import KEY_ENV, REPO, Servers, bench
from .engines import LITELLM_KEY

DOC = REPO / "docs" / "TARGETS.md"
BEGIN, END = "<!-- compat:begin -->", "<!-- compat:end -->"
WEATHER = {
    "name": "get_weather",
    "description": "The weather in one city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]},
}  # fmt: skip
ONE = "What is the weather in Paris?"
TWO = "What is the weather in Paris, and what is the weather in Rome?"


class Wire:
    """One protocol at one address: builds the body, sends it, reads tool calls and usage."""

    def __init__(self, kind: str, base: str, model: str, key: str | None) -> None:
        self.kind, self.base, self.model = kind, base, model
        self.headers = {"anthropic-version": "2023-06-01"} if kind == "anthropic" else {}
        if key:
            self.headers["x-api-key" if kind == "anthropic" else "authorization"] = (
                key if kind == "anthropic" else f"Bearer {key}"
            )

    def body(
        self, text: str, choice: str | None, stream: bool = False, tools: bool = True
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": 48, "temperature": 0,
                                "messages": [{"role": "user", "content": text}]}  # fmt: skip
        if self.kind == "openai":
            if tools:
                body["tools"] = [{"type": "function", "function": WEATHER}]
                body["tool_choice"] = choice or "auto"
            if stream:
                body["stream"] = True
                body["stream_options"] = {"include_usage": True}
        else:
            if tools:
                body["tools"] = [{"name": WEATHER["name"], "description": WEATHER["description"],
                                  "input_schema": WEATHER["parameters"]}]  # fmt: skip
                body["tool_choice"] = {"type": "any" if choice == "required" else "auto"}
            if stream:
                body["stream"] = True
        return body

    def post(self, body: dict[str, Any]) -> httpx.Response:
        path = "/chat/completions" if self.kind == "openai" else "/v1/messages"
        return httpx.post(self.base + path, json=body, headers=self.headers, timeout=120)

    def calls(self, data: dict[str, Any]) -> int:
        if self.kind == "openai":
            message = (data.get("choices") or [{}])[0].get("message") or {}
            return len(message.get("tool_calls") or [])
        return sum(1 for block in data.get("content") or [] if block.get("type") == "tool_use")

    def stream_calls(self, text: str) -> tuple[int, int, bool]:
        """(events, tool calls seen, usage seen) of a streamed answer."""
        events = calls = 0
        usage = False
        for line in text.splitlines():
            if not line.startswith("data:") or line.strip() == "data: [DONE]":
                continue
            events += 1
            data = json.loads(line[5:])
            if self.kind == "openai":
                usage |= bool(data.get("usage"))
                for choice in data.get("choices") or []:
                    calls += len((choice.get("delta") or {}).get("tool_calls") or [])
            else:
                usage |= bool(data.get("usage") or (data.get("message") or {}).get("usage"))
                block = data.get("content_block") or {}
                calls += block.get("type") == "tool_use"
        return events, calls, usage


def _status(response: httpx.Response) -> str | None:
    return None if response.status_code == 200 else f"refused (HTTP {response.status_code})"


def measure(wire: Wire, identity: str) -> list[str]:
    def ask(text: str, choice: str | None = None) -> tuple[str | None, dict[str, Any]]:
        response = wire.post(wire.body(text, choice))
        return _status(response), (response.json() if response.status_code == 200 else {})

    bad, data = ask(ONE)
    tools = bad or ("called" if wire.calls(data) else "dropped (answered in text)")
    bad, data = ask(ONE, "required")
    required = bad or ("enforced" if wire.calls(data) else "not enforced")
    bad, data = ask(TWO)
    parallel = bad or f"{wire.calls(data)} call(s) for 2 cities"
    usage_key = "usage"
    plain_usage = "yes" if data.get(usage_key) else "no"
    details = (data.get("usage") or {}).get("prompt_tokens_details") or {}
    cached = "reported" if "cached_tokens" in details or "cache_read_input_tokens" in (
        data.get("usage") or {}) else "not reported"  # fmt: skip
    text = wire.post(wire.body("Say hello.", None, stream=True, tools=False))
    events, _, stream_usage = wire.stream_calls(text.text)
    streaming = _status(text) or ("yes" if events else "no events")
    with_tools = wire.post(wire.body(ONE, None, stream=True))
    events, calls, _ = wire.stream_calls(with_tools.text)
    if _status(with_tools):
        streamed_tools = _status(with_tools) or ""
    elif not events:
        streamed_tools = "stream closed before its first event"
    else:
        streamed_tools = f"{calls} call(s) streamed" if calls else "an empty answer"
    usage = f"plain {plain_usage}, streamed {'yes' if stream_usage else 'no'}"
    return [identity, tools, required, parallel, streaming, streamed_tools, usage, cached]


HEAD = (
    "| route | identity (`bench probe`) | tools, `tool_choice: auto` | "
    "`tool_choice: required` | two cities asked | streaming text | streaming a tool call | "
    "usage | cached tokens |"
)


def _identity(base: str, key: str | None) -> str:
    args = ["probe", "--base-url", base, "--format", "json", "--timeout", "30"]  # a busy box
    if key:
        args += ["--api-key-env", KEY_ENV]
    [report] = json.loads(bench(*args).stdout)
    return f"{report['engine']} {report.get('version') or ''}".strip()


def test_the_compatibility_table_is_what_the_servers_do(servers: Servers) -> None:
    engine, gateway = servers.engines["a"].url, servers.litellm.url
    routes: list[tuple[str, Callable[[], list[str]]]] = [
        ("llama-cpp-python 0.3.36, OpenAI chat completions",
         lambda: measure(Wire("openai", engine + "/v1", "smollm2", None),
                         _identity(engine + "/v1", None))),
        ("LiteLLM 1.105.7 → llama-cpp-python, OpenAI chat completions",
         lambda: measure(Wire("openai", gateway + "/v1", "smollm2-a", LITELLM_KEY),
                         _identity(gateway + "/v1", LITELLM_KEY))),
        ("LiteLLM 1.105.7 → llama-cpp-python, Anthropic Messages",
         lambda: measure(Wire("anthropic", gateway, "smollm2-a", LITELLM_KEY),
                         _identity(gateway + "/v1", LITELLM_KEY))),
    ]  # fmt: skip
    rows = [HEAD, "|" + "---|" * (HEAD.count("|") - 1)]
    rows += ["| " + " | ".join([name, *measured()]) + " |" for name, measured in routes]
    table = "\n".join(rows)
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    if os.environ.get("BENCH_UPDATE_COMPAT") == "1":
        DOC.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")
        return
    assert text[start:end].strip() == table, "measured:\n" + table


def test_the_table_is_in_the_doc() -> None:
    text = Path(DOC).read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
