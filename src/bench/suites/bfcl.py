"""BFCL v4 single-turn categories as this project's tasks (``bench suite import bfcl``).

Reads the data files an installed ``bfcl-eval`` wheel ships (``bfcl_eval/data/BFCL_v4_*.json``
and ``bfcl_eval/data/possible_answer/``), found with :func:`importlib.util.find_spec`, never a
fixed path, and turns each case into a ``tool-trajectory`` task with one ``calls`` check:

* each function doc becomes a :class:`~bench.tasks.model.ToolSpec` whose schema is what BFCL's
  own OpenAI handler sends (``convert_to_tool`` with ``GORILLA_TO_OPENAPI``: ``dict`` → object,
  ``float`` → number with ``format: float``, ``tuple`` → array, ``any`` → string, dots in names
  → ``_``; Java and JavaScript parameters are strings, as BFCL's pre-processing makes them),
  with BFCL's own type kept under ``x-bfcl-type`` / ``x-bfcl-items`` for the checker
  (:mod:`bench.suites.bfcl_schema`);
* the possible answer becomes ``calls`` (an empty list for irrelevance, ``any_call`` for
  live_relevance); the category and the original id go in ``tags``.

Ids map reversibly (``task_id`` / ``bfcl_id``): ``-`` becomes ``--`` and ``_`` becomes ``-``;
BFCL ids with ``_`` beside ``-``, or outside ``[a-z0-9_-]``, are refused rather than mapped
ambiguously (none are, in 2026.3.23).
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.core.errors import InputError
from bench.core.ids import identifier_problem
from bench.core.suite import SUITE_FILE
from bench.core.validation import describe
from bench.tasks.expectations import Calls
from bench.tasks.model import Task, ToolSpec

from .astmatch import Expected, match, signature_of
from .bfcl_schema import GORILLA_TO_OPENAPI, tool_name, tool_spec
from .bfcl_suite import SUITE_NAME, bfcl_manifest
from .oracle import oracle

MATCH = "match"
IRRELEVANCE = "irrelevance"
RELEVANCE = "relevance"

CATEGORIES: dict[str, tuple[str, str]] = {
    "simple_python": ("python", MATCH),
    "simple_java": ("java", MATCH),
    "simple_javascript": ("javascript", MATCH),
    "multiple": ("python", MATCH),
    "parallel": ("python", MATCH),
    "parallel_multiple": ("python", MATCH),
    "irrelevance": ("python", IRRELEVANCE),
    "live_simple": ("python", MATCH),
    "live_multiple": ("python", MATCH),
    "live_parallel": ("python", MATCH),
    "live_parallel_multiple": ("python", MATCH),
    "live_irrelevance": ("python", IRRELEVANCE),
    "live_relevance": ("python", RELEVANCE),
}
"""Every imported category: the language its arguments are read in, and what it expects."""

_BFCL_ID = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True)
class Source:
    """Where the BFCL data was read from, and the wheel's own name for itself."""

    data: Path
    version: str
    licence: str


@dataclass(frozen=True)
class Imported:
    """What ``import_bfcl`` wrote."""

    out: Path
    source: Source
    counts: dict[str, int]
    files: tuple[Path, ...]
    dropped: tuple[tuple[str, str], ...] = ()
    """(BFCL id, BFCL id of its twin) for each case left out as an exact duplicate."""
    unpassable: tuple[tuple[str, str], ...] = ()
    """(BFCL id, why) for each case left out because no output can pass it."""
    unshowable: tuple[tuple[str, str], ...] = ()
    """(BFCL id, what) for each case left out because its text holds a character the board
    cannot show (``bench verify`` refuses such a record, ``TEXT_INVALID``)."""

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def whole(self) -> bool:
        """Every category was imported: the task set the publish workflow rebuilds
        (``bench board suite-tasks``) and verifies this suite's bundles against."""
        return set(self.counts) == set(CATEGORIES)


def task_id(original: str) -> str:
    """BFCL id → task id: ``live_simple_0-0-0`` → ``live-simple-0--0--0`` (see ``bfcl_id``)."""
    if not _BFCL_ID.fullmatch(original) or "_-" in original or "-_" in original:
        raise InputError(
            f"BFCL id {original!r} cannot be mapped to a task id reversibly",
            code="SUITE_ID",
        )
    mapped = original.replace("-", "--").replace("_", "-")
    problem = identifier_problem(mapped, "task")
    if problem is not None:
        raise InputError(
            f"BFCL id {original!r} maps to {mapped!r}, which {problem}", code="SUITE_ID"
        )
    return mapped


