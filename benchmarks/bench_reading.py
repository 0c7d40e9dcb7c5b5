"""Refusing hostile bundle files: wall time and peak memory of ``bench verify`` (and of the
reader alone, ``bench.verify.records.load_run``) on a gzip bomb and on a flood of tiny lines.

Builds the full-size bundle of ``bench_verify.py`` (the example support bot over every task in
``tasks/``, 5 repeats: 860 attempts), then one copy per hostile case, with one file replaced
and the manifest honestly re-signed by the bundle's own key (an attacker signs their own
bundle), so every check before the records passes and the reader is what refuses:

* ``attempts-tiny-lines``: attempts.jsonl.gz is 64 KiB of gzip that inflates to 64 MiB of
  one-token lines (``1``);
* ``attempts-one-line``: attempts.jsonl.gz inflates to one 64 MiB line (``0`` repeated);
* ``cassette-tiny-lines``: cassette.jsonl is 64 MiB of ``{}`` lines;
* ``cassette-one-line``: cassette.jsonl is one 64 MiB JSON string.

Each case runs in a fresh child process that imports ``bench.verify``, then times
``verify_bundle`` (or ``load_run``) and reads its peak RSS (``VmHWM`` from
``/proc/self/status``, else ``ru_maxrss``); the same child's RSS after the imports is printed
beside it, and the baseline is the same measurement on the untouched bundle. Before the
reader streamed with caps (issue 14), the first case took 363 s and 2.9 GB to refuse and the
third 194 s. Goal: each refusal under 2 s and 200 MiB.

Prints figures; asserts nothing. Writes only under a temp dir (or ``--keep DIR``), offline.

    .venv/bin/python benchmarks/bench_reading.py            # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_reading.py --quick    # 1 repeat, 1 round
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MiB = 1024 * 1024
GOAL_S, GOAL_MIB = 2.0, 200


def peak_rss_kib() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


# --- the parent: a bundle, its hostile copies, children that refuse them ----------------------


def hostile_files() -> dict[str, tuple[str, bytes]]:
    """Case name -> (the file it replaces, its bytes)."""
    from bench.signing.bundle import deterministic_gzip

    return {
        "attempts-tiny-lines": ("attempts.jsonl.gz", deterministic_gzip(b"1\n" * (32 * MiB))),
        "attempts-one-line": ("attempts.jsonl.gz", deterministic_gzip(b"0" * (64 * MiB))),
        "cassette-tiny-lines": ("cassette.jsonl", b"{}\n" * (64 * MiB // 3)),
        "cassette-one-line": ("cassette.jsonl", b'"' + b"x" * (64 * MiB - 3) + b'"\n'),
    }


def resign(bundle: Path, key_file: Path, name: str, data: bytes) -> None:
    """Replace ``name`` and list it honestly in a manifest signed by the bundle's key."""
    import rfc8785
    from cryptography.hazmat.primitives import serialization

    from bench.signing import sign

    (bundle / name).write_bytes(data)
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        if entry["path"] == name:
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    key = serialization.load_ssh_private_key(key_file.read_bytes(), password=None)
    (bundle / "manifest.json").write_bytes(raw)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


def make_cases(work: Path, repeats: int) -> tuple[dict[str, Path], Path, int, int]:
    """The untouched bundle and one world per hostile case, each with its own results root
    (a copy of the same run id beside another would be a re-used run id)."""
    sys.path.insert(0, str(HERE))
    from bench_verify import make_bundle

    base = work / "base"
    base.mkdir()
    bundle, signers, attempts, _ = make_bundle(base, repeats)
    key_file = base / "key" / "id_ed25519"
    inflated = len(gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes()))
    cases = {"normal bundle (baseline)": bundle}
    relative = bundle.relative_to(base / "results")
    for name, (file, data) in hostile_files().items():
        copy = work / name / "results" / relative
        shutil.copytree(bundle, copy)
        resign(copy, key_file, file, data)
        cases[name] = copy
    return cases, signers, attempts, inflated


def child(bundle: Path, signers: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(bundle), str(signers), mode],
        check=True,
        capture_output=True,
        text=True,
        timeout=900,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 repeat in the run, 1 round")
    parser.add_argument("--rounds", type=int, default=3, help="children per case and mode")
    parser.add_argument("--keep", type=Path, help="write under this directory and keep it")
    parser.add_argument("--child", nargs=3, metavar=("BUNDLE", "SIGNERS", "MODE"))
    args = parser.parse_args(argv)
    if args.child:
        bundle, signers, mode = args.child
        print(json.dumps(measure(Path(bundle), Path(signers), mode)))
        return 0
    repeats, rounds = (1, 1) if args.quick else (5, args.rounds)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-reading-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(
            f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}"
        )
        cases, signers, attempts, inflated = make_cases(work, repeats)
        print(
            f"bundle: {attempts} attempts, attempts.jsonl.gz inflates to {inflated / MiB:.1f} MiB"
        )
        for name, (file, data) in hostile_files().items():
            print(f"  {name}: {file} of {len(data) / 1024:,.0f} KiB")
        print(f"{rounds} fresh child process(es) per row; median seconds, max peak RSS\n")
        header = f"{'case':<26}{'mode':<8}{'verdict':<15}{'seconds':>9}{'peak MiB':>10}"
        print(header + f"{'imports':>9}{'goal':>6}")
        for name, bundle in cases.items():
            for mode in ("verify", "read"):
                results = [child(bundle, signers, mode) for _ in range(rounds)]
                seconds = statistics.median(r["seconds"] for r in results)
                peak = max(r["peak_kib"] for r in results) / 1024
                imports = max(r["imports_kib"] for r in results) / 1024
                baseline = name.startswith("normal")
                ok = baseline or (seconds < GOAL_S and peak < GOAL_MIB)
                mark = "" if baseline else "ok" if ok else "OVER"
                row = f"{name:<26}{mode:<8}{results[0]['verdict']:<15}{seconds:>9.3f}"
                print(f"{row}{peak:>10.1f}{imports:>9.1f}{mark:>6}")
        print(f"\ngoal: every refusal under {GOAL_S} s and {GOAL_MIB} MiB peak RSS")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


# --- the child: one refusal, timed -------------------------------------------------------------


def measure(bundle: Path, signers: Path, mode: str) -> dict[str, Any]:
    from bench.verify import VerifyOptions, verify_bundle
    from bench.verify.failure import VerifyFailure
    from bench.verify.records import load_run

    imports = peak_rss_kib()
    started = time.perf_counter()
    if mode == "verify":
        options = VerifyOptions(
            results_root=bundle.parent.parent,
            allowed_signers=signers,
            tasks=HERE.parent / "tasks",
            replay_sample=1,
            seed=0,
            check_duplicates=False,
        )
        verdict = verify_bundle(bundle, options).code or "valid"
    else:
        try:
            load_run(bundle)
            verdict = "read"
        except VerifyFailure as exc:
            verdict = exc.code
    seconds = time.perf_counter() - started
    return {
        "verdict": str(verdict),
        "seconds": seconds,
        "peak_kib": peak_rss_kib(),
        "imports_kib": imports,
    }


if __name__ == "__main__":
    sys.exit(main())
