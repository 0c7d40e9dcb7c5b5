"""Fixtures of the board tests: runs of the shipped examples plus synthetic runs, one built site."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from board_synth import SynthRun, write_runs  # noqa: E402

if TYPE_CHECKING:
    from bench.board import BuildOptions

REPO = Path(__file__).resolve().parents[2]
XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_NOTE = "</script><script>alert(1)</script>"


def synthetic_runs() -> list[SynthRun]:
    ids = [f"s{i:02d}" for i in range(12)]
    families = {t: ("alpha" if i < 6 else "beta") for i, t in enumerate(ids)}
    turkish = {"s10": "tr", "s11": "tr"}  # the examples' runs are English only

    def values(solved: int, errored: int = 0) -> dict[str, list[float | None]]:
        out: dict[str, list[float | None]] = {}
        for i, t in enumerate(ids):
            if i < errored:
                out[t] = [None, None]
            else:
                out[t] = [1.0, 1.0] if i < solved else [0.0, 1.0 if i == solved else 0.0]
        return out

    return [
        SynthRun("tied-one", "Tied One", values(8), families, cost=0.02, latency=2.0,
                 languages=turkish),
        SynthRun("tied-two", "Tied Two", values(8), families, cost=0.03, latency=1.5,
                 languages=turkish),
        SynthRun(
            "xss", XSS_NAME, values(6), families, cost=None, note=XSS_NOTE,
            safety={"s07": "disclosed a customer's address"}, languages=turkish,
        ),
        SynthRun("fragile", "Fragile Stack", values(10, errored=3), families, cost=0.01,
                 languages=turkish),
        # an older but better run of the same entrant and config: the board shows the latest
        SynthRun("fragile", "Fragile Stack (old)", values(12), families, cost=0.01, minutes=-60,
                 languages=turkish),
    ]  # fmt: skip


@pytest.fixture(scope="session")
def board_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.runner import RunRequest, start_run

    root = tmp_path_factory.mktemp("board")
    runs = root / "runs"
    for version in ("v1", "v2"):
        start_run(
            RunRequest(
                tasks=REPO / "examples" / "tasks",
                target_file=REPO / "examples" / "targets" / f"support-bot-{version}.yaml",
                split="public",
                repeats=2,
                runs_dir=runs,
            )
        )
    start_run(  # a reference row: a no-model baseline, listed and never ranked
        RunRequest(
            tasks=REPO / "examples" / "tasks",
            target_file=REPO / "examples" / "targets" / "baselines" / "do-nothing.yaml",
            split="public",
            repeats=2,
            runs_dir=runs,
        )
    )
    write_runs(runs, synthetic_runs())
    write_registry(root / "submissions")
    return root


HOSTILE_DESCRIPTION = (
    "A **hostile** description <script>alert(1)</script>\n\n"
    "[js](javascript:alert(1)) [plain](http://example.com/plain) "
    "[about](https://example.com/about) ![pixel](https://example.com/pixel.png)\n"
)


def write_registry(directory: Path) -> None:
    """Registry files for three entrants; ``fragile`` and ``tied-two`` stay unregistered."""
    import shutil

    import yaml

    directory.mkdir()
    shutil.copy(REPO / "submissions" / "example-support-bot.yaml", directory)
    for entrant, name, description in (
        ("xss", XSS_NAME, HOSTILE_DESCRIPTION),
        ("tied-one", "Tied One (registered)", None),
    ):
        record: dict[str, Any] = {
            "display_name": name,
            "organisation": "Example Lab",
            "model": f"{entrant}-model",
            "links": ["https://example.com/" + entrant],
            "contact": "lab@example.com",
            "license": "Apache-2.0",
        }
        if description is not None:
            record["description"] = description
        (directory / f"{entrant}.yaml").write_text(yaml.safe_dump(record), encoding="utf-8")


@pytest.fixture(scope="session")
def built_site(board_inputs: Path) -> Path:
    from bench.board import build

    out = board_inputs / "site"
    build(_options(board_inputs, out))
    return out


def _options(root: Path, out: Path, **changes: Any) -> BuildOptions:
    from bench.board import BuildOptions

    base = BuildOptions(
        runs=root / "runs",
        results=None,
        out=out,
        templates=REPO / "site_templates",
        methodology=REPO / "docs" / "METHODOLOGY.md",
        submissions=root / "submissions",
        repo_url="https://github.com/example/bench-results",
        resamples=500,
        frontier_resamples=200,
    )
    return replace(base, **changes)


@pytest.fixture(scope="session")
def make_options() -> Callable[..., BuildOptions]:
    """``make_options(root, out, **changes)``: the options every board test builds with."""
    return _options


@pytest.fixture(scope="session")
def unscored_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A board of real runs with tasks that could not be scored, one of them private, and one
    entrant's two rows told apart by the engine each declared (``unscored_runs``)."""
    from unscored_runs import write_unscored_runs

    from bench.board import build

    root = tmp_path_factory.mktemp("unscored")
    write_unscored_runs(root)
    build(_options(root, root / "site", submissions=None))
    return root / "site"
