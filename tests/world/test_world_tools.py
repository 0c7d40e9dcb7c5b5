"""Data-defined tools: validation, cases, reads, writes, defaults, isolation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from bench.core.trace import ToolDef
from bench.tasks.model import Task
from bench.world import ToolResult, World

MakeTask = Callable[..., Task]

ORDER_ID: dict[str, Any] = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
    "additionalProperties": False,
}

STATE: dict[str, Any] = {
    "orders": {
        "1042": {"status": "shipped", "items": ["mug"]},
        "1043": {"status": "processing", "items": []},
    },
    "customer": {"name": "Ada"},
}

LOOKUP: dict[str, Any] = {
    "name": "lookup_order",
    "description": "Look up one order by id.",
    "parameters": ORDER_ID,
    "reads": "orders.{order_id}",
}

CANCEL: dict[str, Any] = {
    "name": "cancel_order",
    "kind": "write",
    "parameters": ORDER_ID,
    "cases": [{"when": {"order_id": "1042"}, "error": "order 1042 has already shipped"}],
    "reads": "orders.{order_id}.status",
    "writes": [
        {"path": "orders.{order_id}.status", "value": "cancelled"},
        {"path": "log.cancelled.{order_id}", "value": "cancelled {order_id} for {order_id}"},
    ],
}


@pytest.fixture
def world(make_task: MakeTask) -> World:
    return World(make_task([LOOKUP, CANCEL], state=STATE), None)


def test_tool_defs_in_task_order(world: World) -> None:
    assert world.tool_defs() == [
        ToolDef(name="lookup_order", description="Look up one order by id.", parameters=ORDER_ID),
        ToolDef(name="cancel_order", description="", parameters=ORDER_ID),
    ]


def test_tool_parts_are_made_once_per_task_and_are_what_the_recorder_makes(
    world: World,
) -> None:
    """Every fresh world of a task shares one list of its tools' JSON forms and canonical
    bytes; a request recorded with them offered is the request recorded without (its dump and
    its hash), so cassettes match whichever made the parts."""
    from bench.core.canonical import canonical_json
    from bench.core.trace import Message
    from bench.runner.recording import RequestRecorder
    from bench.targets.base import ModelRequest

    first, second = world.fresh(), world.fresh()
    parts = first.tool_parts()
    assert second.tool_parts() is parts and world.tool_parts() is parts
    defs = second.tool_defs()
    assert parts == [(d.model_dump(mode="json"), canonical_json(d.model_dump(mode="json")))
                     for d in defs]  # fmt: skip
    request = ModelRequest(model="m", messages=[Message(role="user", content="hi")], tools=defs)
    offered = RequestRecorder()
    offered.offer(defs, parts)
    assert offered.wire(request) == RequestRecorder().wire(request)
    assert offered.wire(request) == (request.wire(), request.request_hash())


def test_schema_violations_name_the_argument(world: World) -> None:
    assert world.call("lookup_order", {"order_id": 1041}) == ToolResult(
        error="invalid arguments for lookup_order: "
        "argument 'order_id': 1041 is not of type 'string'"
    )
    assert world.call("lookup_order", {}) == ToolResult(
        error="invalid arguments for lookup_order: 'order_id' is a required property"
    )
    assert world.call("lookup_order", {"order_id": "1042", "x": 1}) == ToolResult(
        error="invalid arguments for lookup_order: "
        "Additional properties are not allowed ('x' was unexpected)"
    )


def test_nested_argument_paths_are_named(make_task: MakeTask) -> None:
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"qty": {"type": "integer"}}},
            }
        },
    }
    world = World(make_task([{"name": "add", "parameters": schema, "default": "ok"}]), None)
    assert world.call("add", {"items": [{"qty": 1}, {"qty": "two"}]}).error == (
        "invalid arguments for add: argument 'items[1].qty': 'two' is not of type 'integer'"
    )


def test_arguments_that_are_not_a_json_object(world: World) -> None:
    assert world.call("lookup_order", ["1042"]) == ToolResult(  # type: ignore[arg-type]
        error="arguments for lookup_order must be a JSON object, not list"
    )
    assert world.call("lookup_order", {"order_id": float("nan")}) == ToolResult(
        error="arguments for lookup_order are not JSON (NaN, Infinity or worse)"
    )


def test_unknown_tool(world: World) -> None:
    assert world.call("delete_everything", {}) == ToolResult(
        error="unknown tool 'delete_everything'; this world's tools are: lookup_order, cancel_order"
    )


def test_unknown_tool_in_an_empty_world(make_task: MakeTask) -> None:
    assert World(make_task([]), None).call("x", {}).error == (
        "unknown tool 'x'; this world's tools are: none"
    )


def test_reads(world: World) -> None:
    assert world.call("lookup_order", {"order_id": "1043"}) == ToolResult(
        result={"status": "processing", "items": []}
    )
    assert world.call("lookup_order", {"order_id": "9999"}) == ToolResult(
        error="no orders.9999 in this world"
    )


def test_a_dotted_argument_is_one_key(world: World) -> None:
    assert world.call("lookup_order", {"order_id": "1042.status"}) == ToolResult(
        error="no orders.1042.status in this world"
    )


def test_a_case_error_blocks_the_writes(world: World) -> None:
    assert world.call("cancel_order", {"order_id": "1042"}) == ToolResult(
        error="order 1042 has already shipped"
    )
    assert world.state == STATE


def test_write_then_read_sees_the_new_state(world: World) -> None:
    # The result is read before the writes apply.
    assert world.call("cancel_order", {"order_id": "1043"}) == ToolResult(result="processing")
    assert world.call("lookup_order", {"order_id": "1043"}) == ToolResult(
        result={"status": "cancelled", "items": []}
    )
    assert world.state["log"] == {"cancelled": {"1043": "cancelled 1043 for 1043"}}
    assert world.state["orders"]["1042"] == STATE["orders"]["1042"]


def test_a_failed_read_means_no_write(world: World) -> None:
    assert world.call("cancel_order", {"order_id": "7"}) == ToolResult(
        error="no orders.7.status in this world"
    )
    assert world.state == STATE


def test_writes_apply_all_or_nothing(make_task: MakeTask) -> None:
    tool = {
        "name": "tag",
        "kind": "write",
        "parameters": ORDER_ID,
        "default": {"ok": True},
        "writes": [
            {"path": "tagged.{order_id}", "value": True},
            {"path": "customer.name.{order_id}", "value": "x"},
        ],
    }
    world = World(make_task([tool], state=STATE), None)
    assert world.call("tag", {"order_id": "1"}) == ToolResult(
        error="tag failed: cannot set customer.name.1: customer.name has no place for '1'"
    )
    assert world.state == STATE


def test_whole_template_values_keep_their_json_type(make_task: MakeTask) -> None:
    tool = {
        "name": "set_qty",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            "required": ["sku", "qty"],
        },
        "default": "done",
        "writes": [
            {
                "path": "cart.{sku}",
                "value": {"qty": "{qty}", "label": "{qty} x {sku}", "raw": "{nope"},
            },
            {"path": "lines.0", "value": "{sku}"},
        ],
    }
    world = World(make_task([tool], state={"lines": ["old"]}), None)
    assert world.call("set_qty", {"sku": "mug", "qty": 2}) == ToolResult(result="done")
    assert world.state == {
        "lines": ["mug"],
        "cart": {"mug": {"qty": 2, "label": "2 x mug", "raw": "{nope"}},
    }


CASES: dict[str, Any] = {
    "name": "price",
    "parameters": {"type": "object"},
    "cases": [
        {"when": {"id": 1}, "result": "int one"},
        {"when": {"id": "1"}, "result": "string one"},
        {"when": {"id": True}, "result": "true"},
        {"when": {"id": None}, "result": "null"},
        {"when": {"id": {"a": [1, 2]}}, "result": "object"},
        {"when": {"id": 2, "region": "eu"}, "result": "two in eu"},
        {"when": {"id": 2}, "result": "two anywhere"},
    ],
    "default": "default",
}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"id": 1}, "int one"),
        ({"id": 1.0}, "int one"),
        ({"id": "1"}, "string one"),
        ({"id": True}, "true"),
        ({"id": False}, "default"),
        ({"id": 0}, "default"),
        ({"id": None}, "null"),
        ({}, "default"),
        ({"id": {"a": [1, 2]}}, "object"),
        ({"id": {"a": [2, 1]}}, "default"),
        ({"id": 2, "region": "eu"}, "two in eu"),
        ({"region": "eu", "id": 2}, "two in eu"),
        ({"id": 2, "region": "us"}, "two anywhere"),
        ({"id": 2}, "two anywhere"),
    ],
)
def test_case_matching(make_task: MakeTask, arguments: dict[str, Any], expected: str) -> None:
    world = World(make_task([CASES]), None)
    assert world.call("price", arguments) == ToolResult(result=expected)


def test_empty_when_matches_every_call(make_task: MakeTask) -> None:
    tool = {"name": "always", "cases": [{"when": {}, "result": [1]}], "default": [2]}
    assert World(make_task([tool]), None).call("always", {"x": 1}) == ToolResult(result=[1])


def test_no_case_no_reads_no_default(make_task: MakeTask) -> None:
    tool = {"name": "quote", "cases": [{"when": {"sku": "mug"}, "result": 9.5}]}
    world = World(make_task([tool]), None)
    assert world.call("quote", {"sku": "mug"}) == ToolResult(result=9.5)
    assert world.call("quote", {"sku": "pen", "n": 1}) == ToolResult(
        error='quote has no result for the arguments {"n":1,"sku":"pen"}'
    )


def test_an_explicit_null_default_is_a_result(make_task: MakeTask) -> None:
    world = World(make_task([{"name": "noop", "default": None}]), None)
    assert world.call("noop", {}) == ToolResult(result=None, error=None)


def test_results_and_state_are_copies(world: World) -> None:
    first = world.call("lookup_order", {"order_id": "1042"})
    first.result["items"].append("stolen")
    world.state["orders"].clear()
    assert world.call("lookup_order", {"order_id": "1042"}).result == {
        "status": "shipped",
        "items": ["mug"],
    }
    arguments = {"order_id": "1043"}
    world.call("cancel_order", arguments)
    arguments["order_id"] = "1042"
    assert world.state["log"] == {"cancelled": {"1043": "cancelled 1043 for 1043"}}


def test_each_world_starts_from_the_task_state(make_task: MakeTask) -> None:
    task = make_task([LOOKUP, CANCEL], state=STATE)
    first = World(task, None)
    first.call("cancel_order", {"order_id": "1043"})
    assert World(task, None).state == STATE
    assert task.state == STATE


def test_a_fresh_world_is_a_new_world_whatever_the_old_one_did(make_task: MakeTask) -> None:
    task = make_task([LOOKUP, CANCEL], state=STATE)
    used = World(task, None)
    assert used.call("cancel_order", {"order_id": "1043"}) == ToolResult(result="processing")
    defs = used.tool_defs()
    defs[0].parameters["required"].append("smuggled")
    fresh, again = used.fresh(), used.fresh()
    assert fresh.state == again.state == World(task, None).state == STATE
    assert fresh.tool_defs() == World(task, None).tool_defs() != defs
    calls = [
        ("cancel_order", {"order_id": "1043"}),
        ("lookup_order", {"order_id": "1043"}),
        ("cancel_order", {"order_id": "1042"}),
        ("lookup_order", {"order_id": 1043}),
        ("cancel_order", {"order_id": "9"}),
    ]
    new = World(task, None)
    assert [fresh.call(n, a) for n, a in calls] == [new.call(n, a) for n, a in calls]
    assert fresh.state == new.state != STATE
    assert again.state == STATE  # one fresh world's writes are not another's


def test_integer_state_keys_become_strings(make_task: MakeTask) -> None:
    with pytest.raises(ValidationError, match="the key 1042 is not a JSON value"):
        make_task([LOOKUP], state={"orders": {1042: {"status": "shipped"}}})
    unchecked = make_task([LOOKUP]).model_copy(
        update={"state": {"orders": {1042: {"status": "shipped"}}}}
    )
    world = World(unchecked, None)
    assert world.call("lookup_order", {"order_id": "1042"}) == ToolResult(
        result={"status": "shipped"}
    )


def test_every_shipped_task_offers_its_schemas_as_written_and_unshared() -> None:
    """Each tool's parameters as the model sees them: equal to the task's, key for key in the
    task's order (request hashes and cassettes depend on it), and a copy no one shares."""
    import json
    from pathlib import Path

    from bench.tasks.load import load_task_set

    tasks = Path(__file__).resolve().parents[2] / "tasks"
    loaded = load_task_set(tasks)
    for task in loaded.tasks:
        if not task.tools or any(hasattr(t, "builtin") for t in task.tools):
            continue  # search_docs needs a corpus; its schema is the builtin's
        world = World(task, None)
        written = {t.name: t.parameters for t in task.tools}
        for offered in world.tool_defs():
            assert json.dumps(offered.parameters) == json.dumps(written[offered.name])
            assert offered.parameters is not written[offered.name]
        first = world.tool_defs()[0].parameters
        first["smuggled"] = True
        assert "smuggled" not in world.fresh().tool_defs()[0].parameters
        assert "smuggled" not in written[world.tool_defs()[0].name]