def bfcl_id(mapped: str) -> str:
    """Task id → BFCL id, the inverse of ``task_id``: ``--`` is ``-``, a lone ``-`` is ``_``."""
    out: list[str] = []
    index = 0
    while index < len(mapped):
        if mapped.startswith("--", index):
            out.append("-")
            index += 2
        elif mapped[index] == "-":
            out.append("_")
            index += 1
        else:
            out.append(mapped[index])
            index += 1
    return "".join(out)


def locate(source: Path | None = None) -> Source:
    """The installed ``bfcl_eval`` package's data (or ``source``, a ``bfcl_eval`` directory)."""
    if source is None:
        spec = importlib.util.find_spec("bfcl_eval")
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if not locations:
            raise InputError(
                "bfcl-eval is not installed: pip install bfcl-eval==2026.3.23 --no-deps "
                "(its data is all the importer reads), or give its bfcl_eval package "
                "directory (bench suite import bfcl --source DIR; "
                "bench board suite-tasks --bfcl-source DIR)",
                code="SUITE_SOURCE_MISSING",
            )
        source = Path(locations[0])
    data = source / "data"
    if not (data / "possible_answer").is_dir():
        raise InputError(
            "not a bfcl_eval package directory (no data/possible_answer)",
            code="SUITE_SOURCE_MISSING",
            path=source,
        )
    version, licence = _metadata(source)
    return Source(data=data, version=version, licence=licence)


def _metadata(package: Path) -> tuple[str, str]:
    for metadata in sorted(package.parent.glob("bfcl_eval-*.dist-info/METADATA")):
        headers = HeaderParser().parsestr(metadata.read_text(encoding="utf-8"))
        return headers.get("Version", "unknown"), headers.get("License", "unknown")
    return "unknown", "unknown"


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise InputError("BFCL data file missing", code="SUITE_SOURCE_MISSING", path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", code="FILE_ENCODING", path=path) from None
    # "\n" only: JSON strings may hold U+2028 and friends, which str.splitlines would cut at.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not JSON: {exc.msg}", code="SUITE_DATA", path=path, field=f"line {number}"
            ) from None
        except RecursionError:
            raise InputError(
                "not JSON: nested too deeply", code="SUITE_DATA", path=path, field=f"line {number}"
            ) from None
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise InputError(
                "an entry without an id", code="SUITE_DATA", path=path, field=f"line {number}"
            )
        yield entry


def read_category(source: Source, category: str) -> list[tuple[dict[str, Any], Any]]:
    """``(entry, ground truth)`` for every case of ``category`` (ground truth None when the
    category has no possible answers: irrelevance and relevance)."""
    entries = list(_read_lines(source.data / f"BFCL_v4_{category}.json"))
    if CATEGORIES[category][1] != MATCH:
        return [(entry, None) for entry in entries]
    answers = {
        entry["id"]: entry.get("ground_truth")
        for entry in _read_lines(source.data / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    missing = [entry["id"] for entry in entries if entry["id"] not in answers]
    if missing:
        raise InputError(
            f"no possible answer for {', '.join(missing[:5])}",
            code="SUITE_DATA",
            path=source.data / "possible_answer" / f"BFCL_v4_{category}.json",
        )
    return [(entry, answers[entry["id"]]) for entry in entries]


def task_for(entry: Mapping[str, Any], answer: Any, category: str, version: str) -> dict[str, Any]:
    """One BFCL case as a task (a plain dict, as a task file holds it)."""
    language, kind = CATEGORIES[category]
    original = str(entry["id"])
    turns = entry.get("question") or [[]]
    messages = [{"role": m["role"], "content": m.get("content") or ""} for m in turns[0]]
    tools = [tool_spec(function, language) for function in entry.get("function") or []]
    check: dict[str, Any] = {"type": "calls"}
    if kind == MATCH:
        check["calls"] = [
            {"tool": tool_name(name), "args": args}
            for call in answer or []
            for name, args in call.items()
        ]
        if language != "python":
            check["language"] = language
        because = "the first response must call the right function(s) with acceptable arguments"
    elif kind == IRRELEVANCE:
        because = "none of the functions offered fits the request, so no call may be made"
    else:
        check["any_call"] = True
        because = "a function offered fits the request, so some call must be made"
    return {
        "id": task_id(original),
        "family": "tool-trajectory",
        "split": "public",
        "input": messages,
        "tools": tools,
        "expectations": [check],
        "because": f"BFCL v4 {category} case {original} (bfcl-eval {version}): {because}.",
        "tags": [
            "bfcl",
            f"bfcl:category={category}",
            f"bfcl:id={original}",
            f"bfcl:version={version}",
        ],
    }


@dataclass(frozen=True)
class Converted:
    tasks: dict[str, list[dict[str, Any]]]
    dropped: tuple[tuple[str, str], ...]
    unpassable: tuple[tuple[str, str], ...]
    unshowable: tuple[tuple[str, str], ...] = ()


# What ``bench verify`` refuses in any string of a bundle (``bench.verify.jsonsafe``, which
# this package may not import): controls but tab, LF and CR, surrogates, non-characters.
_UNSHOWABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]"
)


