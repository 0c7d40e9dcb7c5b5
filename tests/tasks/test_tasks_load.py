from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.errors import InputError
from bench.tasks import Task, load_task_set

BASE: dict[str, Any] = {
    "id": "gqa-0001",
    "family": "grounded-qa",
    "split": "public",
    "input": [{"role": "user", "content": "How long do refunds take?"}],
    "tools": [{"builtin": "search_docs"}],
    "corpus": ["faq.md"],
    "expectations": [
        {"type": "contains", "value": "14 days"},
        {"type": "citations", "required": ["faq.md#refunds"]},
    ],
    "because": "The refund window is asked about most.",
}


def write_set(tmp_path: Path, *tasks: dict[str, Any], name: str = "t.yaml") -> Path:
    root = tmp_path / "set"
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    (root / "corpora").mkdir(exist_ok=True)
    (root / "corpora" / "faq.md").write_text("# FAQ\n\n## Refunds\n\nWithin 14 days.\n")
    document = {"format_version": 1, "tasks": list(tasks)}
    (root / "tasks" / name).write_text(yaml.safe_dump(document, sort_keys=False))
    return root / "tasks"


def task(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def refusal(tmp_path: Path, *tasks: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as info:
        load_task_set(write_set(tmp_path, *tasks))
    return info.value


def test_a_valid_set_loads_with_its_corpus_root(tmp_path: Path) -> None:
    task_set = load_task_set(write_set(tmp_path, task()))
    assert [t.id for t in task_set.tasks] == ["gqa-0001"]
    assert task_set.corpus_root == tmp_path / "set" / "corpora"
    assert len(task_set.content_hash()) == 64


def test_refuses_a_task_with_no_because(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(because="  "))
    assert error.code == "TASK_INVALID"
    assert str(error).endswith(
        "t.yaml: tasks[0] (gqa-0001).because: a task must say why it exists ('because' is empty)"
    )
    data = task()
    del data["because"]
    assert "because: required field is missing" in str(refusal(tmp_path, data))


def test_refuses_an_unknown_expectation_type(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(expectations=[{"type": "vibes", "value": "x"}]))
    assert "tasks[0] (gqa-0001).expectations[0].type: unknown expectation type 'vibes'" in str(
        error
    )


def test_refuses_an_expectation_outside_the_family_vocabulary(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(expectations=[{"type": "fields", "fields": {"a": 1}}]))
    assert "type 'fields' is not in the grounded-qa vocabulary" in str(error)
    assert "t.yaml: tasks[0] (gqa-0001)" in str(error)


def test_refuses_missing_or_ill_typed_parameters(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(expectations=[{"type": "contains"}]))
    assert "tasks[0] (gqa-0001).expectations[0].value: required field is missing" in str(error)
    error = refusal(tmp_path, task(expectations=[{"type": "regex", "pattern": "("}]))
    assert "expectations[0].pattern: pattern does not compile" in str(error)


def test_refuses_the_same_task_in_both_splits_under_two_ids(tmp_path: Path) -> None:
    twin = task(id="gqa-0099", split="private", tags=["renamed"], because="Another reason.")
    error = refusal(tmp_path, task(), twin)
    assert error.code == "TASK_SPLIT_LEAK"
    assert "same task as 'gqa-0001'" in str(error) and "both splits (public and private)" in str(
        error
    )


def test_refuses_duplicate_ids(tmp_path: Path) -> None:
    other = task(input=[{"role": "user", "content": "Something else?"}])
    error = refusal(tmp_path, task(), other)
    assert error.code == "TASK_DUPLICATE_ID"
    assert "tasks[1] (gqa-0001).id" in str(error)


def test_refuses_a_missing_corpus_document(tmp_path: Path) -> None:
    error = refusal(
        tmp_path,
        task(corpus=["faq.md", "nope.md"]),
    )
    assert error.code == "CORPUS_MISSING"
    assert "tasks[0] (gqa-0001).corpus[1]: corpus document 'nope.md' not found" in str(error)


def test_refuses_a_corpus_path_that_escapes(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(corpus=["../secret.md"]))
    assert error.code == "CORPUS_PATH"


def test_refuses_unknown_fields(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(difficulty="hard"))
    assert "tasks[0] (gqa-0001).difficulty: unknown field" in str(error)


def test_refuses_malformed_yaml_with_the_line(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    (root / "t.yaml").write_text("format_version: 1\ntasks:\n  - id: [unclosed\n")
    with pytest.raises(InputError) as info:
        load_task_set(root)
    assert info.value.code == "YAML_INVALID"
    assert "t.yaml: line" in str(info.value)


def test_refuses_duplicate_yaml_keys(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    (root / "t.yaml").write_text("format_version: 1\nformat_version: 1\ntasks: []\n")
    with pytest.raises(InputError, match="duplicate key 'format_version'"):
        load_task_set(root)


def test_refuses_malformed_json(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    (root / "t.yaml").unlink()
    (root / "t.json").write_text('{"format_version": 1, "tasks": [}')
    with pytest.raises(InputError) as info:
        load_task_set(root)
    assert info.value.code == "JSON_INVALID"
    assert "line 1 column" in str(info.value)


def test_search_docs_needs_a_corpus(tmp_path: Path) -> None:
    error = refusal(tmp_path, task(corpus=[], expectations=[{"type": "contains", "value": "x"}]))
    assert "search_docs needs a corpus" in str(error)


def test_citing_a_document_outside_the_task_corpus_is_refused(tmp_path: Path) -> None:
    error = refusal(
        tmp_path, task(expectations=[{"type": "citations", "required": ["policy.md#x"]}])
    )
    assert "'policy.md' is not in this task's corpus" in str(error)


def test_fingerprint_moves_with_the_question_and_scoring_not_bookkeeping() -> None:
    original = Task.model_validate(task())
    bookkeeping = Task.model_validate(
        task(id="gqa-0777", split="private", tags=["x"], because="Different words.")
    )
    assert original.fingerprint() == bookkeeping.fingerprint()
    asked = Task.model_validate(task(input=[{"role": "user", "content": "How long?"}]))
    scored = Task.model_validate(task(expectations=[{"type": "contains", "value": "15 days"}]))
    assert asked.fingerprint() != original.fingerprint()
    assert scored.fingerprint() != original.fingerprint()


def test_split_selection(tmp_path: Path) -> None:
    other = task(id="gqa-0002", split="private", input=[{"role": "user", "content": "Q2?"}])
    task_set = load_task_set(write_set(tmp_path, task(), other))
    assert [t.id for t in task_set.select("private").tasks] == ["gqa-0002"]
    assert [t.id for t in task_set.select(None, ["gqa-0001"]).tasks] == ["gqa-0001"]


def test_content_hash_moves_with_a_corpus_byte(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    before = load_task_set(root).content_hash()
    (root.parent / "corpora" / "faq.md").write_text("# FAQ\n\n## Refunds\n\nWithin 15 days.\n")
    assert load_task_set(root).content_hash() != before


def test_refuses_values_json_cannot_hold(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    data = task(state={"orders": {"1041": {"placed": "2026-07-14"}}})
    document = {"format_version": 1, "tasks": [data]}
    raw = yaml.safe_dump(document, sort_keys=False).replace("'2026-07-14'", "2026-07-14")
    (root / "t.yaml").write_text(raw)
    with pytest.raises(InputError) as info:
        load_task_set(root)
    assert "state.orders.1041.placed: a date is not a JSON value (quote it in the task file)" in (
        str(info.value)
    )


def test_refuses_an_invalid_json_schema_and_stray_field_weights(tmp_path: Path) -> None:
    schema = task(
        family="structured-extraction",
        tools=[],
        corpus=[],
        expectations=[{"type": "schema", "schema": {"type": "nonsense"}}],
    )
    assert "not a valid JSON Schema" in str(refusal(tmp_path, schema))
    weights = task(
        family="structured-extraction",
        tools=[],
        corpus=[],
        expectations=[{"type": "fields", "fields": {"total": 1}, "weights": {"totl": 2}}],
    )
    assert "weights for fields the check does not list: totl" in str(refusal(tmp_path, weights))


def test_refuses_yaml_anchors_and_aliases(tmp_path: Path) -> None:
    root = write_set(tmp_path, task())
    text = (root / "t.yaml").read_text()
    (root / "t.yaml").write_text(text.replace("format_version: 1", "format_version: &v 1\nx: *v"))
    with pytest.raises(InputError) as info:
        load_task_set(root)
    assert info.value.code == "YAML_INVALID"
    assert "anchors and aliases are not allowed" in str(info.value)


def test_equal_tool_definitions_are_kept_once() -> None:
    root = Path(__file__).resolve().parents[2]
    task_set = load_task_set(root / "tasks")
    tools = [tool for task in task_set.tasks for tool in task.tools]
    distinct = {id(tool) for tool in tools}
    assert len(distinct) < len(tools)  # shared
    by_content: dict[str, set[int]] = {}
    for tool in tools:
        by_content.setdefault(tool.model_dump_json(), set()).add(id(tool))
    assert all(len(ids) == 1 for ids in by_content.values())  # one object per content
    assert len(by_content) == len(distinct)  # and never two contents in one object
