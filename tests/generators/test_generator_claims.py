"""Every claim in the written set is looked up, and bad data is refused with file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.corpus import CorpusLibrary
from bench.tasks.generators import DATA_DIR, GeneratorError, build_tasks
from bench.tasks.generators.claims import (
    call_in_transcript,
    phrase_in_passage,
    tools_named,
    value_in_document,
)
from bench.tasks.load import load_task_set
from bench.world import World

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO / "corpora"
TASKS = REPO / "tasks"


@pytest.fixture(scope="module")
def task_set() -> Any:
    return load_task_set(TASKS, CORPORA)


def test_every_must_include_phrase_is_in_the_passage_it_cites(task_set: Any) -> None:
    library = CorpusLibrary(CORPORA)
    checked = 0
    for task in task_set.tasks:
        if task.family != "grounded-qa":
            continue
        phrases = [e.value for e in task.expectations if e.type == "contains"]
        cited = [pid for e in task.expectations if e.type == "citations" for pid in e.required]
        for phrase in phrases:
            texts = [
                p.text for pid in cited for p in library.passages(pid.split("#")[0]) if p.id == pid
            ]
            assert texts and any(phrase_in_passage(phrase, t) for t in texts), task.id
            checked += 1
    assert checked == 64


def test_every_named_tool_is_in_the_tasks_tool_list(task_set: Any) -> None:
    for task in task_set.tasks:
        named = tools_named(e.model_dump(by_alias=True) for e in task.expectations)
        assert named <= set(task.tool_names()), (task.id, named - set(task.tool_names()))


def test_every_applied_call_is_in_its_transcript_and_its_writes_are_in_the_state(
    task_set: Any,
) -> None:
    library = CorpusLibrary(CORPORA)
    for task in task_set.tasks:
        if task.family != "multi-turn-state":
            continue
        messages = [m.model_dump() for m in task.input]
        base = World(task, library.corpus(task.corpus) if task.corpus else None)
        for message in task.input:
            for call in message.tool_calls:
                assert call_in_transcript(call.name, call.arguments, messages)
                result = next(
                    m for m in task.input if m.role == "tool" and m.tool_call_id == call.id
                )
                outcome = base.call(call.name, call.arguments)
                shown = {"error": outcome.error} if outcome.error else outcome.result
                if outcome.error:  # the world's own refusal text is what the transcript shows
                    assert json.loads(result.content)["error"] == outcome.error, task.id
                else:
                    assert json.loads(result.content) == shown, task.id


def test_every_extraction_value_is_in_the_rendered_invoice(task_set: Any) -> None:
    for task in task_set.tasks:
        if task.family != "structured-extraction":
            continue
        document = task.input[0].content
        fields = next(e for e in task.expectations if e.type == "fields").fields
        for name, value in fields.items():
            assert value_in_document(value, document), (task.id, name, value)


def test_every_plan_step_runs_in_its_world(task_set: Any) -> None:
    for task in task_set.tasks:
        if task.family != "long-horizon":
            continue
        world = World(task, None)
        steps = next(e for e in task.expectations if e.type == "steps").steps
        errors = []
        for step in steps:  # a step may leave free text (an SMS body) to the agent
            error = world.call(step.tool, step.args).error
            if error and not error.startswith("invalid arguments"):
                errors.append(step.tool)
        # the one plan whose first step is refused by the world on purpose
        assert errors in ([], ["skip_delivery"]), (task.id, errors)


def _copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def _line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_a_phrase_not_in_its_passage_is_refused_with_file_and_line(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    facts = data / "facts.yaml"
    text = facts.read_text(encoding="utf-8")
    facts.write_text(text.replace('Belgium and Germany"', 'Belgium and France"'), "utf-8")
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_PHRASE_NOT_IN_PASSAGE"
    assert caught.value.path == str(facts)
    assert caught.value.line == _line_of(facts, "id: address-change")
    assert "line" in caught.value.render() and "address-change" in caught.value.render()


def test_a_private_question_on_a_public_passage_is_refused(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    facts = data / "facts.yaml"
    text = facts.read_text(encoding="utf-8")
    own = 'passage: "private-faq.md#delivery-to-a-parcel-locker"'
    assert own in text
    facts.write_text(text.replace(own, 'passage: "faq.md#changing-a-delivery-address"'), "utf-8")
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_DATA_INVALID"
    assert caught.value.line == _line_of(facts, "id: address-change")
    assert "no public task needs" in caught.value.message


def test_private_grounded_questions_need_passages_no_public_task_needs(task_set: Any) -> None:
    from bench.tasks.distinct import shared_passages

    public_needs = {
        pid
        for task in task_set.tasks
        if task.split == "public"
        for e in task.expectations
        if e.type == "citations"
        for pid in e.required
    }
    private_needs = [
        pid
        for task in task_set.tasks
        if task.split == "private" and task.family == "grounded-qa"
        for e in task.expectations
        if e.type == "citations"
        for pid in e.required
    ]
    assert len(private_needs) == 32
    assert all(pid.startswith("private-") for pid in private_needs)
    assert set(private_needs).isdisjoint(public_needs)
    assert shared_passages(task_set.tasks) == []
    # public tasks never search the private documents
    for task in task_set.tasks:
        if task.split == "public":
            assert not [doc for doc in task.corpus if doc.startswith("private-")], task.id


def test_a_tool_not_in_its_world_is_refused(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    plans = data / "plans.yaml"
    plans.write_text(
        plans.read_text(encoding="utf-8").replace("forbidden: [depozito_iade]", "forbidden: [sil]"),
        "utf-8",
    )
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_TOOL_NOT_IN_WORLD"
    assert caught.value.line == _line_of(plans, "id: kira-dongusu")


def test_a_duplicated_id_is_refused(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    facts = data / "facts.yaml"
    facts.write_text(
        facts.read_text(encoding="utf-8").replace("id: tracking-prefix", "id: shipping-cutoff"),
        "utf-8",
    )
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_DUPLICATE_ID"
    assert caught.value.line == _line_of(facts, "passage: faq.md#tracking-a-parcel") - 1


def test_an_invoice_value_not_in_the_document_is_refused(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    invoices = data / "invoices.yaml"
    invoices.write_text(
        invoices.read_text(encoding="utf-8").replace("total: 290.4}", "total: 290.5}"), "utf-8"
    )
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_VALUE_NOT_IN_DOCUMENT"


def test_a_datum_without_because_is_refused(
    tmp_path: Path, corpus: tuple[dict[str, str], dict[str, bytes]]
) -> None:
    data = _copy_data(tmp_path)
    worlds = data / "worlds.yaml"
    text = worlds.read_text(encoding="utf-8")
    start = text.index("    because: The shop's order desk")
    end = text.index("\n", start) + 1
    worlds.write_text(text[:start] + text[end:], "utf-8")
    with pytest.raises(GeneratorError) as caught:
        build_tasks(corpus[0], data_dir=data)
    assert caught.value.code == "GEN_DATA_INVALID"
    assert "because" in caught.value.message
