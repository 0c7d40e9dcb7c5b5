"""The search_docs builtin, and determinism across fresh worlds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bench.core.canonical import canonical_json
from bench.core.trace import ToolDef
from bench.corpus import Corpus, parse_markdown
from bench.tasks.model import Task
from bench.world import SEARCH_DOCS_PARAMETERS, ToolResult, World

MakeTask = Callable[..., Task]

FAQ = """# FAQ
## Refunds
Refunds reach your card within five business days.
## Shipping
Orders ship within two days.
## Returns
Return an item within thirty days for a refund.
## Warranty
Two years against defects.
"""


@pytest.fixture
def corpus() -> Corpus:
    return Corpus(parse_markdown("faq.md", FAQ))


def search_world(make_task: MakeTask, corpus: Corpus, **builtin: Any) -> World:
    task = make_task([{"builtin": "search_docs", **builtin}], corpus=["faq.md"])
    return World(task, corpus)


def test_search_docs_tool_def(make_task: MakeTask, corpus: Corpus) -> None:
    [definition] = search_world(make_task, corpus, k=2).tool_defs()
    assert definition == ToolDef(
        name="search_docs",
        description="Search this task's documents; returns up to k passages (default 2) as "
        "{id, title, text}, best first; cite passages by id.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "k": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    )
    assert definition.parameters == SEARCH_DOCS_PARAMETERS
    assert definition.parameters is not SEARCH_DOCS_PARAMETERS


def test_search_results_and_retrieved_ids(make_task: MakeTask, corpus: Corpus) -> None:
    world = search_world(make_task, corpus)
    assert world.call("search_docs", {"query": "refunds card"}) == ToolResult(
        result=[
            {
                "id": "faq.md#refunds",
                "title": "Refunds",
                "text": "Refunds reach your card within five business days.",
            }
        ],
        retrieved=("faq.md#refunds",),
    )


def test_k_defaults_to_the_builtin_and_the_task_caps_it(
    make_task: MakeTask, corpus: Corpus
) -> None:
    query = {"query": "days within two"}
    every = ("faq.md#shipping", "faq.md#warranty", "faq.md#returns", "faq.md#refunds")
    assert search_world(make_task, corpus).call("search_docs", query).retrieved == every[:3]
    assert search_world(make_task, corpus, k=1).call("search_docs", query).retrieved == every[:1]
    world = search_world(make_task, corpus, k=1)
    assert world.call("search_docs", {**query, "k": 4}).retrieved == every[:1]  # capped
    wide = search_world(make_task, corpus, k=4)
    assert wide.call("search_docs", {**query, "k": 20}).retrieved == every
    assert wide.call("search_docs", {**query, "k": 2.0}).retrieved == every[:2]


@pytest.mark.parametrize("query", ["", "what is this", "How do I do it?", "zebra"])
def test_nothing_to_find_is_an_empty_result(
    make_task: MakeTask, corpus: Corpus, query: str
) -> None:
    world = search_world(make_task, corpus)
    assert world.call("search_docs", {"query": query}) == ToolResult(result=[], retrieved=())


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "'query' is a required property"),
        ({"query": 3}, "argument 'query': 3 is not of type 'string'"),
        ({"query": "x", "k": 0}, "argument 'k': 0 is less than the minimum of 1"),
        ({"query": "x", "k": 21}, "argument 'k': 21 is greater than the maximum of 20"),
        ({"query": "x", "k": True}, "argument 'k': True is not of type 'integer'"),
        ({"query": "x", "top": 1}, "Additional properties are not allowed ('top' was unexpected)"),
    ],
)
def test_bad_search_arguments(
    make_task: MakeTask, corpus: Corpus, arguments: dict[str, Any], error: str
) -> None:
    world = search_world(make_task, corpus)
    assert world.call("search_docs", arguments) == ToolResult(
        error=f"invalid arguments for search_docs: {error}"
    )


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "refund days"}),
    ("lookup", {"order_id": "1"}),
    ("ship", {"order_id": "1", "carrier": "ups"}),
    ("lookup", {"order_id": "1"}),
    ("search_docs", {"query": "two", "k": 5}),
    ("ship", {"order_id": "2", "carrier": 7}),
    ("nope", {}),
]


def test_same_task_same_calls_same_bytes(make_task: MakeTask) -> None:
    tools = [
        {"builtin": "search_docs"},
        {"name": "lookup", "reads": "orders.{order_id}"},
        {
            "name": "ship",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "carrier": {"type": "string"}},
            },
            "default": {"shipped": True},
            "writes": [{"path": "orders.{order_id}", "value": {"via": "{carrier}", "n": 1}}],
        },
    ]
    task = make_task(tools, state={"orders": {"1": {"via": None}}}, corpus=["faq.md"])

    def run() -> bytes:
        world = World(task, Corpus(parse_markdown("faq.md", FAQ)))
        results = [world.call(name, arguments) for name, arguments in CALLS]
        record = [[r.result, r.error, list(r.retrieved)] for r in results]
        return canonical_json({"results": record, "state": world.state})

    first = run()
    assert first == run()
    assert b'"state":{"orders":{"1":{"n":1,"via":"ups"}}}' in first
    assert b'[{"n":1,"via":"ups"},null,[]]' in first
