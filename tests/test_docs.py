"""Docs that cannot drift: the CLI reference, the error codes, the README's two commands, and
every file or relative link a doc names."""

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


# Where a doc may name a file: the repository root, the doc's own directory, docs/, or a
# corpus (a corpus document is named like ``faq.md``). ``doc.md#anchor`` is a passage id, a
# citation inside a corpus rather than a file of the repository, so it is not checked here.
_CORPORA = (REPO / "corpora", REPO / "examples" / "corpora")
_DOC_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b(?!#)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]*)(?:#[^)\s]*)?\)")
# Paths under the folders a reader opens to read code or docs (data folders such as tasks/,
# results/ or submissions/ appear in examples of commands, with names made up on purpose):
# a file (its last part has an extension) or a folder (written with a trailing slash).
_REPO_PATH = re.compile(
    r"(?<![\w/.<>-])((?:src|tests|benchmarks|docs|schema|site_templates|examples|\.github)"
    r"/(?:[\w.-]+/)*(?:[\w-]+\.[\w.]*\w)?)"
)


def missing_references(text: str, where: Path) -> list[str]:
    """Relative links, ``*.md`` names and repository paths in ``text`` that name no file."""
    bases = (where.parent, REPO, DOCS, *_CORPORA)
    found: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for target in _LINK.findall(line):
            relative = target and "://" not in target and not target.startswith("mailto:")
            if relative and not (where.parent / target).exists():
                found.append(f"{lineno}: link {target}")
        names = _DOC_NAME.findall(line) + _REPO_PATH.findall(line)
        for name in names:
            if not any((base / name).exists() for base in bases):
                found.append(f"{lineno}: {name}")
    return found


def _docs() -> list[tuple[Path, str]]:
    docs = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
    docs += [REPO / "examples" / "README.md", REPO / "tests" / "fixtures" / "bundles" / "README.md"]
    # docs/CLI.md is generated: check what it is generated from, so a stale file cannot hide
    # a help text that names a missing file (test_cli_reference_is_current keeps them equal).
    return [
        (p, cli_reference() if p.name == "CLI.md" else p.read_text(encoding="utf-8")) for p in docs
    ]


def test_every_file_a_doc_names_exists() -> None:
    problems = [
        f"{path.relative_to(REPO)}:{problem}"
        for path, text in _docs()
        for problem in missing_references(text, path)
    ]
    assert problems == [], "docs name files that are not in the repository"


def test_the_reference_check_can_fail() -> None:
    where = DOCS / "EXAMPLE.md"
    text = (
        "See [scoring](SCORING.md), [gone](GONE.md#x), `STATISTICS.md` (design notes),\n"
        "src/bench/stats/paired.py, src/bench/stats/nowhere.py and https://example.org/a.md;\n"
        "cite `faq.md#refunds` from the corpus `policy.md`, not `policies.md`.\n"
    )
    assert missing_references(text, where) == [
        "1: link GONE.md",
        "1: STATISTICS.md",
        "2: src/bench/stats/nowhere.py",
        "3: policies.md",
    ]


def test_every_target_kind_is_in_the_targets_table() -> None:
    """docs/TARGETS.md opens with a table of kinds; http-agent, the kind for a stranger's own
    agent, was only found at the end of the page."""
    from typing import get_args

    from bench.targets.base import TargetKind

    text = (DOCS / "TARGETS.md").read_text(encoding="utf-8")
    table = text.split("| kind | the entrant is | needs |", 1)[1].split("\n\n", 1)[0]
    rows = {line.split("|")[1].strip(" `") for line in table.splitlines()[2:]}
    assert rows == set(get_args(TargetKind))
