"""The committed JSON Schemas are generated from the models; this fails when they drift."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bench.cli.main import cli
from bench.schemas import MODELS, drift, render

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"


def test_committed_schemas_match_the_models() -> None:
    stale = drift(SCHEMA_DIR)
    assert stale == [], f"run 'make schema' (bench schema write schema): stale {stale}"


def test_every_model_has_a_file_and_no_stray_files() -> None:
    files = {p.name for p in SCHEMA_DIR.glob("*.schema.json")}
    assert files == {f"{name}.schema.json" for name in MODELS}


def test_schema_print_compact_is_one_line_of_json() -> None:
    result = CliRunner().invoke(cli, ["schema", "print", "trace", "--compact"])
    assert result.exit_code == 0
    assert result.output.count("\n") == 1
    parsed = json.loads(result.output)
    assert parsed["title"] == "Trace"
    assert "exchanges" in parsed["properties"]


def test_drift_is_detected(tmp_path: Path) -> None:
    for name in MODELS:
        (tmp_path / f"{name}.schema.json").write_text(render(name))
    assert drift(tmp_path) == []
    (tmp_path / "trace.schema.json").write_text("{}\n")
    assert drift(tmp_path) == ["trace"]
