"""``bench verify`` on a full-size bundle: wall time per verifier stage and peak memory.

Runs the example support bot v1 (``examples/targets/support-bot-v1.yaml``) over the whole task
set in ``tasks/`` (every split) with 5 repeats, bundles the run with a throw-away Ed25519 key
registered in a temporary ``allowed_signers`` (as ``examples/demo.py`` does), then verifies the
bundle with a replay sample of ``ceil(0.2 x attempts)``.

The verification runs in a fresh child process, so its peak RSS (``VmHWM`` from
``/proc/self/status``) is the verifier's alone, next to a child that only imports the same
modules. Each stage function the verifier calls (``bench.verify.layout``, ``manifest``,
``records``, ``scores``) is wrapped with a timer for the child's lifetime; behaviour is
unchanged (the wrapper calls the original and re-raises whatever it raises). Baselines from the
same child: reading and SHA-256-hashing every bundle file, and gunzip + ``json.loads`` of every
attempt line.

Prints figures; asserts nothing. Writes only under a temp dir (or ``--keep DIR``), offline.

    .venv/bin/python benchmarks/bench_verify.py             # about 1-2 minutes on 2 cores
    .venv/bin/python benchmarks/bench_verify.py --quick     # 1 repeat, 1 verify round
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "tasks"
TARGET = REPO / "examples" / "targets" / "support-bot-v1.yaml"
ENTRANT = "example-support-bot"
REPLAY_SHARE = 0.2

# (module, function) in the order ``verify_bundle`` calls them.
STAGES: list[tuple[str, str]] = [
    ("bench.verify.verifier", "_signers"),
    ("bench.verify.layout", "place"),
    ("bench.verify.layout", "scan"),
    ("bench.verify.manifest", "read_manifest"),
    ("bench.verify.manifest", "check_binding"),
    ("bench.verify.manifest", "check_signature"),
    ("bench.verify.manifest", "check_time"),
    ("bench.verify.manifest", "check_unique"),
    ("bench.verify.manifest", "check_files"),
    ("bench.verify.records", "load_run"),
    ("bench.verify.records", "check_consistency"),
    ("bench.verify.scores", "pinned_tasks"),
    ("bench.verify.scores", "check_tasks"),
    ("bench.verify.scores", "check_scores"),
    ("bench.verify.binding", "check_recording"),
    ("bench.verify.binding", "check_binding"),
    ("bench.verify.sample", "resolve_seed"),
    ("bench.verify.scores", "check_replay"),
    ("bench.verify.provenance", "check_provenance"),
    ("bench.verify.scores", "check_error_rate"),
]


def vm_hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return -1


# --- the parent: run, bundle, then measure in children ---------------------------------------


def make_bundle(work: Path, repeats: int) -> tuple[Path, Path, int, float]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bench.runner import RunRequest, start_run
    from bench.signing.allowed_signers import signer_line
    from bench.signing.bundle import build_bundle
    from bench.signing.keys import public_line

    started = time.perf_counter()
    run, _ = start_run(
        RunRequest(tasks=TASKS, target_file=TARGET, repeats=repeats, runs_dir=work / "runs")
    )
    run_seconds = time.perf_counter() - started
    attempts = len(list(run.attempts()))
    key = Ed25519PrivateKey.generate()
    key_file = work / "key" / "id_ed25519"
    key_file.parent.mkdir(parents=True)
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    signers = work / "submissions" / "allowed_signers"
    signers.parent.mkdir(parents=True)
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    bundle = build_bundle(
        run,
        entrant=ENTRANT,
        key_file=key_file,
        out_root=work / "results",
        allowed_signers=signers,
    )
    return bundle, signers, attempts, run_seconds


def child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1 repeat, 1 verify round")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="verify rounds (fresh process)")
    parser.add_argument("--keep", type=Path, help="write under this directory and keep it")
    parser.add_argument("--child", nargs=3, metavar=("BUNDLE", "SIGNERS", "SAMPLE"))
    parser.add_argument("--imports-only", action="store_true")
    args = parser.parse_args(argv)
    if args.imports_only:
        import bench.verify  # noqa: F401
        from bench.verify import verifier  # noqa: F401

        print(json.dumps({"vm_hwm_kib": vm_hwm_kib()}))
        return 0
    if args.child:
        bundle, signers, sample = args.child
        print(json.dumps(measure(Path(bundle), Path(signers), int(sample))))
        return 0
    repeats = 1 if args.quick else args.repeats
    rounds = 1 if args.quick else args.rounds
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-verify-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        bundle, signers, attempts, run_seconds = make_bundle(work, repeats)
        sample = math.ceil(REPLAY_SHARE * attempts)
        size = sum(p.stat().st_size for p in bundle.iterdir())
        print(f"bundle: {attempts} attempts ({repeats} repeats), {size / 1e6:.2f} MB on disk")
        print(f"  (running the bot took {run_seconds:.1f} s; not part of verification)")
        print(
            f"verify: replay sample {sample} = ceil({REPLAY_SHARE} x {attempts}), {rounds} rounds"
        )
        results = [child("--child", str(bundle), str(signers), str(sample)) for _ in range(rounds)]
        imports = child("--imports-only")
        report(results, imports)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def report(results: list[dict[str, Any]], imports: dict[str, Any]) -> None:
    verdicts = {r["verdict"] for r in results}
    print(f"verdict: {', '.join(sorted(verdicts))}")
    print()
    print(f"{'stage':<34}{'median ms':>11}{'min ms':>10}{'share':>8}")
    totals = [r["total_s"] for r in results]
    median_total = statistics.median(totals)
    names = list(results[0]["stages"])
    for name in names:
        values = [r["stages"].get(name, 0.0) for r in results]
        share = statistics.median(values) / median_total if median_total else 0.0
        row = f"{name:<34}{statistics.median(values) * 1e3:>11.1f}{min(values) * 1e3:>10.1f}"
        print(f"{row}{share:>8.1%}")
    print(f"{'verify_bundle (total)':<34}{median_total * 1e3:>11.1f}{min(totals) * 1e3:>10.1f}")
    print()
    per_replay = statistics.median(r["stages"].get("scores.check_replay", 0.0) for r in results)
    sample = results[0]["replayed"]
    if sample:
        print(f"replay: {sample} attempts, {per_replay / sample * 1e3:.2f} ms per replayed attempt")
    print("baselines (same child, same bundle):")
    print(f"  read + SHA-256 every file:        {results[0]['baseline_hash_s'] * 1e3:9.1f} ms")
    print(f"  gunzip + json.loads every attempt: {results[0]['baseline_parse_s'] * 1e3:8.1f} ms")
    hwm = max(r["vm_hwm_kib"] for r in results)
    base = imports["vm_hwm_kib"]
    print()
    print(f"peak RSS (VmHWM) of a verifying process: {hwm / 1024:.1f} MiB")
    print(f"  of a process that only imports bench.verify: {base / 1024:.1f} MiB")
    print(f"  verification itself: +{(hwm - base) / 1024:.1f} MiB")
    goal = "under" if median_total < 3.0 else "OVER"
    print(f"goal (< 3 s): {median_total:.2f} s median, {goal}")


# --- the child: verify once, with every stage timed ------------------------------------------


def _instrument(timings: dict[str, float]) -> None:
    import importlib

    for module_name, function_name in STAGES:
        module = importlib.import_module(module_name)
        original = getattr(module, function_name)
        label = f"{module_name.rsplit('.', 1)[1]}.{function_name}"
        setattr(module, function_name, _timed(original, label, timings))


def _timed(original: Callable[..., Any], label: str, timings: dict[str, float]) -> Any:
    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            timings[label] += time.perf_counter() - started

    return wrapper


def measure(bundle: Path, signers: Path, sample: int) -> dict[str, Any]:
    from bench.verify import VerifyOptions, verify_bundle

    timings: dict[str, float] = defaultdict(float)
    _instrument(timings)
    options = VerifyOptions(
        results_root=bundle.parent.parent,
        allowed_signers=signers,
        tasks=TASKS,
        replay_sample=sample,
        seed=0,
    )
    started = time.perf_counter()
    verdict = verify_bundle(bundle, options)
    total = time.perf_counter() - started
    hwm = vm_hwm_kib()
    started = time.perf_counter()
    for path in sorted(bundle.iterdir()):
        hashlib.sha256(path.read_bytes()).hexdigest()
    hash_s = time.perf_counter() - started
    started = time.perf_counter()
    for line in gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes()).splitlines():
        json.loads(line)
    parse_s = time.perf_counter() - started
    return {
        "verdict": verdict.code or "valid",
        "total_s": total,
        "stages": {label: timings.get(label, 0.0) for label in _labels()},
        "replayed": len(verdict.replayed),
        "vm_hwm_kib": hwm,
        "baseline_hash_s": hash_s,
        "baseline_parse_s": parse_s,
    }


def _labels() -> list[str]:
    return [f"{m.rsplit('.', 1)[1]}.{f}" for m, f in STAGES]


if __name__ == "__main__":
    sys.exit(main())
