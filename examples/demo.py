"""`make demo`: the whole loop on the shipped example, offline, writing only under --out.

Runs the example support bot v1 and v2 on the public split of the example tasks, shows both
runs side by side and v2's failures, replays v2 from its cassette with no entrant at all, and
ends with where everything is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.core.errors import BenchError
from bench.reports import compare_runs, render_compare, render_show, summarize
from bench.runner import RunRequest, start_run

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("build/demo"))
    args = parser.parse_args(argv)
    runs = args.out / "runs"
    if runs.exists() and any(runs.iterdir()):
        print(f"{runs} is not empty; the demo never writes over earlier runs", file=sys.stderr)
        return 2
    tasks = HERE / "tasks"
    results = {}
    try:
        for version in ("v1", "v2"):
            request = RunRequest(
                tasks=tasks,
                target_file=HERE / "targets" / f"support-bot-{version}.yaml",
                split="public",
                repeats=2,
                runs_dir=runs,
            )
            run_dir, _ = start_run(request)
            results[version] = run_dir
            print(f"ran example-support-bot {version}: {run_dir.path}")
        replay = RunRequest(
            tasks=tasks, replay=str(results["v2"].path), split="public", repeats=2, runs_dir=runs
        )
        replayed, _ = start_run(replay)
    except BenchError as exc:
        print(f"error[{exc.code}]: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    v1, v2, again = (summarize(results["v1"]), summarize(results["v2"]), summarize(replayed))
    print()
    print("--- the two runs, side by side ---")
    print(render_compare(compare_runs(v1, v2)), end="")
    print()
    print("--- v2, with the tasks it failed and why ---")
    print(render_show(v2), end="")
    print()
    same = [s.value for s in v2.task_scores] == [s.value for s in again.task_scores]
    print(
        f"--- v2 replayed from its cassette, no entrant called: "
        f"{'same task scores' if same else 'DIFFERENT task scores'} ({again.config.run_id}) ---"
    )
    print()
    print(f"demo output: {args.out.resolve()}")
    print(f"  runs:       {runs.resolve()}")
    print(f"  look again: .venv/bin/bench show latest --runs-dir {runs}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
