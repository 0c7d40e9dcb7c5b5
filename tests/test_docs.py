"""Docs that cannot drift: the CLI reference, the error codes, the README's two commands."""

from __future__ import annotations

import os
import re
from pathlib import Path

from bench.cli.reference import cli_reference

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"


def test_cli_reference_is_current() -> None:
    expected = cli_reference()
    path = DOCS / "CLI.md"
    if os.environ.get("BENCH_UPDATE_GOLDEN") == "1":
        path.write_text(expected, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == expected, "run 'make docs'"


def test_every_verb_and_option_is_documented() -> None:
    text = (DOCS / "CLI.md").read_text(encoding="utf-8")
    for verb in ("run", "show", "compare", "task validate", "schema print", "schema write"):
        assert f"## `bench {verb}`" in text
    for option in ("--resume", "--replay", "--progress", "--run-budget-dollars", "--split"):
        assert option in text


def _codes_in_source() -> set[str]:
    codes: set[str] = set()
    for path in (REPO / "src" / "bench").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            # a constant named as its value, e.g. REQUEST_REFUSED = "REQUEST_REFUSED"
            codes |= set(re.findall(r'^([A-Z][A-Z_]+)\s*=\s*"\1"$', line))
            if "code" in line:
                codes |= set(re.findall(r'code(?::\s*str)?\s*=\s*"([A-Z][A-Z_]+)"', line))
                codes |= set(re.findall(r'else "([A-Z][A-Z_]+)"', line))
    return codes


def test_every_error_code_is_documented_and_every_documented_code_is_used() -> None:
    from bench.tasks.generators.errors import GENERATOR_CODES

    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", (DOCS / "ERRORS.md").read_text(), re.M))
    # The generator names its codes in one table (each raise passes one of its keys).
    used = _codes_in_source() | set(GENERATOR_CODES)
    assert used - documented == set(), "codes used but not in docs/ERRORS.md"
    assert documented - used == set(), "codes in docs/ERRORS.md that nothing raises"


def test_readme_shows_the_two_commands_first() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```")[1]
    assert "make demo" in first_block and "make test" in first_block
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
