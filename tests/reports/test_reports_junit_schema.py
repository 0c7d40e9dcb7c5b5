"""The JUnit report validates against an XSD of the format CI systems read, for every outcome."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema

from bench.reports import summarize
from bench.reports.junit import render_junit
from bench.runner import RunRequest, start_run

SCHEMA = xmlschema.XMLSchema(str(Path(__file__).parent / "schema" / "junit.xsd"))


@pytest.mark.parametrize("agent", ["good", "crashes_on_refunds", "loops", "no_usage"])
def test_junit_validates(mini: Path, agent: str) -> None:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / f"{agent}.yaml",
            runs_dir=mini / "runs",
            repeats=2,
        )
    )
    xml = render_junit(summarize(run))
    SCHEMA.validate(xml)  # raises XMLSchemaValidationError naming the element


def test_the_schema_does_refuse_a_broken_report() -> None:
    broken = (
        '<testsuites><testsuite name="x" tests="1"><testcase name="a"/></testsuite></testsuites>'
    )
    assert not SCHEMA.is_valid(broken)