def unshowable(value: Any) -> str | None:
    """The first character in any string of ``value`` (keys too) that a bundle may not hold,
    named; None when every string is text the board can show. A run of such a task records
    the text in its trace, so its bundle could never verify."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _UNSHOWABLE.search(item) or next(
                (c for c in item if ord(c) > 0xFFFF and ord(c) & 0xFFFE == 0xFFFE), None
            )
            if found is not None:
                ch = found if isinstance(found, str) else found.group()
                return f"its text holds U+{ord(ch):04X}, which the board cannot show"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def unpassable(task: Task) -> str | None:
    """Why no output can pass ``task``'s ``calls`` check (None when the oracle passes it):
    the ground truth contradicts its own function doc, so BFCL's checker fails every model."""
    check = task.expectations[0]
    if not isinstance(check, Calls) or not check.calls:
        return None
    signatures = {
        tool.name: signature_of(tool.name, tool.parameters)
        for tool in task.tools
        if isinstance(tool, ToolSpec)
    }
    made = oracle(signatures, check.calls, check.language)
    expected = [Expected(call.tool, call.args) for call in check.calls]
    return match(signatures, made, expected, check.language)


def convert(source: Source, categories: list[str] | None = None) -> Converted:
    """Every chosen category's tasks, by category (all of ``CATEGORIES`` by default), each
    validated as a :class:`Task`. A case that is the same task as an earlier one (same
    messages, tools and answer: this project refuses duplicates, ``TASK_DUPLICATE``) is left
    out and listed in ``dropped`` with its twin; a case no output can pass (``unpassable``) is
    left out and listed in ``unpassable`` with the reason; a case whose text holds a character
    a verified bundle may not (``unshowable``) is left out and listed in ``unshowable``."""
    chosen = categories or list(CATEGORIES)
    unknown = [name for name in chosen if name not in CATEGORIES]
    if unknown:
        raise InputError(
            f"unknown or unsupported BFCL categories: {', '.join(unknown)} "
            f"(supported: {', '.join(CATEGORIES)})",
            code="SUITE_CATEGORY",
        )
    seen: dict[str, str] = {}
    dropped: list[tuple[str, str]] = []
    impossible: list[tuple[str, str]] = []
    unsafe: list[tuple[str, str]] = []
    tasks: dict[str, list[dict[str, Any]]] = {}
    for category in chosen:
        kept = tasks.setdefault(category, [])
        for entry, answer in read_category(source, category):
            try:
                data = task_for(entry, answer, category, source.version)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
                # task_for walks BFCL's JSON as its own files shape it; any other shape (a
                # string where a list of messages belongs, a function without a name) is the
                # data's fault, named by case, never a traceback.
                raise InputError(
                    f"not a BFCL case of the expected shape ({type(exc).__name__}: {exc})",
                    code="SUITE_DATA",
                    path=f"BFCL_v4_{category}.json",
                    field=str(entry["id"]),
                ) from None
            try:
                task = Task.model_validate(data)
            except ValidationError as exc:
                field, message = describe(exc)
                raise InputError(
                    message,
                    code="SUITE_DATA",
                    path=f"BFCL_v4_{category}.json",
                    field=f"{entry['id']}.{field}",
                ) from None
            what = unshowable(data)
            if what is not None:
                unsafe.append((str(entry["id"]), what))
                continue
            why = unpassable(task)
            if why is not None:
                impossible.append((str(entry["id"]), why))
                continue
            mark = task.fingerprint()
            if mark in seen:
                dropped.append((str(entry["id"]), seen[mark]))
                continue
            seen[mark] = str(entry["id"])
            kept.append(data)
    return Converted(
        tasks=tasks,
        dropped=tuple(dropped),
        unpassable=tuple(impossible),
        unshowable=tuple(unsafe),
    )


