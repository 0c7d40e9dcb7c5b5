"""Every `bench check` rule, on a one-screen case and on the ordinary task it imports to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.cli.check_cmd import bm25_ranker
from bench.tasks.cases.check import (
    Policy,
    check,
    from_case_file,
    from_tasks,
    missing_tools,
)
from bench.tasks.cases.convert import parse_case_file, to_tasks

WORLD = [
    {"name": "search", "description": "Search the web for news and prices."},
    {"name": "lookup", "description": "Look an order up by its number."},
]
ALL = Policy()
TOP1 = Policy(kind="top-k", k=1, ranker=bm25_ranker)


def _tool(message: str, expect: str = "lookup", **step: Any) -> dict[str, Any]:
    return {
        "name": "c",
        "category": "tool",
        "steps": [{"message": message, "expect": expect, **step}],
    }


def _both(case: dict[str, Any], policy: Policy) -> tuple[list[str], list[str]]:
    document = parse_case_file({"name": "demo", "tools": WORLD, "cases": [case]}, Path("c.json"))
    one = check([from_case_file(document, "c.json")], policy)
    ordinary = check([from_tasks(to_tasks(document, refuse_unknown=False), "t.yaml")], policy)
    return [f.line() for f in one], [f.line() for f in ordinary]


MULTI: dict[str, Any] = {
    "name": "c",
    "category": "multi-step",
    "steps": [
        {"message": "search the news", "expect": "search"},
        {"message": "look order 42 up", "expect": "lookup", "forbidden": ["search"]},
    ],
}

RULES = [
    (
        "evidence-short",
        _tool("where is order A?", evidence=["7"]),
        ALL,
        "steps[0]",
        "expectations[1]",
        "evidence '7' is 1 character(s); unrelated answers contain it too (at least 3)",
    ),
    (
        "evidence-short",
        _tool("where is order A?", evidence=[" ok "]),
        ALL,
        "steps[0]",
        "expectations[1]",
        "evidence ' ok ' is 2 character(s); unrelated answers contain it too (at least 3)",
    ),
    (
        "evidence-no-content",
        _tool("where is order A?", evidence=["..."]),
        ALL,
        "steps[0]",
        "expectations[1]",
        "evidence '...' has no letter or digit",
    ),
    (
        "evidence-in-number",
        _tool("is order 18,000 shipped?", evidence=["8,0"]),
        ALL,
        "steps[0]",
        "expectations[1]",
        "evidence '8,0' is part of the number 18,000 the question already gives",
    ),
    (
        "evidence-in-question",
        _tool("is order A shipped?", evidence=["Shipped"]),
        ALL,
        "steps[0]",
        "expectations[1]",
        "evidence 'Shipped' is already in the question; repeating it passes",
    ),
    (
        "forbidden-unknown",
        _tool("where is order A?", forbidden=["web_browse"]),
        ALL,
        "steps[0]",
        "expectations[0]",
        "forbidden 'web_browse' is not a tool here (search, lookup)",
    ),
    (
        "forbidden-expected",
        MULTI,
        ALL,
        "steps[1]",
        "expectations[1]",
        "'search' is both expected and forbidden",
    ),
    (
        "expect-unknown",
        _tool("cancel order A", expect="cancel"),
        ALL,
        "steps[0]",
        "expectations[0]",
        "expected tool 'cancel' is not a tool here (search, lookup)",
    ),
    (
        "unreachable",
        _tool("look my order up", expect="search"),
        TOP1,
        "steps[0]",
        "expectations[0]",
        "expected tool 'search' is never shown under top-1 (shown: lookup); fix or remove the case",
    ),
    (
        "unreachable",
        _tool("thank you kindly", expect="search"),
        Policy(kind="top-k", k=9, ranker=bm25_ranker),
        "steps[0]",
        "expectations[0]",
        "expected tool 'search' is never shown under top-9 (shown: nothing); "
        "fix or remove the case",
    ),
]


@pytest.mark.parametrize(
    ("rule", "case", "policy", "case_label", "task_label", "text"),
    RULES,
    ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)],
)
def test_each_rule_finds_the_same_thing_in_both_formats(
    rule: str, case: dict[str, Any], policy: Policy, case_label: str, task_label: str, text: str
) -> None:
    one, ordinary = _both(case, policy)
    assert one == [f"c.json: cases[0] (c): {case_label}: {text} [{rule}]"]
    assert ordinary == [f"t.yaml: tasks[0] (demo-c): {task_label}: {text} [{rule}]"]


@pytest.mark.parametrize(
    "case",
    [
        _tool("where is order A?", evidence=["shipped", "A-17"]),
        _tool("is order 18000 shipped?", evidence=["18000 units"], forbidden=["search"]),
        _tool("look my order up", expect="lookup"),
        {**MULTI, "steps": [MULTI["steps"][0], {**MULTI["steps"][1], "forbidden": []}]},
        {"name": "c", "category": "irrelevance", "steps": [{"message": "thanks!"}]},
    ],
)
def test_a_sound_case_has_no_findings_in_either_format(case: dict[str, Any]) -> None:
    assert _both(case, TOP1) == ([], [])


def test_the_policy_all_shows_every_tool() -> None:
    assert _both(_tool("look my order up", expect="search"), ALL) == ([], [])


def test_requires_names_the_missing_tools_in_both_formats() -> None:
    case = {"name": "c", "category": "irrelevance", "steps": [{"message": "thanks!"}]}
    raw = {"name": "demo", "requires": ["search", "mail"], "tools": WORLD, "cases": [case]}
    document = parse_case_file(raw, Path("c.json"))
    for checked in (from_case_file(document, "c"), from_tasks(to_tasks(document), "t")):
        assert missing_tools(checked, None) == ["mail"]
        assert missing_tools(checked, ["search", "mail"]) == []
        assert missing_tools(checked, ["lookup"]) == ["search", "mail"]


def test_the_bm25_ranker_ranks_by_name_and_description() -> None:
    world = [(t["name"], t["description"]) for t in WORLD]
    assert bm25_ranker("news about prices", world, 9) == ["search"]
    assert bm25_ranker("search for order 42", world, 1) == ["search"]
    assert bm25_ranker("search for order 42", world, 9) == ["search", "lookup"]
