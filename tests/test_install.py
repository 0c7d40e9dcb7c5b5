"""The installed package works anywhere: a wheel, installed into a fresh venv, builds a board and
verifies a bundle from an empty directory, with no repository checkout in sight."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import bench

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "tests" / "fixtures" / "bundles" / "_base"
ASSETS = {
    "board.css": REPO / "site_templates" / "board.css",
    "board.js": REPO / "site_templates" / "board.js",
    "index.html.j2": REPO / "site_templates" / "index.html.j2",
    "transcript.css": REPO / "site_templates" / "transcript.css",
    "transcript.html.j2": REPO / "site_templates" / "transcript.html.j2",
    "transcript.js": REPO / "site_templates" / "transcript.js",
    "METHODOLOGY.md": REPO / "docs" / "METHODOLOGY.md",
}


def test_the_packaged_assets_are_the_repository_files() -> None:
    """bench/board/assets/ holds links to the one copy of each file, never a second copy."""
    assets = REPO / "src" / "bench" / "board" / "assets"
    assert sorted(p.name for p in assets.iterdir()) == sorted(ASSETS)
    for name, source in ASSETS.items():
        assert (assets / name).is_symlink() and (assets / name).resolve() == source.resolve()


def _repository(root: Path) -> Path:
    """A repository holding one valid bundle: results/, submissions/, tasks/, corpora/."""
    repo = root / "a clone ü"  # spaces and non-ASCII in the path, as a user's may have
    repo.mkdir()
    shutil.copytree(BASE / "results", repo / "results")
    shutil.copytree(BASE / "submissions", repo / "submissions")
    shutil.copytree(BASE / "mini" / "tasks", repo / "tasks")
    shutil.copytree(BASE / "mini" / "corpora", repo / "corpora")
    return repo


def test_the_wheel_installs_and_works_from_an_empty_directory(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
         str(REPO)],
        check=True, capture_output=True,
    )  # fmt: skip
    [wheel] = wheels.glob("bench_suite-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for name, source in ASSETS.items():
            assert archive.read(f"bench/board/assets/{name}") == source.read_bytes(), name
        # The licence the metadata names travels with the package (PEP 639).
        [licence] = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(licence) == (REPO / "LICENSE").read_bytes()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         "--no-index", str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    # The dependencies come from this venv's site-packages, after the fresh venv's own (a .pth
    # line adds a path without running that directory's .pth files, so no editable checkout).
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    empty = tmp_path / "empty dir é"
    empty.mkdir()
    repo = _repository(tmp_path)
    bench_bin = str(venv / "bin" / "bench")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([bench_bin, *args], cwd=empty, capture_output=True, text=True)

    where = subprocess.run(
        [str(python), "-c", "import bench; print(bench.__file__)"],
        cwd=empty, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)), where
    version = run("--version")
    assert (
        version.returncode == 0 and version.stdout.strip() == f"bench, version {bench.__version__}"
    )

    # The task set is not in the package: the first command of docs/SUBMISSIONS.md, run where
    # there is no clone, says where it is instead of only "no such file or directory".
    missing = run("run", "--tasks", "tasks", "--split", "public", "--target", "t.yaml")
    assert missing.returncode == 3 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("error[FILE_MISSING]: tasks: ")
    assert "come with a clone of its repository" in missing.stderr
    generated = run("task", "generate", "--out", "tasks")
    assert generated.returncode == 3 and "--corpora" in generated.stderr
    assert "come with a clone of its repository" in generated.stderr

    # README's `bench history` where no run was made yet: said, and no runs/ left behind (the
    # last assertion); a contributor's first `bench key register` before making a key is
    # told how (tests/test_install_walkthrough.py has the rest of that walk).
    history = run("history")
    assert history.returncode == 0 and "note: no run directory at runs" in history.stderr
    unmade = run("key", "register", "--entrant", "my-team", "--pubkey", "bench_ed25519.pub")
    assert unmade.returncode == 3 and "Traceback" not in unmade.stderr
    assert 'make one with ssh-keygen -t ed25519 -N "" -f bench_ed25519' in unmade.stderr

    [bundle] = (repo / "results" / "mini-good").iterdir()
    verified = run("verify", str(bundle), "--seed", "7")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "valid" in verified.stdout.lower()

    built = run(
        "board", "build", "--no-runs", "--results", str(repo / "results"), "--out", "site",
        "--submissions", str(repo / "submissions"), "--resamples", "50",
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    page = (empty / "site" / "index.html").read_text(encoding="utf-8")
    assert "mini-good" in page and "<h1" in page.lower() and "Methodology" in page
    assert "unverifiable" not in built.stderr  # keys and tasks found beside results/
    assert sorted(p.name for p in empty.iterdir()) == ["site"]
