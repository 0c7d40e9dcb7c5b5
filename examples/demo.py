"""`make demo`: the whole loop on the shipped example, offline, writing only under --out.

1. run the example support bot v1 and v2 on the public split of the example tasks;
2. compare them and show v2's failures, with the sentences that failed them;
3. replay v2 from its cassette with no entrant at all;
4. sign both runs with a throw-away Ed25519 key registered in a temporary allowed_signers,
   verify the bundles, and show a tampered copy rejected with its code;
5. build the board from the verified bundles;
6. end with where everything is, the board's path last.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from bench.board import BuildOptions, build
from bench.core.errors import BenchError
from bench.records import RunDir
from bench.reports import compare_runs, render_compare, render_show, summarize
from bench.runner import RunRequest, start_run
from bench.signing.allowed_signers import signer_line
from bench.signing.bundle import build_bundle
from bench.signing.keys import public_line
from bench.testing.keys import write_private_key
from bench.verify.render import render_text
from bench.verify.verifier import VerifyOptions, verify_bundle

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
ENTRANT = "example-support-bot"


def run_both(runs: Path) -> dict[str, RunDir]:
    done = {}
    for version in ("v1", "v2"):
        request = RunRequest(
            tasks=TASKS,
            target_file=HERE / "targets" / f"support-bot-{version}.yaml",
            split="public",
            repeats=2,
            runs_dir=runs,
        )
        run_dir, _ = start_run(request)
        done[version] = run_dir
        print(f"ran example-support-bot {version}: {run_dir.path}")
    return done


def throwaway_key(out: Path) -> tuple[Path, Path]:
    """A fresh Ed25519 key (OpenSSH format) and an allowed_signers file registering it."""
    key_file = out / "demo-key" / "id_ed25519"
    key = write_private_key(key_file)
    signers = out / "submissions" / "allowed_signers"
    signers.parent.mkdir(parents=True)
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    return key_file, signers


def build_site(out: Path, signers: Path) -> Path:
    """The board from the verified bundles (not --strict: the example families are small)."""
    result = build(
        BuildOptions(
            runs=None,
            results=out / "results",
            out=out / "site",
            templates=HERE.parent / "site_templates",
            methodology=HERE.parent / "docs" / "METHODOLOGY.md",
            submissions=HERE.parent / "submissions",
            allowed_signers=signers,
            tasks=TASKS,
        )
    )
    rows = sum(len(cohort.entries) for cohort in result.board.cohorts)
    verified = sum(e.verified for cohort in result.board.cohorts for e in cohort.entries)
    print(f"built the board: {rows} row(s), {verified} verified, {len(result.warnings)} warning(s)")
    return result.index


def sign_and_verify(out: Path, runs: dict[str, RunDir]) -> tuple[bool, Path]:
    key_file, signers = throwaway_key(out)
    results = out / "results"
    options = VerifyOptions(
        results_root=results, allowed_signers=signers, tasks=TASKS, replay_sample=3, seed=1
    )
    bundles = []
    for version, run in runs.items():
        bundle = build_bundle(
            run, entrant=ENTRANT, key_file=key_file, out_root=results, allowed_signers=signers
        )
        bundles.append(bundle)
        verdict = verify_bundle(bundle, options)
        print(f"bundled and signed {version}: {bundle}")
        print(f"  bench verify: {render_text(verdict).splitlines()[0]}")
        if verdict.code is not None:
            return False, signers
    # A tampered copy, in a results tree of its own: one byte of the cassette changed.
    tampered_root = out / "tampered" / "results"
    victim = tampered_root / bundles[-1].relative_to(results)
    shutil.copytree(bundles[-1], victim)
    cassette = victim / "cassette.jsonl"
    data = bytearray(cassette.read_bytes())
    data[len(data) // 2] ^= 0x01
    cassette.write_bytes(bytes(data))
    rejected = verify_bundle(
        victim,
        VerifyOptions(results_root=tampered_root, allowed_signers=signers, tasks=TASKS, seed=1),
    )
    print(f"a tampered copy: {victim}")
    print(f"  bench verify: {render_text(rejected).splitlines()[0]}")
    return rejected.code is not None, signers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("build/demo"))
    args = parser.parse_args(argv)
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        print(f"{out} is not empty; the demo never writes over earlier output", file=sys.stderr)
        return 2
    runs = out / "runs"
    try:
        results = run_both(runs)
        replay = RunRequest(
            tasks=TASKS, replay=str(results["v2"].path), split="public", repeats=2, runs_dir=runs
        )
        replayed, _ = start_run(replay)
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
            f"{'same task scores' if same else 'DIFFERENT task scores'} "
            f"({again.config.run_id}) ---"
        )
        print()
        print("--- signed bundles, verified; a tampered copy rejected ---")
        verified, signers = sign_and_verify(out, results)
        print()
        print("--- the board ---")
        board = build_site(out, signers)
    except BenchError as exc:
        print(f"error[{exc.code}]: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    print()
    print(f"demo output: {out.resolve()}")
    print(f"  runs:       {runs.resolve()}")
    print(f"  bundles:    {(out / 'results').resolve()}")
    print(f"  look again: .venv/bin/bench show latest --runs-dir {runs}")
    print(f"  board:      {board.resolve()}")
    return 0 if same and verified else 1


if __name__ == "__main__":
    sys.exit(main())
