"""A BFCL source tree of the wrong shape is refused with a code, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.cli.main import cli

ENTRY: dict[str, Any] = {
    "id": "simple_python_0",
    "question": [[{"role": "user", "content": "area of a triangle, base 10"}]],
    "function": [
        {
            "name": "calc_area",
            "description": "d",
            "parameters": {
                "type": "dict",
                "properties": {"base": {"type": "integer"}},
                "required": ["base"],
            },
        }
    ],
}
ANSWER: dict[str, Any] = {"id": "simple_python_0", "ground_truth": [{"calc_area": {"base": [10]}}]}


def _source(root: Path, entry: bytes, answer: bytes) -> Path:
    data = root / "bfcl_eval" / "data"
    (data / "possible_answer").mkdir(parents=True)
    (data / "BFCL_v4_simple_python.json").write_bytes(entry)
    (data / "possible_answer" / "BFCL_v4_simple_python.json").write_bytes(answer)
    return root / "bfcl_eval"


def _import(source: Path, out: Path) -> Any:
    args = ["suite", "import", "bfcl", "--out", str(out), "--source", str(source)]
    return CliRunner().invoke(cli, [*args, "--category", "simple_python"])


@pytest.mark.parametrize(
    ("entry", "answer"),
    [
        ({**ENTRY, "question": "hi"}, ANSWER),
        ({**ENTRY, "question": {"a": 1}}, ANSWER),
        ({**ENTRY, "question": [[{"content": "no role"}]]}, ANSWER),
        ({**ENTRY, "function": ["calc_area"]}, ANSWER),
        ({**ENTRY, "function": [{"parameters": {}}]}, ANSWER),
        ({**ENTRY, "function": [{"name": "f", "parameters": {"properties": [1]}}]}, ANSWER),
        (ENTRY, {**ANSWER, "ground_truth": ["calc_area"]}),
        (ENTRY, {**ANSWER, "ground_truth": {"calc_area": 1}}),
    ],
)
def test_a_case_of_the_wrong_shape_is_suite_data_naming_file_and_case(
    tmp_path: Path, entry: dict[str, Any], answer: dict[str, Any]
) -> None:
    source = _source(tmp_path, json.dumps(entry).encode(), json.dumps(answer).encode())
    done = _import(source, tmp_path / "out")
    assert done.exit_code == 3, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert "error[SUITE_DATA]: BFCL_v4_simple_python.json: simple_python_0: " in done.output
    assert not (tmp_path / "out").exists()


def test_a_data_file_that_is_not_utf8_is_file_encoding(tmp_path: Path) -> None:
    source = _source(tmp_path, b"\xff\xfe{}\n", json.dumps(ANSWER).encode())
    done = _import(source, tmp_path / "out")
    assert done.exit_code == 3, done.output
    assert "error[FILE_ENCODING]: " in done.output
    assert "BFCL_v4_simple_python.json: not UTF-8 (byte 0)" in done.output


def test_a_well_shaped_case_still_imports(tmp_path: Path) -> None:
    source = _source(tmp_path, json.dumps(ENTRY).encode(), json.dumps(ANSWER).encode())
    done = _import(source, tmp_path / "out")
    assert done.exit_code == 0, done.output
    written = json.loads((tmp_path / "out/tasks/bfcl-simple-python.json").read_text())
    assert [t["id"] for t in written["tasks"]] == ["simple-python-0"]


def test_a_data_line_nested_too_deeply_is_suite_data_with_its_line(tmp_path: Path) -> None:
    deep = b"[" * 5000 + b"]" * 5000
    source = _source(tmp_path, json.dumps(ENTRY).encode() + b"\n" + deep, b"")
    done = _import(source, tmp_path / "out")
    assert done.exit_code == 3, done.output
    assert "error[SUITE_DATA]: " in done.output
    assert "BFCL_v4_simple_python.json: line 2: not JSON: nested too deeply" in done.output
