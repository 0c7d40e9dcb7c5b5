"""The pinned bfcl-eval, in a venv of its own under the user cache, and the suite imported from it.

The venv lives in ``~/.cache/bench-suite/bfcl-<hash>/`` (``$XDG_CACHE_HOME`` when set), keyed
by the requirements file's SHA-256 and this Python's version, so a rerun reuses it. It is
built in a sibling directory and renamed into place, under a lock, so an interrupted or
concurrent build never leaves a half-installed venv behind. When it cannot be built (no
network to PyPI, a hash mismatch), the tests that need it *fail* with pip's own words: a
missing reference checker must never read as a pass or a skip.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.suites.bfcl import Imported, import_bfcl
from bench.tasks.load import load_task_set
from bench.tasks.model import Task

HERE = Path(__file__).parent
REQUIREMENTS = HERE / "bfcl-requirements.txt"
OFFICIAL = HERE / "bfcl_official.py"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bench-suite"


def venv_dir() -> Path:
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:16]
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    return cache_root() / f"bfcl-{digest}-{tag}"


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(
            f"cannot {what} (the BFCL agreement tests need the pinned bfcl-eval; "
            f"{REQUIREMENTS.name} installs it from PyPI with --require-hashes):\n"
            f"$ {' '.join(command)}\n{done.stdout[-2000:]}{done.stderr[-3000:]}",
            pytrace=False,
        )
    return done.stdout


def build_venv() -> Path:
    """The venv's python, building the venv first when the cache does not have it."""
    target = venv_dir()
    python = target / "bin" / "python"
    if (target / ".ready").is_file():
        return python
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / ".ready").is_file():
            return python
        building = target.parent / f"{target.name}.building"
        shutil.rmtree(building, ignore_errors=True)
        _run([sys.executable, "-m", "venv", str(building)], "create the bfcl-eval venv")
        _run(
            [
                str(building / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-input",
                "--disable-pip-version-check",
                "--no-deps",
                "--require-hashes",
                "-r",
                str(REQUIREMENTS),
            ],
            "install bfcl-eval",
        )
        (building / ".ready").write_text("ok\n")
        shutil.rmtree(target, ignore_errors=True)
        building.rename(target)
    return python


@pytest.fixture(scope="session")
def bfcl_python() -> Path:
    return build_venv()


@pytest.fixture(scope="session")
def bfcl_package(bfcl_python: Path) -> Path:
    """The ``bfcl_eval`` package directory inside the venv."""
    out = _run(
        [
            str(bfcl_python),
            "-c",
            "import importlib.util as u;"
            "print(u.find_spec('bfcl_eval').submodule_search_locations[0])",
        ],
        "find bfcl_eval in its venv",
    )
    return Path(out.strip())


@pytest.fixture(scope="session")
def bfcl_suite(
    bfcl_package: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Imported, tuple[Task, ...]]]:
    """Every single-turn category imported and loaded back through ``load_task_set``."""
    out = tmp_path_factory.mktemp("bfcl")
    imported = import_bfcl(out, bfcl_package)
    task_set = load_task_set(out / "tasks")
    yield imported, task_set.tasks


@pytest.fixture(scope="session")
def bfcl_official(
    bfcl_python: Path,
) -> Callable[[list[dict[str, object]]], dict[str, dict[str, object]]]:
    """BFCL's checker over a list of cases (see bfcl_official.py), by case key."""
    return lambda cases: official(bfcl_python, cases)


def official(python: Path, cases: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    """BFCL's checker over ``cases`` (see bfcl_official.py), by case key."""
    payload = "".join(json.dumps(case) + "\n" for case in cases)
    done = subprocess.run(
        [str(python), str(OFFICIAL)], input=payload, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"the official BFCL checker failed:\n{done.stderr[-4000:]}", pytrace=False)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {str(result["key"]): result for result in results}
