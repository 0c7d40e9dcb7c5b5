"""Fuzz the CLI with broken input files; flag every traceback. Run by hand, not by pytest.

    .venv/bin/python tests/fuzz/fuzz_inputs.py [--surface NAME ...] [--budget N] [--seed S]
                                               [--jobs J] [--keep DIR]

The project's rule: bad input gets a clear error and loses nothing (docs/ERRORS.md). Each case
copies a real input (a task file, a target, a corpus document, a run directory, a ``.env``, a
BFCL source tree) into a temporary directory, breaks one thing in it, and runs ``bench`` in a
subprocess as a user would. A case is flagged when stderr holds ``Traceback``, when the exit
code is not one ERRORS.md documents (0-6), or when a read-only command (show, report, rescore)
changed a file of the run directory it read. Flagged cases are printed with their command, the
mutation and the last lines of stderr; ``--keep DIR`` keeps their input trees.

The file name does not match pytest's ``test_*.py``, so pytest never collects it.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
BENCH = str(REPO / ".venv" / "bin" / "bench")
DOCUMENTED_EXITS = {0, 1, 2, 3, 4, 5, 6}
SUPPORT_BOT = REPO / "examples" / "support_bot.py"
GROUNDED_TASK = "gqa-pub-shipping-cutoff"

# ---------------------------------------------------------------------------------------------
# Mutations of parsed values (structure) and of raw bytes (text)
# ---------------------------------------------------------------------------------------------


def _deep(depth: int) -> Any:
    value: Any = "x"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


VALUE_MUTANTS: list[tuple[str, Any]] = [
    ("null", None),
    ("empty-list", []),
    ("empty-dict", {}),
    ("list-of-dict", [{"a": 1}]),
    ("dict", {"a": [1, 2]}),
    ("empty-str", ""),
    ("str", "surprise"),
    ("long-str", "A" * 200_000),
    ("zero", 0),
    ("negative", -1),
    ("huge-int", 10**40),
    ("float", 1.5),
    ("nan", math.nan),
    ("inf", math.inf),
    ("neg-inf", -math.inf),
    ("true", True),
    ("false", False),
    ("deep", _deep(60)),
    ("line-sep", "a\u2028b\u2029c\x85d"),
    ("nul", "a\x00b"),
    ("surrogate-ish", "\ud7ff\ue000\U0010ffff"),
    ("path-escape", "../../../etc/passwd"),
    # what YAML tags make of a value: !!binary, !!set, !!timestamp, a non-string key
    ("yaml-binary", b"\x00\xffbin"),
    ("yaml-set", {"a", "b"}),
    ("yaml-date", datetime.date(2026, 7, 14)),
    ("yaml-timestamp", datetime.datetime(2026, 7, 14, 12, 0, tzinfo=datetime.UTC)),
    ("int-key", {1: "a", None: "b"}),
]

TEXT_MUTANTS: list[str] = [
    "empty",
    "whitespace",
    "binary",
    "non-utf8",
    "bom",
    "truncate-half",
    "line-separators",
    "nul-bytes",
    "deep-brackets",
    "yaml-tags",
    "dup-key",
    "as-json",
    "as-yaml",
    "scalar-doc",
    "list-doc",
    "multi-doc",
    "python-tag",
    "unhashable-key",
]


def paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    """Every path into a parsed document (dict keys and list indices), the root first."""
    yield prefix
    if depth > 12:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from paths(item, (*prefix, index), depth + 1)


def get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    doc = json.loads(json.dumps(doc, default=str))
    if not path:
        return new
    parent = get(doc, path[:-1])
    parent[path[-1]] = new
    return doc


def deleted(doc: Any, path: tuple[Any, ...]) -> Any:
    doc = json.loads(json.dumps(doc, default=str))
    parent = get(doc, path[:-1])
    del parent[path[-1]]
    return doc


def structural(doc: Any, rng: random.Random, n: int) -> list[tuple[str, Any]]:
    """``n`` mutated copies of ``doc``: a value swapped, a field dropped, an unknown one added."""
    all_paths = list(paths(doc))
    out: list[tuple[str, Any]] = []
    for _ in range(n):
        path = rng.choice(all_paths)
        roll = rng.random()
        where = "/".join(map(str, path)) or "<root>"
        if roll < 0.15 and path:
            out.append((f"delete {where}", deleted(doc, path)))
        elif roll < 0.22 and isinstance(get(doc, path), dict):
            out.append((f"unknown key in {where}", replaced(doc, (*path, "zz_unknown"), 1)))
        else:
            name, new = rng.choice(VALUE_MUTANTS)
            out.append((f"{where} := {name}", replaced(doc, path, new)))
    return out


def dump(doc: Any, suffix: str) -> bytes:
    if suffix == ".json":
        # allow_nan writes NaN/Infinity, which a strict reader must refuse with a code
        return json.dumps(doc, allow_nan=True, default=str).encode()
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=4096).encode()


def text_mutant(name: str, data: bytes, doc: Any, suffix: str, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    if name == "empty":
        return b""
    if name == "whitespace":
        return b"  \n\t\n"
    if name == "binary":
        return bytes(rng.randrange(256) for _ in range(512))
    if name == "non-utf8":
        cut = rng.randrange(max(1, len(data)))
        return data[:cut] + b"\xff\xfe\xc0\x80" + data[cut:]
    if name == "bom":
        return b"\xef\xbb\xbf" + data
    if name == "truncate-half":
        return data[: len(data) // 2]
    if name == "line-separators":
        return text.replace("\n", "\u2028", 3).encode()
    if name == "nul-bytes":
        cut = rng.randrange(max(1, len(data)))
        return data[:cut] + b"\x00" + data[cut:]
    if name == "deep-brackets":
        return ("[" * 5000 + "]" * 5000).encode() if suffix == ".json" else ("[" * 5000).encode()
    if name == "yaml-tags":
        tag = rng.choice(["!!binary aGVsbG8=", "!!set {a, b}", "!!timestamp 2001-12-14", "!!omap"])
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if ": " in line and not line.lstrip().startswith("#"):
                head = line.split(": ", 1)[0]
                lines[i] = f"{head}: {tag}"
                if rng.random() < 0.5:
                    break
        return "\n".join(lines).encode()
    if name == "dup-key":
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if ": " in line and not line.lstrip().startswith(("#", "-")):
                lines.insert(i + 1, line)
                break
        return "\n".join(lines).encode()
    if name == "as-json":
        return json.dumps(doc, default=str).encode()
    if name == "as-yaml":
        return yaml.safe_dump(doc, default_flow_style=False).encode()
    if name == "scalar-doc":
        return b"42\n"
    if name == "list-doc":
        return b"- 1\n- 2\n" if suffix != ".json" else b"[1, 2]"
    if name == "multi-doc":
        return data + b"\n---\n" + data
    if name == "python-tag":
        return b"!!python/object/apply:os.system ['true']\n"
    if name == "unhashable-key":
        return b"? [a]\n: 1\n" + data
    raise ValueError(name)


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------


@dataclass
class Case:
    surface: str
    label: str
    setup: Callable[[Path], list[list[str]]]
    """Builds the input tree under a temporary directory; returns the commands to run there."""
    readonly: list[str] = field(default_factory=list)
    """Directories (relative) that the commands must leave byte-identical."""


@dataclass
class Finding:
    case: Case
    command: list[str]
    rc: int
    stderr: str
    reason: str
    where: Path


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def run_case(case: Case, keep: Path | None) -> list[Finding]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-fuzz-"))
    findings: list[Finding] = []
    try:
        commands = case.setup(tmp)
        for command in commands:
            before = {d: snapshot(tmp / d) for d in case.readonly if (tmp / d).exists()}
            env = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"}
            try:
                proc = subprocess.run(
                    [BENCH, *command],
                    cwd=tmp,
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=120,
                    env=env,
                    stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired:
                findings.append(Finding(case, command, -1, "", "timeout", tmp))
                continue
            reason = ""
            if "Traceback" in proc.stderr:
                reason = "traceback"
            elif proc.returncode not in DOCUMENTED_EXITS:
                reason = f"exit {proc.returncode}"
            elif command[0] in {"show", "report", "rescore"}:
                for d, old in before.items():
                    if snapshot(tmp / d) != old:
                        reason = f"{command[0]} changed {d}"
            if reason:
                findings.append(Finding(case, command, proc.returncode, proc.stderr, reason, tmp))
    finally:
        if findings and keep is not None:
            dest = keep / f"{case.surface}-{abs(hash(case.label)) % 10**8}"
            shutil.copytree(tmp, dest, dirs_exist_ok=True, symlinks=True)
            for f in findings:
                f.where = dest
        shutil.rmtree(tmp, ignore_errors=True)
    return findings


def mutations(source: Path, rng: random.Random, budget: int) -> list[tuple[str, bytes]]:
    """``budget`` mutants of ``source``: every text mutation once, the rest structural."""
    data = source.read_bytes()
    suffix = source.suffix
    doc = json.loads(data) if suffix == ".json" else yaml.safe_load(data)
    out = [(f"text:{name}", text_mutant(name, data, doc, suffix, rng)) for name in TEXT_MUTANTS]
    for label, mutated in structural(doc, rng, max(0, budget - len(out))):
        out.append((label, dump(mutated, suffix)))
    rng.shuffle(out)
    return out[:budget]


# --- task files ------------------------------------------------------------------------------


def task_cases(rng: random.Random, budget: int) -> list[Case]:
    cases: list[Case] = []
    files = sorted((REPO / "tasks").glob("*.public.yaml"))
    per_file = max(1, budget // len(files))
    for n, source in enumerate(files):
        full = yaml.safe_load(source.read_text())
        first = full["tasks"][0]
        # The file cut to its first task, so every mutation lands in the task that runs.
        small = {"format_version": full["format_version"], "tasks": [first]}
        muts = mutations_of_doc(small, source, rng, per_file)
        for i, (label, data) in enumerate(muts):

            def setup(
                tmp: Path,
                data: bytes = data,
                name: str = source.name,
                task_id: str = first["id"],
                lint: bool = (n + i) % 6 == 0,
            ) -> list[list[str]]:
                shutil.copytree(REPO / "tasks", tmp / "tasks")
                shutil.copytree(REPO / "corpora", tmp / "corpora")
                (tmp / "tasks" / name).write_bytes(data)
                commands = [
                    ["task", "validate", "tasks"],
                    [
                        "run",
                        "--tasks",
                        f"tasks/{name}",
                        "--corpora",
                        "corpora",
                        "--target",
                        str(REPO / "examples/targets/support-bot-v1.yaml"),
                        "--task",
                        task_id,
                        "--runs-dir",
                        "runs",
                        "--progress",
                        "none",
                    ],
                ]
                if lint:  # lint runs every baseline: slow, so a sample
                    commands.append(["task", "lint", "tasks"])
                return commands

            cases.append(Case("task", f"{source.name}: {label}", setup))
    return cases


def mutations_of_doc(
    doc: Any, source: Path, rng: random.Random, budget: int
) -> list[tuple[str, bytes]]:
    data = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=4096).encode()
    out = [
        (f"text:{name}", text_mutant(name, data, doc, source.suffix, rng)) for name in TEXT_MUTANTS
    ]
    for label, mutated in structural(doc, rng, max(0, budget - len(out))):
        out.append((label, dump(mutated, source.suffix)))
    rng.shuffle(out)
    return out[:budget]


# --- targets ---------------------------------------------------------------------------------

OPENAI_TARGET = {
    "format_version": 1,
    "kind": "openai",
    "entrant": "fuzz-openai",
    "display_name": "Fuzz OpenAI",
    "model": "m",
    "base_url": "http://127.0.0.1:9/v1",
    "api_key_env": "FUZZ_KEY",
    "params": {"temperature": 0, "max_tokens": 64},
    "stream": True,
    "pricing": {"prompt_per_mtok": 0.2, "completion_per_mtok": 0.6, "cached_per_mtok": 0.05},
    "timeouts": {"connect_s": 1, "read_s": 1, "request_s": 2, "deadline_s": 3},
    "retry": {"max_attempts": 1, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
    "max_in_flight": 1,
}


def target_cases(rng: random.Random, budget: int) -> list[Case]:
    cases: list[Case] = []
    sources: list[tuple[str, Any]] = [
        (
            "support-bot-v1.yaml",
            yaml.safe_load((REPO / "examples/targets/support-bot-v1.yaml").read_text()),
        ),
        ("openai.yaml", OPENAI_TARGET),
    ]
    for name, doc in sources:
        for label, data in mutations_of_doc(doc, Path(name), rng, budget // 2):

            def setup(tmp: Path, data: bytes = data) -> list[list[str]]:
                (tmp / "targets").mkdir()
                shutil.copy(SUPPORT_BOT, tmp / "support_bot.py")
                (tmp / "targets" / "t.yaml").write_bytes(data)
                return [
                    [
                        "run",
                        "--tasks",
                        str(REPO / "tasks/grounded-qa.public.yaml"),
                        "--corpora",
                        str(REPO / "corpora"),
                        "--target",
                        "targets/t.yaml",
                        "--task",
                        GROUNDED_TASK,
                        "--runs-dir",
                        "runs",
                        "--progress",
                        "none",
                        "--env-file",
                        "none.env",
                        "--wait-ready",  # nothing listens at the target's port: fail at once
                        "0",
                    ]
                ]

            cases.append(Case("target", f"{name}: {label}", setup))
    return cases


# --- corpus documents ------------------------------------------------------------------------

CORPUS_TEXTS = [
    "empty",
    "whitespace",
    "binary",
    "non-utf8",
    "bom",
    "truncate-half",
    "line-separators",
    "nul-bytes",
]


def corpus_mutants(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    text = data.decode()
    out = [(f"text:{n}", text_mutant(n, data, None, ".md", rng)) for n in CORPUS_TEXTS]
    out += [
        ("no sections", b"# Title\n\nonly prose, no ## heading\n"),
        (
            "empty-slug heading",
            text.replace("## ", "## !!! ", 1).replace("## !!! ", "## ?!\n", 1).encode(),
        ),
        ("punctuation heading", b"## ...\n\nbody\n"),
        ("duplicate headings", (text + "\n" + text).encode()),
        ("heading only", b"## Shipping times\n"),
        ("huge line", b"## A\n\n" + b"word " * 400_000),
        ("deep headings", b"".join(b"#" * k + b" h%d\n\nx\n" % k for k in range(1, 40))),
        ("unicode heading", "## \u2028\u200b\u202e\n\nbody\n".encode()),
        ("CR only", text.replace("\n", "\r").encode()),
        ("heading in code fence", b"```\n## not a heading\n```\n"),
        ("html", b"<h2>x</h2>\n## <script>\n\nbody\n"),
    ]
    rng.shuffle(out)
    return out


def corpus_cases(rng: random.Random, budget: int) -> list[Case]:
    cases: list[Case] = []
    for doc in ["faq.md", "refund-policy.md"]:
        for label, data in corpus_mutants((REPO / "corpora" / doc).read_bytes(), rng)[
            : budget // 2
        ]:

            def setup(tmp: Path, data: bytes = data, doc: str = doc) -> list[list[str]]:
                shutil.copytree(REPO / "corpora", tmp / "corpora")
                (tmp / "corpora" / doc).write_bytes(data)
                shutil.copy(REPO / "tasks/grounded-qa.public.yaml", tmp / "g.yaml")
                return [
                    [
                        "run",
                        "--tasks",
                        "g.yaml",
                        "--corpora",
                        "corpora",
                        "--target",
                        str(REPO / "examples/targets/support-bot-v1.yaml"),
                        "--task",
                        GROUNDED_TASK,
                        "--runs-dir",
                        "runs",
                        "--progress",
                        "none",
                    ],
                    ["task", "validate", "g.yaml"],
                ]

            cases.append(Case("corpus", f"{doc}: {label}", setup))
    return cases


# --- run directories -------------------------------------------------------------------------


def base_run(work: Path) -> Path:
    """One real, small run (two tasks) to corrupt; made once per fuzz session."""
    runs = work / "runs"
    subprocess.run(
        [
            BENCH,
            "run",
            "--tasks",
            str(REPO / "tasks/grounded-qa.public.yaml"),
            "--corpora",
            str(REPO / "corpora"),
            "--target",
            str(REPO / "examples/targets/support-bot-v1.yaml"),
            "--task",
            GROUNDED_TASK,
            "--task",
            "gqa-pub-tracking-prefix",
            "--runs-dir",
            str(runs),
            "--progress",
            "none",
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    (runs / "history.sqlite3").unlink(missing_ok=True)
    shutil.rmtree(runs / "reports", ignore_errors=True)
    return next(p for p in runs.iterdir() if p.is_dir())


def cassette_mutants(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    lines = data.splitlines()
    first = json.loads(lines[0])
    out = [(f"text:{n}", text_mutant(n, data, None, ".jsonl", rng)) for n in CORPUS_TEXTS]
    out.append(("blank line", b"\n".join([lines[0], b"", *lines[1:]])))
    out.append(("junk line", b"\n".join([lines[0], b"{not json", *lines[1:]])))
    out.append(("json array line", b"\n".join([b"[1,2]", *lines[1:]])))
    out.append(("dup keys", lines[0][:-1] + b', "format_version": 1}\n' + b"\n".join(lines[1:])))
    for label, mutated in structural(first, rng, 40):
        out.append(
            (f"line1 {label}", b"\n".join([json.dumps(mutated, default=str).encode(), *lines[1:]]))
        )
    rng.shuffle(out)
    return out


def history_mutants(rng: random.Random) -> list[tuple[str, bytes]]:
    return [
        ("history: empty", b""),
        ("history: junk", b"not a database" * 10),
        ("history: sqlite header only", b"SQLite format 3\x00" + b"\x00" * 84),
    ]


def run_cases(rng: random.Random, budget: int, work: Path) -> list[Case]:
    run = base_run(work)
    rid = run.name
    attempt = sorted((run / "attempts").iterdir())[0].name
    targets: list[tuple[str, list[tuple[str, bytes]]]] = []
    for rel in ["config.json", "status.json", f"attempts/{attempt}"]:
        targets.append((rel, mutations(run / rel, rng, budget // 5)))
    targets.append(
        (
            "cassette.jsonl",
            cassette_mutants((run / "cassette.jsonl").read_bytes(), rng)[: budget // 5],
        )
    )
    extra = [
        ("attempts/", "delete attempts dir", None),
        ("config.json", "delete config", None),
        ("status.json", "delete status", None),
        ("cassette.jsonl", "delete cassette", None),
        ("attempts/junk.json", "junk attempt file", b"{}"),
        ("attempts/x--r0.json", "stray attempt", (run / "attempts" / attempt).read_bytes()),
    ]
    cases: list[Case] = []

    def commands(target_ok: bool = True) -> list[list[str]]:
        bot = str(REPO / "examples/targets/support-bot-v1.yaml")
        return [
            ["show", rid, "--runs-dir", "runs"],
            ["show", rid, "--runs-dir", "runs", "--task", GROUNDED_TASK, "--format", "json"],
            ["report", rid, "--runs-dir", "runs"],
            ["report", rid, "--runs-dir", "runs", "--format", "json"],
            ["rescore", rid, "--runs-dir", "runs", "--corpora", str(REPO / "corpora")],
            ["history", "--runs-dir", "runs"],
            [
                "run",
                "--tasks",
                str(REPO / "tasks/grounded-qa.public.yaml"),
                "--corpora",
                str(REPO / "corpora"),
                "--replay",
                rid,
                "--runs-dir",
                "runs",
                "--progress",
                "none",
                "--task",
                GROUNDED_TASK,
                "--task",
                "gqa-pub-tracking-prefix",
            ],
            [
                "run",
                "--tasks",
                str(REPO / "tasks/grounded-qa.public.yaml"),
                "--corpora",
                str(REPO / "corpora"),
                "--target",
                bot,
                "--resume",
                rid,
                "--runs-dir",
                "runs",
                "--progress",
                "none",
                "--task",
                GROUNDED_TASK,
                "--task",
                "gqa-pub-tracking-prefix",
            ],
        ]

    for rel, muts in targets:
        for label, data in muts:

            def setup(tmp: Path, rel: str = rel, data: bytes = data) -> list[list[str]]:
                shutil.copytree(run.parent, tmp / "runs")
                (tmp / "runs" / rid / rel).write_bytes(data)
                return commands()

            cases.append(Case("rundir", f"{rel}: {label}", setup, readonly=[f"runs/{rid}"]))
    for rel, label, data in extra:

        def setup(tmp: Path, rel: str = rel, data: bytes | None = data) -> list[list[str]]:
            shutil.copytree(run.parent, tmp / "runs")
            path = tmp / "runs" / rid / rel
            if data is None:
                shutil.rmtree(path) if path.is_dir() else path.unlink()
            else:
                path.write_bytes(data)
            return commands()

        cases.append(Case("rundir", label, setup, readonly=[f"runs/{rid}"]))
    for label, data in history_mutants(rng):

        def setup(tmp: Path, data: bytes = data) -> list[list[str]]:
            shutil.copytree(run.parent, tmp / "runs")
            (tmp / "runs" / "history.sqlite3").write_bytes(data)
            return [
                ["history", "--runs-dir", "runs"],
                ["leaderboard", "--runs-dir", "runs"],
                ["export", "--runs-dir", "runs"],
            ]

        cases.append(Case("rundir", label, setup))
    return cases


# --- .env files ------------------------------------------------------------------------------

ENV_MUTANTS: list[tuple[str, bytes]] = [
    ("empty", b""),
    ("binary", bytes(range(256))),
    ("non-utf8", b"BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\n\xff\xfe=\xc0\n"),
    ("no equals", b"BENCH_FUZZ_BASE_URL\nBENCH_FUZZ_MODEL\n"),
    ("unclosed quote", b"BENCH_FUZZ_BASE_URL=\"http://127.0.0.1:9/v1\nBENCH_FUZZ_MODEL='m\n"),
    ("export", b"export BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\nexport BENCH_FUZZ_MODEL=m\n"),
    ("bad url", b"BENCH_FUZZ_BASE_URL=ftp://\x01\nBENCH_FUZZ_MODEL=m\n"),
    ("empty values", b"BENCH_FUZZ_BASE_URL=\nBENCH_FUZZ_MODEL=\nBENCH_FUZZ_API_KEY=\n"),
    (
        "line separators",
        "BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\u2028BENCH_FUZZ_MODEL=m\n".encode(),
    ),
    ("nul", b"BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\x00\nBENCH_FUZZ_MODEL=m\n"),
    ("bom", b"\xef\xbb\xbfBENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\nBENCH_FUZZ_MODEL=m\n"),
    ("huge", b"BENCH_FUZZ_MODEL=" + b"m" * 2_000_000 + b"\n"),
    (
        "dup keys",
        b"BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\nBENCH_FUZZ_BASE_URL=http://x\nBENCH_FUZZ_MODEL=m\n",
    ),
    ("crlf", b"BENCH_FUZZ_BASE_URL=http://127.0.0.1:9/v1\r\nBENCH_FUZZ_MODEL=m\r\n"),
    ("interp", b"BENCH_FUZZ_BASE_URL=${NOPE}\nBENCH_FUZZ_MODEL=$(id)\n"),
    ("port junk", b"BENCH_FUZZ_BASE_URL=http://127.0.0.1:99999999/v1\nBENCH_FUZZ_MODEL=m\n"),
    ("ipv6 junk", b"BENCH_FUZZ_BASE_URL=http://[::1/v1\nBENCH_FUZZ_MODEL=m\n"),
    ("directory", b""),
]


def env_cases() -> list[Case]:
    cases: list[Case] = []
    for label, data in ENV_MUTANTS:

        def setup(tmp: Path, data: bytes = data, label: str = label) -> list[list[str]]:
            if label == "directory":
                (tmp / "x.env").mkdir()
            else:
                (tmp / "x.env").write_bytes(data)
            (tmp / "t.yaml").write_text(
                "format_version: 1\nkind: openai\nentrant: fuzz\nmodel: m\nprovider: fuzz\n"
                "retry: {max_attempts: 1}\ntimeouts: {connect_s: 1, deadline_s: 2}\n"
            )
            base = [
                "run",
                "--tasks",
                str(REPO / "tasks/grounded-qa.public.yaml"),
                "--corpora",
                str(REPO / "corpora"),
                "--task",
                GROUNDED_TASK,
                "--runs-dir",
                "runs",
                "--progress",
                "none",
                "--env-file",
                "x.env",
                "--wait-ready",  # nothing listens at the provider's port: fail at once
                "0",
            ]
            return [
                [*base, "--target", "t.yaml"],
                [*base, "--provider", "fuzz", "--target", "t.yaml"],
            ]

        cases.append(Case("env", label, setup))
    return cases


# --- bench suite import --source -------------------------------------------------------------


def suite_cases() -> list[Case]:
    good_entry = {
        "id": "simple_python_0",
        "question": [[{"role": "user", "content": "area of a triangle base 10 height 5"}]],
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
    good_answer = {"id": "simple_python_0", "ground_truth": [{"calc_area": {"base": [10]}}]}
    entries: list[tuple[str, Any, Any]] = [
        ("good", good_entry, good_answer),
        ("question str", {**good_entry, "question": "hi"}, good_answer),
        ("question dict", {**good_entry, "question": {"a": 1}}, good_answer),
        ("message str", {**good_entry, "question": [["hi"]]}, good_answer),
        ("message no role", {**good_entry, "question": [[{"content": "x"}]]}, good_answer),
        ("function str", {**good_entry, "function": "f"}, good_answer),
        ("function list of str", {**good_entry, "function": ["f"]}, good_answer),
        ("function no name", {**good_entry, "function": [{"parameters": {}}]}, good_answer),
        ("params list", {**good_entry, "function": [{"name": "f", "parameters": []}]}, good_answer),
        (
            "properties list",
            {
                **good_entry,
                "function": [{"name": "f", "parameters": {"type": "dict", "properties": [1]}}],
            },
            good_answer,
        ),
        ("id int", {**good_entry, "id": 3}, good_answer),
        ("ground_truth str", good_entry, {**good_answer, "ground_truth": "x"}),
        ("ground_truth dict", good_entry, {**good_answer, "ground_truth": {"a": 1}}),
        ("ground_truth list str", good_entry, {**good_answer, "ground_truth": ["x"]}),
        (
            "ground_truth args list",
            good_entry,
            {**good_answer, "ground_truth": [{"calc_area": [1]}]},
        ),
        ("answer no id", good_entry, {"ground_truth": []}),
        ("nan", good_entry, {**good_answer, "ground_truth": [{"calc_area": {"base": [math.nan]}}]}),
    ]
    cases: list[Case] = []
    for label, entry, answer in entries:

        def setup(tmp: Path, entry: Any = entry, answer: Any = answer) -> list[list[str]]:
            data = tmp / "bfcl_eval" / "data"
            (data / "possible_answer").mkdir(parents=True)
            (data / "BFCL_v4_simple_python.json").write_text(json.dumps(entry) + "\n")
            (data / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
                json.dumps(answer) + "\n"
            )
            return [
                [
                    "suite",
                    "import",
                    "bfcl",
                    "--out",
                    "out",
                    "--source",
                    "bfcl_eval",
                    "--category",
                    "simple_python",
                ]
            ]

        cases.append(Case("suite", label, setup))
    for label, maker in [
        ("missing source", lambda tmp: None),
        ("source is a file", lambda tmp: (tmp / "bfcl_eval").write_text("x")),
        ("empty source", lambda tmp: (tmp / "bfcl_eval").mkdir()),
        ("non-utf8 data", lambda tmp: _bfcl_bytes(tmp, b"\xff\xfe\n")),
        ("binary data", lambda tmp: _bfcl_bytes(tmp, bytes(range(256)))),
        ("data is a dir", lambda tmp: _bfcl_dir(tmp)),
    ]:

        def setup(tmp: Path, maker: Any = maker) -> list[list[str]]:
            maker(tmp)
            return [
                [
                    "suite",
                    "import",
                    "bfcl",
                    "--out",
                    "out",
                    "--source",
                    "bfcl_eval",
                    "--category",
                    "simple_python",
                ],
                ["suite", "import", "bfcl", "--out", "out", "--source", "bfcl_eval"],
            ]

        cases.append(Case("suite", label, setup))
    return cases


def _bfcl_bytes(tmp: Path, data: bytes) -> None:
    d = tmp / "bfcl_eval" / "data"
    (d / "possible_answer").mkdir(parents=True)
    (d / "BFCL_v4_simple_python.json").write_bytes(data)
    (d / "possible_answer" / "BFCL_v4_simple_python.json").write_bytes(data)


def _bfcl_dir(tmp: Path) -> None:
    d = tmp / "bfcl_eval" / "data"
    (d / "possible_answer" / "BFCL_v4_simple_python.json").mkdir(parents=True)
    (d / "BFCL_v4_simple_python.json").mkdir(parents=True)


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    surfaces = ["task", "target", "corpus", "rundir", "env", "suite"]
    parser.add_argument("--surface", action="append", choices=surfaces)
    parser.add_argument("--budget", type=int, default=120, help="cases per structured surface")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    parser.add_argument("--keep", type=Path, help="copy the input tree of each finding here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chosen = args.surface or surfaces
    work = Path(tempfile.mkdtemp(prefix="bench-fuzz-base-"))
    cases: list[Case] = []
    if "task" in chosen:
        cases += task_cases(rng, args.budget)
    if "target" in chosen:
        cases += target_cases(rng, args.budget)
    if "corpus" in chosen:
        cases += corpus_cases(rng, args.budget)
    if "rundir" in chosen:
        cases += run_cases(rng, args.budget, work)
    if "env" in chosen:
        cases += env_cases()
    if "suite" in chosen:
        cases += suite_cases()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"{len(cases)} case(s) over {', '.join(chosen)}; seed {args.seed}", flush=True)
    findings: list[Finding] = []
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_case, case, args.keep) for case in cases]
        for done, future in enumerate(as_completed(futures), 1):
            for f in future.result():
                findings.append(f)
                tail = "\n    ".join(f.stderr.strip().splitlines()[-3:])
                print(
                    f"FLAG [{f.reason}] {f.case.surface}: {f.case.label}\n"
                    f"  $ bench {' '.join(f.command)}\n    {tail}",
                    flush=True,
                )
            if done % 50 == 0:
                print(f"... {done}/{len(cases)}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(findings)} finding(s) in {len(cases)} case(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
