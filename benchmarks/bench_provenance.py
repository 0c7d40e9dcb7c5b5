"""Provenance across many bundles: what a board that verifies N bundles pays for the
duplicate check, with and without the per-process cache and the prefilter.

Builds the full-size bundle of ``bench_verify.py`` (the example support bot over every task in
``tasks/``; ``--repeats``, default 1), then N bundles of N entrants under one results root:
half are *independent* (every answer word of copy i gets the suffix ``i``, so no two share
words: the prefilter can skip them) and half are *copies* (answers word for word: every pair
is compared in full and found a duplicate). The copies are the worst case; the mix is what a
board holding one thief per independent entrant would see.

Then the board's loop: ``check_provenance`` for every bundle against the root (the duplicate it
raises is caught), timed twice in the same process: **before** (each other bundle read from
disk every time and every pair compared attempt by attempt, as before the cache) and **after**
(``read_other``'s cache and ``could_duplicate``'s prefilter). Records are loaded beforehand and
not timed. The verdicts of both loops are compared: they must be the same bundles refused.

Prints figures; asserts nothing. Writes only under a temp dir (or ``--keep DIR``), offline.

    .venv/bin/python benchmarks/bench_provenance.py              # N = 40, about a minute
    .venv/bin/python benchmarks/bench_provenance.py --bundles 20
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_verify import make_bundle  # noqa: E402


def _suffixed(value: Any, suffix: str) -> Any:
    if isinstance(value, str):
        return " ".join(f"{word}{suffix}" for word in value.split())
    return value


def make_root(source: Path, root: Path, count: int) -> list[Path]:
    raw = gzip.decompress((source / "attempts.jsonl.gz").read_bytes()).splitlines()
    out = []
    for index in range(count):
        entrant = f"entrant-{index:04d}"
        bundle = root / entrant / source.name
        shutil.copytree(source, bundle)
        if index % 2 == 0:  # independent: its own words everywhere
            lines = []
            for line in raw:
                value = json.loads(line)
                trace = value["trace"]
                trace["answers"] = [_suffixed(a, f"q{index}") for a in trace["answers"]]
                lines.append(json.dumps(value).encode())
            (bundle / "attempts.jsonl.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
        out.append(bundle)
    return out


def board_loop(bundles: list[Path], runs: dict[Path, Any], root: Path) -> tuple[float, set[str]]:
    from bench.verify.failure import VerifyFailure
    from bench.verify.layout import Placement
    from bench.verify.provenance import check_provenance

    refused = set()
    started = time.perf_counter()
    for bundle in bundles:
        placement = Placement(root=root, entrant=bundle.parent.name, run_id=bundle.name)
        try:
            check_provenance(bundle, placement, runs[bundle])
        except VerifyFailure:
            refused.add(bundle.parent.name)
    return time.perf_counter() - started, refused


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundles", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args(argv)
    from bench.verify import provenance
    from bench.verify.records import load_run

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-provenance-"))
    try:
        source, _, attempts, _ = make_bundle(work / "source", args.repeats)
        root = work / "results"
        bundles = make_root(source, root, args.bundles)
        runs = {b: load_run(b) for b in bundles}
        print(f"{args.bundles} bundles of {attempts} attempts; half independent, half copies")

        cached, prefilter = provenance.read_other, provenance.could_duplicate

        empty = provenance.Digest(frozenset(), frozenset(), frozenset(), frozenset())

        def uncached(bundle: Path) -> Any:  # the prefilter is off: its digest is not read
            found = provenance.contents_of_bundle(bundle)
            return None if found is None else (found, empty)

        provenance.read_other, provenance.could_duplicate = uncached, lambda *_: True
        before, refused_before = board_loop(bundles, runs, root)
        provenance.read_other, provenance.could_duplicate = cached, prefilter
        after, refused_after = board_loop(bundles, runs, root)
        warm, _ = board_loop(bundles, runs, root)
        pairs = args.bundles * (args.bundles - 1)
        print(f"before (read every time, every pair in full): {before:7.2f} s")
        cold_ratio, warm_ratio = before / after, before / warm
        print(f"after  (cache + prefilter, cold cache):       {after:7.2f} s  ({cold_ratio:.1f}x)")
        print(f"after, cache already warm:                    {warm:7.2f} s  ({warm_ratio:.1f}x)")
        print(f"per ordered pair after (warm): {warm / pairs * 1e3:.2f} ms over {pairs} pairs")
        same = refused_before == refused_after
        print(f"refused: {len(refused_after)} bundles; same as before: {same}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if same else 1  # the prefilter and the caches must not change a verdict


if __name__ == "__main__":
    raise SystemExit(main())
