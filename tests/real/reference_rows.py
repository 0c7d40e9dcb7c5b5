"""Make the board's maintainer rows (issue 17): run, merge, bundle and sign them into results/.

    .venv/bin/python tests/real/reference_rows.py --key-dir ~/bench-project-key

* SmolLM2-135M-Instruct through llama-cpp-python (engines.py builds and starts it) on the whole
  task set, three repeats: two engines side by side, one shard each (``--shard 0/2``,
  ``1/2``), merged with ``bench merge`` into one run;
* the four no-model baselines (reference rows) and the example support bot v1 and v2 (a
  rule-based entrant), the same task set and repeats.

Each run is bundled with its entrant's maintainer key (``KEY_DIR/<entrant>``, whose public line
is in submissions/allowed_signers; docs/SUBMISSIONS.md says how maintainers add and rotate
them) and
verified with the repository's own inputs, as the publish workflow does. Not a test: it takes
about half an hour of two cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import engine_home, start_engine  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
REPEATS = "3"
SCRIPTED = (
    ("baseline-do-nothing", "examples/targets/baselines/do-nothing.yaml"),
    ("baseline-echo", "examples/targets/baselines/echo.yaml"),
    ("baseline-quote-top-passage", "examples/targets/baselines/quote-top-passage.yaml"),
    ("baseline-refuse-everything", "examples/targets/baselines/refuse-everything.yaml"),
    ("example-support-bot", "examples/targets/support-bot-v1.yaml"),
    ("example-support-bot", "examples/targets/support-bot-v2.yaml"),
)
SMOLLM2 = "smollm2-135m-llamacpp"
TARGET = """format_version: 1
kind: openai
entrant: smollm2-135m-llamacpp
display_name: SmolLM2-135M-Instruct Q4_1 (llama-cpp-python)
model: smollm2-135m-instruct-q4_1
base_url: {base}
params: {{temperature: 0, max_tokens: 256}}
"""


def bench(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "bench.cli", *args], cwd=REPO,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"bench {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def only_run(runs: Path) -> Path:
    [run] = [p for p in runs.iterdir() if p.is_dir() and p.name[:1].isdigit()]
    return run


def smollm2(work: Path) -> Path:
    home = engine_home()
    engines = [start_engine(home, work, f"engine-{n}") for n in (0, 1)]
    try:
        shards: list[Path] = []

        def shard(n: int) -> None:
            target = work / f"smollm2-{n}.yaml"
            target.write_text(TARGET.format(base=engines[n].url + "/v1"), encoding="utf-8")
            runs = work / f"runs-{n}"
            bench("run", "--tasks", "tasks", "--target", str(target), "--repeats", REPEATS,
                  "--shard", f"{n}/2", "--concurrency", "1", "--timeout", "30",
                  "--runs-dir", str(runs))  # fmt: skip
            shards.append(only_run(runs))

        lanes = [threading.Thread(target=shard, args=(n,)) for n in (0, 1)]
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()
        if len(shards) != 2:
            raise SystemExit("a shard failed")
    finally:
        for engine in engines:
            engine.stop()
    merged = work / "merged"
    bench("merge", *(str(s) for s in sorted(shards)), "--runs-dir", str(merged))
    return only_run(merged)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--key-dir", type=Path, required=True)
    parser.add_argument("--only", choices=["scripted", "smollm2"], default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-rows-"))
    runs: list[tuple[str, Path]] = []
    if args.only != "smollm2":
        for n, (entrant, target) in enumerate(SCRIPTED):
            out = work / f"runs-{n}-{entrant}"
            bench("run", "--tasks", "tasks", "--target", target, "--repeats", REPEATS,
                  "--runs-dir", str(out))  # fmt: skip
            runs.append((entrant, only_run(out)))
    if args.only != "scripted":
        runs.append((SMOLLM2, smollm2(work)))
    for entrant, run in runs:
        print(bench("bundle", run.name, "--runs-dir", str(run.parent), "--entrant", entrant,
                    "--key", str(args.key_dir / entrant)).strip())  # fmt: skip
    for bundle in sorted((REPO / "results").glob("*/*/manifest.json")):
        print(bench("verify", str(bundle.parent)).splitlines()[0])
    print(f"work files: {work}")


if __name__ == "__main__":
    main()
