"""How long ``bench --help`` takes as a process, beside a bare ``python -c pass`` measured in the
same run (the machine is shared: the ratio and the difference say more than the raw time).

    .venv/bin/python benchmarks/bench_help.py [--runs 30]

Prints the median and the 90th percentile of each, and ``bench --help`` minus the baseline.
The goal (issue 19): ``bench --help`` ≤ 200 ms median.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(sys.executable).parent / "bench"


def timed(command: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - began)
    return out


def show(name: str, values: list[float]) -> float:
    median = statistics.median(values)
    p90 = statistics.quantiles(values, n=10)[-1]
    print(f"{name:<22} median {median * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    timed([str(BENCH), "--help"], 3)  # warm the file cache
    baseline: list[float] = []
    helped: list[float] = []
    for _ in range(args.runs):  # interleaved, so load changes hit both alike
        baseline += timed([sys.executable, "-c", "pass"], 1)
        helped += timed([str(BENCH), "--help"], 1)
    base = show("python -c pass", baseline)
    cli = show("bench --help", helped)
    print(f"bench --help - python: {(cli - base) * 1000:.1f} ms; ratio {cli / base:.2f}x")


if __name__ == "__main__":
    main()
