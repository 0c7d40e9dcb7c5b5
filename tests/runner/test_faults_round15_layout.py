"""docs/RUNS.md's run-directory block names every file the runner writes (helper F15).

A run, a second shard, their merge and a resume run in one subprocess whose audit hook records
every path opened for writing, made, renamed, linked or copied; each one inside a run
directory must match a name of the block (``<...>`` stands for any one path part). A file the
runner starts writing that the block does not name (``.lock`` was one) fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
RUN_ID = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{6}$")

HOOK = r"""
import json, os, sys
seen = []
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
def audit(event, args):
    if event == "open":
        path, mode, flags = args
        if isinstance(path, (str, bytes, os.PathLike)) and (
            (mode and any(c in mode for c in "wax+")) or (flags and flags & WRITE)
        ):
            seen.append(os.fsdecode(path))
    elif event in ("os.mkdir", "os.rename", "os.link", "os.symlink", "shutil.copyfile"):
        seen.extend(os.fsdecode(a) for a in args if isinstance(a, (str, bytes, os.PathLike)))
sys.addaudithook(audit)
from bench.cli.main import main
def bench(*args):
    try:
        main(list(args))
    except SystemExit as exc:
        assert not exc.code, (args, exc.code)
def runs():
    return sorted(p for p in os.listdir("runs") if p[0].isdigit())
common = ["--tasks", "tasks", "--target", "targets/good.yaml", "--split", "public",
          "--runs-dir", "runs", "--progress", "none"]
bench("run", *common, "--shard", "0/2")
bench("run", *common, "--shard", "1/2")
shards = runs()
bench("merge", *shards, "--runs-dir", "runs")
bench("run", *common, "--resume", shards[0])
json.dump([os.path.abspath(p) for p in seen], open(sys.argv[1], "w"))
"""


def _layout_names() -> list[str]:
    text = (REPO / "docs" / "RUNS.md").read_text(encoding="utf-8")
    block = text.split("```\nruns/<run_id>/\n", 1)[1].split("```", 1)[0]
    return [line.split()[0] for line in block.splitlines() if re.match(r"^  \S", line)]


def _pattern(name: str) -> re.Pattern[str]:
    parts = re.split(r"(<[^>]+>)", name)
    return re.compile(
        "".join("[^/]+" if part.startswith("<") else re.escape(part) for part in parts)
    )


def _allowed(relative: str, names: list[str]) -> bool:
    if relative == ".":
        return True  # the run directory itself (made, or a temp file opened in it)
    for name in names:
        if _pattern(name).fullmatch(relative):
            return True
        folders = name.split("/")[:-1]  # attempts/ of attempts/<task>--r<k>.json
        if any(relative == "/".join(folders[: i + 1]) for i in range(len(folders))):
            return True
    return False


def test_every_file_written_into_a_run_directory_is_named_in_the_docs_layout(
    tmp_path: Path,
) -> None:
    for part in ("tasks", "corpora", "targets"):
        shutil.copytree(MINI / part, tmp_path / part)
    shutil.copy(MINI / "agents.py", tmp_path / "agents.py")
    (tmp_path / "hook.py").write_text(HOOK, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "hook.py", "writes.json"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    runs = (tmp_path / "runs").resolve()
    written = json.loads((tmp_path / "writes.json").read_text(encoding="utf-8"))
    inside: set[str] = set()
    for path in map(Path, written):
        if not path.is_relative_to(runs) or path == runs:
            continue
        run, *rest = path.relative_to(runs).parts
        if RUN_ID.match(run):
            inside.add("/".join(rest) or ".")
    names = _layout_names()
    assert {".lock", "shard.json", "merge.json", "config.json"} <= {
        name for name in inside if "/" not in name
    }  # the watch saw what it is there to see
    unnamed = sorted(name for name in inside if not _allowed(name, names))
    assert unnamed == [], f"written into a run directory, not in docs/RUNS.md's layout: {unnamed}"
