"""The one-screen case format: import into task files, export back, and the example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import InputError
from bench.tasks.cases.convert import (
    from_tasks,
    load_case_file,
    parse_case_file,
    render_task_file,
    to_tasks,
)
from bench.tasks.expectations import Contains, Steps, Trajectory, default_axis
from bench.tasks.load import load_task_file, load_task_set
from bench.world import check_task_set

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cases" / "support-desk.json"

WORLD = [
    {"name": "search", "description": "Search the web.", "result": {"hits": ["Kettle"]}},
    {"name": "lookup", "description": "Look an order up.", "result": {"status": "shipped"}},
]


def _doc(*cases: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "demo", "language": "en", "tools": WORLD, "cases": list(cases), **extra}


def _import(tmp_path: Path, source: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    document = load_case_file(source)
    (out / "tasks.yaml").write_bytes(render_task_file(to_tasks(document), source.name))
    return out / "tasks.yaml"


def test_the_example_imports_validates_and_round_trips(tmp_path: Path) -> None:
    written = _import(tmp_path, EXAMPLE)
    task_set = load_task_set(written.parent)
    check_task_set(task_set)
    assert [t.id for t in task_set.tasks] == [
        "support-desk-open-issues-by-label",
        "support-desk-last-commit-author",
        "support-desk-next-monday",
        "support-desk-issue-then-comments",
        "support-desk-thanks",
    ]
    exported = from_tasks(load_task_file(written)).document()
    assert exported == json.loads(EXAMPLE.read_text(encoding="utf-8"))


def test_a_tool_case_is_a_trajectory_with_required_and_forbidden() -> None:
    step = {"message": "where is order 77?", "expect": "lookup", "evidence": ["shipped"]}
    step["forbidden"] = ["search"]
    (task,) = to_tasks(
        parse_case_file(_doc({"name": "a", "category": "tool", "steps": [step]}), Path("f"))
    )
    assert task.family == "tool-trajectory" and task.id == "demo-a"
    main, evidence = task.expectations
    assert isinstance(main, Trajectory) and main.required == ["lookup"]
    assert main.forbidden == ["search"] and default_axis(main) == "tool"
    assert isinstance(evidence, Contains) and evidence.value == "shipped" and evidence.note is None
    assert default_axis(evidence) == "answer"
    assert task.tags == ["suite:demo", "category:tool"]
    assert task.because == "One-screen case 'a' (tool) of 'demo'."
    assert task.tool_names() == ["search", "lookup"]


def test_an_irrelevance_case_allows_no_calls() -> None:
    case = {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]}
    (task,) = to_tasks(parse_case_file(_doc(case, requires=["lookup"]), Path("f")))
    (main,) = task.expectations
    assert isinstance(main, Trajectory) and main.max_calls == 0
    assert default_axis(main) == "irrelevance"
    assert task.tags == ["suite:demo", "category:irrelevance", "requires:lookup"]


def test_a_multi_step_case_is_ordered_steps_with_notes_per_step() -> None:
    steps = [
        {"message": "find kettles", "expect": "search", "evidence": ["Kettle"]},
        {"message": "is my order here yet", "expect": "lookup", "forbidden": ["search"]},
    ]
    document = parse_case_file(
        _doc({"name": "m", "category": "multi-step", "steps": steps}), Path("f")
    )
    (task,) = to_tasks(document)
    main, forbidden, evidence = task.expectations
    assert isinstance(main, Steps) and [s.tool for s in main.steps] == ["search", "lookup"]
    assert default_axis(main) == "step"
    assert isinstance(forbidden, Trajectory) and forbidden.forbidden == ["search"]
    assert forbidden.note == "step 2" and forbidden.axis == "step"
    assert isinstance(evidence, Contains) and evidence.note == "step 1"
    assert [m.content for m in task.input] == ["find kettles", "is my order here yet"]
    assert from_tasks([task]).document() == document.document()


def test_a_case_of_its_own_because_round_trips() -> None:
    case = {"name": "t", "category": "irrelevance", "steps": [{"message": "hi"}], "because": "Why."}
    document = parse_case_file(_doc(case), Path("f"))
    (task,) = to_tasks(document)
    assert task.because == "Why."
    assert from_tasks([task]).document() == document.document()


@pytest.mark.parametrize(
    ("case", "field", "message"),
    [
        (
            {"name": "x", "category": "tool", "steps": [{"message": "hi"}]},
            "cases[0]",
            "a 'tool' case has exactly one step, and that step has 'expect'",
        ),
        (
            {
                "name": "x",
                "category": "irrelevance",
                "steps": [{"message": "hi", "expect": "search"}],
            },
            "cases[0]",
            "an 'irrelevance' case expects no tool: drop 'expect'",
        ),
        (
            {
                "name": "x",
                "category": "multi-step",
                "steps": [{"message": "hi", "expect": "search"}],
            },
            "cases[0]",
            "a 'multi-step' case has two or more steps, each with 'expect'",
        ),
        (
            {
                "name": "x",
                "category": "tool",
                "steps": [{"message": "a", "expect": "search", "evidence": [""]}],
            },
            "cases[0].steps[0]",
            "evidence: an empty string matches every answer",
        ),
    ],
)
def test_a_malformed_case_is_refused_naming_the_field(
    case: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_case_file(_doc(case), Path("cases.json"))
    assert caught.value.code == "CASES_INVALID"
    assert caught.value.field == field
    assert caught.value.message == message


def test_duplicate_case_names_are_refused() -> None:
    case = {"name": "x", "category": "irrelevance", "steps": [{"message": "hi"}]}
    with pytest.raises(InputError, match=r"cases: duplicate name\(s\) x") as caught:
        parse_case_file(_doc(case, case), Path("cases.json"))
    assert caught.value.code == "CASES_INVALID"


def test_the_tool_world_comes_from_the_file_or_from_tools(tmp_path: Path) -> None:
    case = {"name": "x", "category": "tool", "steps": [{"message": "hi", "expect": "lookup"}]}
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"name": "demo", "cases": [case]}), encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": WORLD}), encoding="utf-8")
    assert [t.name for t in load_case_file(bare, tools).tools] == ["search", "lookup"]
    with pytest.raises(InputError) as caught:
        load_case_file(bare)
    assert caught.value.render() == (
        f"{bare}: tools: no tool world: give 'tools' in the file or a --tools FILE"
    )
    full = tmp_path / "full.json"
    full.write_text(json.dumps(_doc(case)), encoding="utf-8")
    with pytest.raises(InputError, match="use one tool world"):
        load_case_file(full, tools)


def test_a_task_the_format_cannot_express_is_refused_on_export() -> None:
    tasks = load_task_file(REPO / "examples" / "tasks" / "tool-trajectory.yaml")
    with pytest.raises(InputError) as caught:
        from_tasks(tasks)
    assert caught.value.code == "CASES_EXPORT"
    assert caught.value.message == (
        f"task '{tasks[0].id}' cannot be written in the one-screen format: "
        "the tasks do not share one 'suite:' tag"
    )