def import_bfcl(
    out: Path, source: Path | None = None, categories: list[str] | None = None
) -> Imported:
    """Write ``out/tasks/bfcl-<category>.json``, ``out/README.md`` (licence, attribution) and
    ``out/suite.json`` (the suite's name, version and methodology note: ``bench.core.suite``),
    all or none (``write_set``): one file at a time, a full disk or a signal left some
    categories new beside old ones under the old suite.json, an import no bfcl-eval made."""
    from bench.core.atomic import made_directory, write_set
    from bench.core.suite import suite_manifest_bytes

    found = locate(source)
    converted = convert(found, categories)
    tasks_dir = out / "tasks"
    written: dict[str, bytes] = {}
    for category, tasks in converted.tasks.items():
        name = f"tasks/bfcl-{category.replace('_', '-')}.json"
        document = {"format_version": 1, "tasks": tasks}
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        written[name] = text.encode("utf-8")
    files = [out / name for name in written]
    counts = {category: len(tasks) for category, tasks in converted.tasks.items()}
    readme = out / "README.md"
    written[readme.name] = readme_text(found, counts, converted).encode("utf-8")
    suite = out / SUITE_FILE
    written[suite.name] = suite_manifest_bytes(bfcl_manifest(found.version, found.licence, counts))
    with made_directory(tasks_dir):
        write_set(out, written)
    return Imported(
        out=out,
        source=found,
        counts=counts,
        files=(*files, readme, suite),
        dropped=converted.dropped,
        unpassable=converted.unpassable,
        unshowable=converted.unshowable,
    )


def readme_text(source: Source, counts: Mapping[str, int], converted: Converted) -> str:
    rows = "\n".join(f"| {name} | {CATEGORIES[name][1]} | {n} |" for name, n in counts.items())
    twins = "\n".join(f"- `{case}`: the same task as `{twin}`" for case, twin in converted.dropped)
    impossible = "\n".join(f"- `{case}`: {why}" for case, why in converted.unpassable)
    unsafe = "\n".join(f"- `{case}`: {what}" for case, what in converted.unshowable)
    whole = set(counts) == set(CATEGORIES)
    part = (
        ""
        if whole
        else f"""
**Not the whole suite.** Only the categories below were imported (`--category`). A run of
these tasks verifies against this very directory (`bench verify --suite-tasks`), but the
publish workflow verifies {SUITE_NAME} bundles against the whole import (`bench board
suite-tasks`) and refuses one run on another task set (`TASK_SET_MISMATCH`). To publish,
import every category and run that (`bench run --task` runs a subset of it, shown on the
board but never ranked with whole runs).
"""
    )
    left_out = (
        "\n## Left out\n"
        if converted.dropped or converted.unpassable or converted.unshowable
        else ""
    )
    if converted.unpassable:
        left_out += (
            "\nCases no output can pass: the ground truth contradicts the case's own function "
            "doc, so the first listed values, written as BFCL's checker reads them, fail BFCL's "
            f"own checker (docs/SUITES.md):\n\n{impossible}\n"
        )
    if converted.unshowable:
        left_out += (
            "\nCases whose text holds a control character (or another character the board "
            "cannot show): a run records the question in its traces, and `bench verify` "
            f"refuses such a record (`TEXT_INVALID`), so no bundle of them could publish:\n\n"
            f"{unsafe}\n"
        )
    if converted.dropped:
        left_out += (
            "\nExact duplicates of an earlier case (this project refuses two tasks that ask "
            f"and score the same thing):\n\n{twins}\n"
        )
    return f"""# BFCL v4, single-turn categories

Converted by `bench suite import bfcl` from bfcl-eval {source.version} (PyPI `bfcl-eval`).

- **Source**: the Berkeley Function Calling Leaderboard (BFCL), Shishir G. Patil, Huanzhi Mao
  et al., Sky Computing Lab, UC Berkeley: https://gorilla.cs.berkeley.edu/leaderboard.html,
  https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard
- **Version**: bfcl-eval {source.version}
- **Licence**: {source.licence} (Apache-2.0); these files are a derived, converted copy of its
  data (`bfcl_eval/data/BFCL_v4_*.json` and `possible_answer/`). The questions, function docs
  and possible answers are BFCL's; the task wrapping is bench-suite's.
- **Scoring**: the `calls` check, a port of BFCL's AST checker (docs/SUITES.md in bench-suite);
  ids are BFCL's (`_` → `-`, `-` → `--`), the original in each task's `bfcl:id=` tag.
- **Suite**: `{SUITE_NAME}` version {source.version} (`suite.json` here): runs of these tasks
  record it, are never compared with another suite's, and have a board page of their own.
{part}
| category | expects | tasks |
|---|---|---|
{rows}
| total | | {sum(counts.values())} |
{left_out}"""


__all__ = [
    "CATEGORIES",
    "GORILLA_TO_OPENAPI",
    "Converted",
    "Imported",
    "Source",
    "bfcl_id",
    "convert",
    "import_bfcl",
    "locate",
    "read_category",
    "task_for",
    "task_id",
    "tool_name",
    "unpassable",
    "unshowable",
    "tool_spec",
]
