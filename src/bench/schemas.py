"""JSON Schemas generated from the models into ``schema/``; a test fails when they drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bench.board.model import Board
from bench.core.suite import SuiteManifest
from bench.core.trace import Trace
from bench.records.bundle import BundleManifest
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.reports.jsonreport import RunReport
from bench.targets.base import TargetSpec
from bench.tasks.model import Task, TaskFile

MODELS: dict[str, type[BaseModel]] = {
    "task": Task,
    "task-file": TaskFile,
    "suite": SuiteManifest,
    "trace": Trace,
    "run": RunConfig,
    "run-status": RunStatus,
    "attempt": AttemptRecord,
    "target": TargetSpec,
    "report": RunReport,
    "bundle-manifest": BundleManifest,
    "board": Board,
}


def schema_for(name: str) -> dict[str, Any]:
    model = MODELS[name]
    schema = model.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://bench-suite.invalid/schema/{name}.schema.json",
        **schema,
    }


def render(name: str, compact: bool = False) -> str:
    schema = schema_for(name)
    if compact:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(schema, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_all(directory: Path) -> list[Path]:
    """Write every schema into ``directory``, all or none (``write_set``): one file at a time,
    a full disk or a signal left some schemas new and some old, a set no model ever had."""
    from bench.core.atomic import made_directory, write_set

    files = {f"{name}.schema.json": render(name).encode() for name in MODELS}
    with made_directory(directory):
        write_set(directory, files)
    return [directory / name for name in files]


def drift(directory: Path) -> list[str]:
    """Names whose file in ``directory`` is missing or differs from the models."""
    stale = []
    for name in MODELS:
        path = directory / f"{name}.schema.json"
        if not path.is_file() or path.read_text(encoding="utf-8") != render(name):
            stale.append(name)
    return stale


__all__ = ["MODELS", "drift", "render", "schema_for", "write_all"]
