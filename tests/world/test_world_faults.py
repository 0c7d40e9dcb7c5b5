"""Broken task data is a HarnessFault; nothing the agent sends is."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from bench.core.errors import HarnessFault
from bench.corpus import Corpus, parse_markdown
from bench.tasks.model import Task, ToolSpec
from bench.world import ToolResult, World

MakeTask = Callable[..., Task]


def fault(excinfo: pytest.ExceptionInfo[HarnessFault]) -> tuple[str, str | None, str]:
    return excinfo.value.code, excinfo.value.field, excinfo.value.message


def test_template_naming_an_argument_the_schema_let_the_call_omit(make_task: MakeTask) -> None:
    tool = {
        "name": "lookup",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        "reads": "orders.{order_id}",
    }
    world = World(make_task([tool], state={"orders": {}}), None)
    assert world.call("lookup", {"order_id": "1"}) == ToolResult(error="no orders.1 in this world")
    with pytest.raises(HarnessFault) as caught:
        world.call("lookup", {})
    assert fault(caught) == (
        "WORLD_TOOL_DATA",
        "tools.lookup.reads",
        "task 'world-test': 'orders.{order_id}' uses {order_id}, "
        "but the call has no argument 'order_id'",
    )


def test_write_value_template_without_its_argument(make_task: MakeTask) -> None:
    tool = {
        "name": "note",
        "kind": "write",
        "default": "ok",
        "writes": [{"path": "notes.last", "value": "by {who}"}],
    }
    with pytest.raises(HarnessFault) as caught:
        World(make_task([tool]), None).call("note", {})
    assert fault(caught)[:2] == ("WORLD_TOOL_DATA", "tools.note.writes[0].value")


@pytest.mark.parametrize(
    ("reads", "message"),
    [
        ("orders..{id}", "path 'orders..{id}' has an empty segment"),
        (".orders", "path '.orders' has an empty segment"),
        ("orders.{id", "path 'orders.{id' has a brace that is not an {argument}"),
        ("orders.{id-x}", "path 'orders.{id-x}' has a brace that is not an {argument}"),
    ],
)
def test_malformed_paths_fail_when_the_world_is_built(
    make_task: MakeTask, reads: str, message: str
) -> None:
    with pytest.raises(HarnessFault) as caught:
        World(make_task([{"name": "lookup", "reads": reads}]), None)
    assert fault(caught) == (
        "WORLD_TOOL_DATA",
        "tools.lookup.reads",
        f"task 'world-test': {message}",
    )


def test_malformed_write_path(make_task: MakeTask) -> None:
    tool = {"name": "w", "kind": "write", "default": 1, "writes": [{"path": "a.", "value": 1}]}
    with pytest.raises(HarnessFault) as caught:
        World(make_task([tool]), None)
    assert fault(caught)[1] == "tools.w.writes[0].path"


def test_invalid_json_schema(make_task: MakeTask) -> None:
    tool = {"name": "bad", "parameters": {"type": "objekt"}, "default": 1}
    with pytest.raises(HarnessFault) as caught:
        World(make_task([tool]), None)
    code, field, message = fault(caught)
    assert (code, field) == ("WORLD_TOOL_DATA", "tools.bad.parameters")
    assert message.startswith("task 'world-test': not a valid JSON Schema: 'objekt' is not valid")


def test_unresolvable_ref_is_the_tasks_fault(make_task: MakeTask) -> None:
    tool = {"name": "bad", "parameters": {"$ref": "#/$defs/missing"}, "default": 1}
    world = World(make_task([tool]), None)
    with pytest.raises(HarnessFault) as caught:
        world.call("bad", {})
    assert fault(caught)[:2] == ("WORLD_TOOL_DATA", "tools.bad.parameters")


def test_search_docs_without_a_corpus(make_task: MakeTask) -> None:
    with pytest.raises(HarnessFault) as caught:
        World(make_task([{"builtin": "search_docs"}], corpus=["faq.md"]), None)
    assert fault(caught) == (
        "WORLD_TOOL_DATA",
        "tools.search_docs",
        "task 'world-test': search_docs needs a corpus; none given",
    )


@pytest.mark.parametrize(
    ("tool", "state", "field"),
    [
        ({"name": "t", "default": float("nan")}, {}, "tools.t.default"),
        ({"name": "t", "cases": [{"result": {1, 2}}]}, {}, "tools.t.cases[0].result"),
        ({"name": "t", "default": 1}, {"day": datetime.date(2026, 12, 2)}, "state"),
    ],
)
def test_non_json_task_data(
    make_task: MakeTask, tool: dict[str, Any], state: dict[str, Any], field: str
) -> None:
    # Task validation refuses such data first ...
    with pytest.raises(ValidationError, match="is not a JSON value"):
        make_task([tool], state=state)
    # ... and the world still refuses it when a task was built without validation.
    unchecked = make_task([{"name": "t", "default": 1}]).model_copy(
        update={"tools": [ToolSpec.model_validate(tool)], "state": state}
    )
    with pytest.raises(HarnessFault) as caught:
        World(unchecked, None)
    assert fault(caught)[:2] == ("WORLD_TOOL_DATA", field)


def test_a_corpus_without_search_docs_is_harmless(make_task: MakeTask) -> None:
    corpus = Corpus(parse_markdown("faq.md", "## A\nb"))
    world = World(make_task([{"name": "t", "default": 1}]), corpus)
    assert world.call("search_docs", {"query": "b"}) == ToolResult(
        error="unknown tool 'search_docs'; this world's tools are: t"
    )
