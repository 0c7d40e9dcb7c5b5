"""``bench suite import bfcl``: what it writes, the id map, the schemas, the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.errors import InputError
from bench.suites.bfcl import (
    CATEGORIES,
    Imported,
    bfcl_id,
    locate,
    read_category,
    task_id,
    tool_spec,
)
from bench.tasks.expectations import Calls
from bench.tasks.model import Task, ToolSpec


@pytest.mark.parametrize(
    ("original", "mapped"),
    [
        ("simple_python_0", "simple-python-0"),
        ("live_simple_0-0-0", "live-simple-0--0--0"),
        ("live_irrelevance_12-3-40", "live-irrelevance-12--3--40"),
    ],
)
def test_ids_map_both_ways(original: str, mapped: str) -> None:
    assert task_id(original) == mapped
    assert bfcl_id(mapped) == original


@pytest.mark.parametrize("bad", ["a_-b", "a-_b", "Simple_1", "x.y", "_lead"])
def test_ids_that_cannot_map_reversibly_are_refused(bad: str) -> None:
    with pytest.raises(InputError) as caught:
        task_id(bad)
    assert caught.value.code == "SUITE_ID"


def test_every_imported_id_round_trips(bfcl_suite: tuple[Imported, tuple[Task, ...]]) -> None:
    _, tasks = bfcl_suite
    for task in tasks:
        original = next(t.removeprefix("bfcl:id=") for t in task.tags if t.startswith("bfcl:id="))
        assert bfcl_id(task.id) == original
        assert task_id(original) == task.id


def test_every_category_is_imported_whole_but_the_listed_cases(
    bfcl_package: Path, bfcl_suite: tuple[Imported, tuple[Task, ...]]
) -> None:
    imported, tasks = bfcl_suite
    source = locate(bfcl_package)
    assert source.version == "2026.3.23"
    assert "Apache" in source.licence
    left_out = {case for case, _ in (*imported.dropped, *imported.unpassable, *imported.unshowable)}
    assert len(imported.dropped) == 3 and len(imported.unpassable) == 7
    assert [case for case, _ in imported.unshowable] == [
        "live_irrelevance_263-56-6",
        "live_irrelevance_372-81-33",
        "live_irrelevance_737-251-0",
    ]
    for category in CATEGORIES:
        originals = [entry["id"] for entry, _ in read_category(source, category)]
        kept = [o for o in originals if o not in left_out]
        assert imported.counts[category] == len(kept) > 0, category
    assert len(tasks) == imported.total == 3628
    assert all(t.family == "tool-trajectory" and t.split == "public" for t in tasks)


def test_schemas_are_what_bfcls_openai_handler_sends_with_the_original_types_kept() -> None:
    function = {
        "name": "math.hypot",
        "description": "Length of a vector.",
        "parameters": {
            "type": "dict",
            "properties": {
                "x": {"type": "float", "description": "x"},
                "pair": {"type": "tuple", "items": {"type": "integer"}, "description": "p"},
                "opts": {"type": "dict", "properties": {"r": {"type": "float"}}},
                "anything": {"type": "any", "description": "a"},
            },
            "required": ["x"],
        },
    }
    spec = ToolSpec.model_validate(tool_spec(function, "python"))
    assert spec.name == "math_hypot"
    assert spec.description.endswith("Note that the provided function is in Python 3 syntax.")
    props = spec.parameters["properties"]
    assert spec.parameters["type"] == "object"
    assert props["x"] == {
        "type": "number",
        "format": "float",
        "description": "x This is a float type value.",
        "x-bfcl-type": "float",
    }
    assert props["pair"]["type"] == "array" and props["pair"]["items"] == {"type": "integer"}
    assert props["pair"]["x-bfcl-type"] == "tuple" and props["pair"]["x-bfcl-items"] == "integer"
    assert props["opts"]["type"] == "object"
    assert props["opts"]["properties"]["r"]["type"] == "number"
    assert props["anything"]["type"] == "string" and props["anything"]["x-bfcl-type"] == "any"
    assert function["parameters"]["properties"]["x"]["type"] == "float"  # the input untouched


def test_java_arguments_become_strings_with_the_type_in_the_description() -> None:
    function = {
        "name": "Util.join",
        "description": "Join.",
        "parameters": {
            "type": "dict",
            "properties": {
                "parts": {"type": "ArrayList", "items": {"type": "String"}, "description": "p"},
                "n": {"type": "long", "description": "n"},
            },
            "required": ["parts"],
        },
    }
    props = tool_spec(function, "java")["parameters"]["properties"]
    assert props["parts"]["type"] == "string" and "items" not in props["parts"]
    assert props["parts"]["x-bfcl-type"] == "ArrayList"
    assert props["parts"]["x-bfcl-items"] == "String"
    assert (
        "This is Java ArrayList type parameter in string representation."
        in (props["parts"]["description"])
    )
    assert props["n"] == {
        "type": "string",
        "description": "n This is Java long type parameter in string representation.",
        "x-bfcl-type": "long",
    }


def test_the_checks_carry_the_ground_truth(bfcl_suite: tuple[Imported, tuple[Task, ...]]) -> None:
    _, tasks = bfcl_suite
    by_id = {task.id: task for task in tasks}
    simple = by_id["simple-python-0"].expectations[0]
    assert isinstance(simple, Calls) and simple.language == "python"
    assert [call.tool for call in simple.calls] == ["calculate_triangle_area"]
    assert simple.calls[0].args["unit"] == ["units", ""]
    irrelevant = by_id["irrelevance-0"].expectations[0]
    assert isinstance(irrelevant, Calls) and irrelevant.calls == [] and not irrelevant.any_call
    relevant = by_id["live-relevance-0--0--0"].expectations[0]
    assert isinstance(relevant, Calls) and relevant.any_call
    java = by_id["simple-java-0"].expectations[0]
    assert isinstance(java, Calls) and java.language == "java"
    assert "bfcl:category=simple_java" in by_id["simple-java-0"].tags


def test_the_command_writes_task_files_bench_task_validate_accepts(
    bfcl_package: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    out = tmp_path / "bfcl"
    done = runner.invoke(
        cli,
        [
            "suite",
            "import",
            "bfcl",
            "--out",
            str(out),
            "--source",
            str(bfcl_package),
            "--category",
            "simple_java",
            "--category",
            "live_relevance",
            "--format",
            "json",
        ],
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.output)
    assert payload["categories"] == {"simple_java": 98, "live_relevance": 16}
    assert payload["bfcl_eval"] == "2026.3.23"
    readme = (out / "README.md").read_text()
    assert "Berkeley Function Calling Leaderboard" in readme and "Apache" in readme
    assert "`simple_java_36`" in readme
    checked = runner.invoke(cli, ["task", "validate", str(out / "tasks")])
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith("ok: 114 task(s) in 2 file(s)")


def test_bad_sources_and_categories_are_refused_with_codes(
    bfcl_package: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    empty = tmp_path / "not-bfcl"
    empty.mkdir()
    done = runner.invoke(
        cli, ["suite", "import", "bfcl", "--out", str(tmp_path / "o"), "--source", str(empty)]
    )
    assert done.exit_code == 3
    assert "error[SUITE_SOURCE_MISSING]" in done.output
    done = runner.invoke(
        cli,
        [
            "suite",
            "import",
            "bfcl",
            "--out",
            str(tmp_path / "o"),
            "--source",
            str(bfcl_package),
            "--category",
            "multi_turn_base",
        ],
    )
    assert done.exit_code == 3
    assert "error[SUITE_CATEGORY]: unknown or unsupported BFCL categories: multi_turn_base" in (
        done.output
    )


ENTRANT = '''
import json
from pathlib import Path

from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())


def oracle(request: ModelRequest) -> ModelResponse:
    """Calls what the ground truth lists first, once; then answers."""
    if any(m.role == "tool" for m in request.messages):
        return ModelResponse(content="done")
    key = json.dumps([[m.content for m in request.messages if m.role == "user"],
                      sorted(t.name for t in request.tools)])
    calls = [ToolCallRequest(id=f"c{i}", name=name, arguments=args)
             for i, (name, args) in enumerate(ANSWERS[key])]
    return ModelResponse(content="" if calls else "No function fits.", tool_calls=calls)
'''


def test_the_oracle_entrant_passes_through_the_whole_runner(
    bfcl_suite: tuple[Imported, tuple[Task, ...]], tmp_path: Path
) -> None:
    """The same chain as any task set: bench run → trace → the calls scorer → the summary."""
    from bench import api
    from bench.suites.astmatch import signature_of
    from bench.suites.oracle import oracle

    imported, tasks = bfcl_suite
    per_category: dict[str, list[Task]] = {}
    for task in tasks:
        category = next(g for g in task.tags if g.startswith("bfcl:category="))
        per_category.setdefault(category, []).append(task)
    chosen = [task for group in per_category.values() for task in group[:3]]
    assert len(per_category) == 13 and len(chosen) == 39
    answers: dict[str, list[list[object]]] = {}
    for task in chosen:
        check = task.expectations[0]
        assert isinstance(check, Calls)
        specs = [tool for tool in task.tools if isinstance(tool, ToolSpec)]
        signatures = {tool.name: signature_of(tool.name, tool.parameters) for tool in specs}
        made = oracle(signatures, check.calls, check.language)
        if check.any_call:
            made = [(specs[0].name, {})]
        key = json.dumps(
            [[m.content for m in task.input if m.role == "user"], sorted(t.name for t in specs)]
        )
        answers[key] = [list(call) for call in made]
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    (tmp_path / "entrant.py").write_text(ENTRANT)
    (tmp_path / "target.yaml").write_text(
        "format_version: 1\nkind: scripted\nentrant: bfcl-oracle\ndisplay_name: BFCL oracle\n"
        "model: oracle\n"
        "callable: entrant.py:oracle\n"
    )
    summary = api.run(
        imported.out / "tasks",
        tmp_path / "target.yaml",
        task_ids=[t.id for t in chosen],
        concurrency=2,
        runs_dir=tmp_path / "runs",
    )
    assert summary.outcomes.get("scored") == len(chosen)
    assert [s.task_id for s in summary.task_scores if s.value != 1.0] == []


def test_a_reference_checker_that_cannot_be_installed_fails_the_tests_not_skips_them() -> None:
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(
        "bfcl_conftest_probe", Path(__file__).with_name("conftest.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(pytest.fail.Exception) as failed:
        module._run([sys.executable, "-c", "raise SystemExit('no route to PyPI')"], "install x")
    assert "cannot install x" in str(failed.value)
    assert "no route to PyPI" in str(failed.value)
    assert "--require-hashes" in str(failed.value)


def test_an_import_a_full_disk_stops_leaves_the_old_one_or_the_whole_new_one(
    bfcl_package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file at a time, a full disk (or a signal) left some categories new beside old ones
    under the old suite.json and README (helper F12); now it is all or none."""
    import errno
    import os
    import shutil

    from bench.suites.bfcl import import_bfcl

    def tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    real = os.fsync
    calls = [0]
    fail_at = [0]

    def fsync(fd: int) -> None:  # the disk is full at the fail_at-th sync
        calls[0] += 1
        if calls[0] == fail_at[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    few, more = ["simple_python"], ["simple_python", "simple_java", "multiple"]
    out = tmp_path / "bfcl"
    import_bfcl(out, bfcl_package, more)
    new, total = tree(out), calls[0]
    shutil.rmtree(out)
    import_bfcl(out, bfcl_package, few)
    old = tree(out)
    for at in range(1, total + 1):
        calls[0], fail_at[0] = 0, at
        with pytest.raises(OSError) as info:
            import_bfcl(out, bfcl_package, more)
        assert info.value.filename is not None
        now = tree(out)
        assert now in (old, new), (at, sorted(set(now) ^ set(old)))
        if now == new:  # failed at the last sync, the set whole: start from the old again
            fail_at[0] = 0
            shutil.rmtree(out)
            import_bfcl(out, bfcl_package, few)
    calls[0], fail_at[0] = 0, 1
    with pytest.raises(OSError):
        import_bfcl(tmp_path / "fresh", bfcl_package, more)
    assert not (tmp_path / "fresh").exists()  # not an empty directory, nor some categories
