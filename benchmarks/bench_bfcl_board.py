"""The BFCL board from disk (issue 18, point 4): 100 real signed bundles of the whole BFCL
suite under ``results/``, and ``bench board build`` over them, verified and not.

    .venv/bin/python benchmarks/bench_bfcl_board.py [--entrants 100] [--rounds 3]
        [--work DIR] [--profile] [--skip-verified] [--cache-only [--seal] | --publish-only]

``--work DIR`` keeps (and on the next call reuses) the import, the runs and the bundles:
making 100 runs of 3,628 attempts takes about ten minutes of two cores; measuring them does
not. Without it, everything is made in a temp directory and removed.

**The bundles.** The pinned bfcl-eval (``tests/suites/bfcl-requirements.txt``, the venv the
agreement tests build) is imported whole (``bench suite import bfcl``: 3,628 tasks). Entrant
``i`` of ``n`` is a scripted target of skill ``0.2 + 0.7 i / (n - 1)``: on each task it gives
the oracle's calls (``bench_bfcl.oracle_output``) when a hash of (entrant, task) falls under
its skill, and otherwise an answer of its own (a sentence in words no other entrant uses where
calls were expected, a call where none was): so the runs differ the way real entrants' do and
the verifier's provenance check finds no copy among them. Each is a real ``bench run``
(``start_run``, in-process, two at a time) bundled and signed by ``build_bundle`` with one
throw-away key (``bench.testing.keys.write_private_key``) listed for every entrant in the
work directory's ``submissions/allowed_signers``.

**What is timed.** Each figure is the whole process as a user runs it, wall time and CPU time
(user + sys of the process and its children), ``--rounds`` rounds, in this order each round:

1. ``bench board build --no-runs --results R --out SITE --suite-tasks T --allowed-signers S
   --submissions EMPTY --strict``: every bundle verified (signature, hashes, task set, every
   score recomputed, a replayed sample, provenance) and read;
2. the same with ``--no-verify``;
3. baseline: a process that only inflates every bundle's ``attempts.jsonl.gz`` and
   ``json.loads`` each line (the floor of reading the same bytes at all);
4. baseline: the same build on 300 of the tasks is not possible from disk (the bundles are of
   the whole suite), so the in-memory board of ``bench_bfcl.py`` is the other reference.

Then, in this process, a per-bundle breakdown on ``--sample`` bundles: ``verify_bundle``,
``load_run`` and ``summarize`` (the steps ``BundlesLoader`` took per bundle before this
change), and what ``BundlesLoader`` takes now. ``--publish-only`` times instead the publish
workflow's checks as they were (a ``bench verify`` process per bundle, ``--sample`` of them
timed, then the build) against the build. ``--seal`` seals section 3's cache with a random key
and prunes it, as the publish workflow does. ``--profile`` adds a cProfile of one bundle's
``verify_bundle`` and of a ``--no-verify`` load. Every build must put every bundle on the
board as verified (exit 1 otherwise).
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import hashlib
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))

from bench_bfcl import BENCH, bfcl_package, fmt, oracle_output, ratios, timed  # noqa: E402

ENTRANT = '''
"""Scripted BFCL entrants of graded skill (bench_bfcl_board.py): entrant e<i> gives the
oracle's calls where a hash of (entrant, task) falls under its skill, an answer of its own
otherwise, and "done" once the tools answered."""
import hashlib
import json
from pathlib import Path

from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse, current_attempt

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())
SKILLS = json.loads((Path(__file__).parent / "skills.json").read_text())


def _draw(name, task):
    return hashlib.sha256(f"{name}:{task}".encode()).hexdigest()


def make(name, skill):
    def respond(request: ModelRequest) -> ModelResponse:
        attempt = current_attempt.get()
        assert attempt is not None
        inputs, made, first_tool = ANSWERS[attempt[0]]
        if len(request.messages) > inputs:  # the tools answered
            return ModelResponse(content="done")
        draw = _draw(name, attempt[0])
        if int(draw[:8], 16) / 2**32 >= skill:  # wrong: in words of its own
            if made:
                words = " ".join(draw[8 + 6 * k: 14 + 6 * k] for k in range(6))
                return ModelResponse(content=f"{name} declines {words}")
            made = [[first_tool, {}]] if first_tool else []
        calls = [ToolCallRequest(id=f"c{i}", name=n, arguments=a)
                 for i, (n, a) in enumerate(made)]
        return ModelResponse(content="" if calls else "No function fits.", tool_calls=calls)
    return respond


for _name, _skill in SKILLS.items():
    globals()[_name.replace("-", "_")] = make(_name, _skill)
'''


def entrant_name(i: int) -> str:
    return f"bfcl-e{i:03d}"


def write_entrants(task_dir: Path, where: Path, n: int) -> list[Path]:
    from bench.tasks.load import load_task_set
    from bench.tasks.model import ToolSpec

    tasks = load_task_set(task_dir).tasks
    answers = {}
    for task in tasks:
        first = next((tool.name for tool in task.tools if isinstance(tool, ToolSpec)), None)
        answers[task.id] = [len(task.input), [list(c) for c in oracle_output(task)], first]
    skills = {entrant_name(i): round(0.2 + 0.7 * i / max(1, n - 1), 4) for i in range(n)}
    where.mkdir(parents=True, exist_ok=True)
    (where / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    (where / "skills.json").write_text(json.dumps(skills), encoding="utf-8")
    (where / "entrant.py").write_text(ENTRANT, encoding="utf-8")
    targets = []
    for name in skills:
        target = where / f"{name}.yaml"
        target.write_text(
            f"format_version: 1\nkind: scripted\nentrant: {name}\ndisplay_name: BFCL {name}\n"
            f"model: {name}\ncallable: entrant.py:{name.replace('-', '_')}\n",
            encoding="utf-8",
        )
        targets.append(target)
    return targets


def _make_bundle(args: tuple[Path, Path, Path, Path, Path]) -> str:
    """One real run of one entrant, bundled and signed (in a worker process)."""
    from bench.runner import RunRequest, start_run
    from bench.signing.bundle import build_bundle

    task_dir, target, runs, results, key = args
    name = target.stem
    run, status = start_run(
        RunRequest(tasks=task_dir, target_file=target, runs_dir=runs / name, concurrency=4)
    )
    assert status.status == "complete", status
    bundle = build_bundle(
        run, entrant=name, key_file=key, out_root=results, allowed_signers=results.parent / SIGNERS
    )
    shutil.rmtree(runs / name)  # the bundle is what the board reads
    return str(bundle)


SIGNERS = Path("submissions") / "allowed_signers"


def make_bundles(package: Path, work: Path, n: int) -> tuple[Path, Path]:
    """``work/bfcl/tasks`` and ``work/results`` with ``n`` signed bundles (made once)."""
    from bench.signing import public_line, signer_line
    from bench.testing.keys import write_private_key

    task_dir = work / "bfcl" / "tasks"
    if not task_dir.is_dir():
        done = subprocess.run([*BENCH, "suite", "import", "bfcl", "--out", str(work / "bfcl"),
                               "--source", str(package)], capture_output=True, text=True,
                              cwd=REPO)  # fmt: skip
        if done.returncode != 0:
            sys.exit(done.stderr[-3000:])
    results = work / "results"
    have = sorted(p.parent.parent.name for p in results.glob("*/*/manifest.json"))
    if len(have) >= n:
        return task_dir, results
    targets = write_entrants(task_dir, work / "entrants", n)
    keys = {t.stem: work / "keys" / t.stem for t in targets}  # one key per entrant: the rule
    lines = [signer_line(name, public_line(write_private_key(path).public_key()))
             for name, path in keys.items()]  # fmt: skip
    signers = work / SIGNERS
    signers.parent.mkdir(parents=True, exist_ok=True)
    signers.write_text("".join(line + "\n" for line in lines))
    for name in keys:  # registry files: --strict refuses an unknown entrant
        (signers.parent / f"{name}.yaml").write_text(
            f"display_name: BFCL {name}\norganisation: bench_bfcl_board.py\n"
            f"model: 'none: a scripted entrant of graded skill'\nlinks: []\n"
            f"contact: nobody\nlicense: MIT\ndescription: A synthetic entrant.\n",
            encoding="utf-8",
        )
    shutil.rmtree(results, ignore_errors=True)  # all under these keys, made together
    start = time.perf_counter()
    jobs = [(task_dir, t, work / "runs", results, keys[t.stem]) for t in targets]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for i, bundle in enumerate(pool.map(_make_bundle, jobs), start=1):
            if i % 10 == 0 or i == n:
                print(f"   made {i}/{n} bundles ({time.perf_counter() - start:.0f} s): {bundle}")
    return task_dir, results


# --- timing --------------------------------------------------------------------------------


BASELINE = """
import gzip, json, sys
from pathlib import Path
for path in sorted(Path(sys.argv[1]).glob("*/*/attempts.jsonl.gz")):
    for line in gzip.decompress(path.read_bytes()).splitlines():
        if line.strip():
            json.loads(line)
"""


def board_command(work: Path, task_dir: Path, results: Path, site: Path, *extra: str) -> list[str]:
    return [*BENCH, "board", "build", "--no-runs", "--results", str(results), "--out", str(site),
            "--suite-tasks", str(task_dir), "--allowed-signers", str(work / SIGNERS),
            "--submissions", str(work / SIGNERS.parent), *extra]  # fmt: skip


def check_site(site: Path, n: int, verified: bool) -> str:
    """Every bundle on the page, verified when it was asked for; the board's digest."""
    pages = sorted(site.glob("*.json"))
    rows = []
    for page in pages:
        board = json.loads(page.read_text(encoding="utf-8"))
        rows += [e for c in board["cohorts"] for e in c["entries"]]
    if len(rows) != n:
        sys.exit(f"{site}: {len(rows)} rows for {n} bundles")
    if verified and not all(row.get("verified") for row in rows):
        bad = [r.get("verified_note") for r in rows if not r.get("verified")]
        sys.exit(f"{site}: not every bundle verified: {bad[:5]}")
    digest = hashlib.sha256()
    for path in sorted(site.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def bench_builds(work: Path, task_dir: Path, results: Path, n: int, rounds: int,
                 skip_verified: bool) -> None:  # fmt: skip
    figures: dict[str, tuple[list[float], list[float]]] = {}

    def add(name: str, wall: float, cpu: float) -> None:
        figures.setdefault(name, ([], []))[0].append(wall)
        figures[name][1].append(cpu)

    digests = set()
    for r in range(rounds):
        wall, cpu, _ = timed([sys.executable, "-c", BASELINE, str(results)])
        add("baseline", wall, cpu)
        site = work / f"site-noverify-{r}"
        wall, cpu, _ = timed(board_command(work, task_dir, results, site, "--no-verify"))
        add("no-verify", wall, cpu)
        check_site(site, n, verified=False)
        if not skip_verified:
            site = work / ("site-no-cache" if r == 0 else f"site-{r}")
            wall, cpu, _ = timed(board_command(work, task_dir, results, site, "--strict"))
            add("verified", wall, cpu)
            digests.add(check_site(site, n, verified=True))
        print(f"   round {r + 1}: " + ", ".join(
            f"{k} {v[0][-1]:.2f} s wall / {v[1][-1]:.2f} s CPU" for k, v in figures.items()
        ))  # fmt: skip
    print(f"\n1. bench board build, {n} bundles x {len(json.loads(first_config(results)))} "
          f"tasks, whole process, {rounds} round(s)")  # fmt: skip
    for name, (walls, cpus) in figures.items():
        print(f"   {name:10} wall {fmt(walls)} s (median {statistics.median(walls):.2f}), "
              f"CPU {fmt(cpus)} s (median {statistics.median(cpus):.2f})")  # fmt: skip
    base = figures["baseline"]
    for name in ("verified", "no-verify"):
        if name in figures:
            print(f"   ratio {name} / baseline: wall {ratios(figures[name][0], base[0])}, "
                  f"CPU {ratios(figures[name][1], base[1])}")  # fmt: skip
    if len(digests) > 1:
        sys.exit(f"the verified builds differ: {digests}")
    print(f"   site digest (verified builds): {sorted(digests)}")


SEAL_VARIABLE = "BENCH_BOARD_SEAL_KEY"


def bench_cache(work: Path, task_dir: Path, results: Path, n: int, seal: bool = False) -> None:
    """``--cache``: a board rebuilt when one bundle is added (the newest: every other
    bundle's key stays), and rebuilt again with nothing changed; each the same page as a build
    without a cache would make, whose time is the baseline. ``seal``: as the publish workflow
    builds, the cache sealed with a key (``--cache-key-env``) and pruned (``--cache-prune``)."""
    import secrets

    from bench.verify.provenance import created_of

    flags = []
    if seal:  # a fresh random key: a cache of another key would all miss anyway
        os.environ[SEAL_VARIABLE] = secrets.token_hex(32)
        flags = ["--cache-key-env", SEAL_VARIABLE, "--cache-prune"]
    cache = work / "board-cache"
    shutil.rmtree(cache, ignore_errors=True)
    bundles = sorted(results.glob("*/*/manifest.json"))
    newest = max((m.parent for m in bundles), key=lambda b: (created_of(b), b.name, str(b)))
    aside = work / "aside" / newest.parent.name
    shutil.rmtree(work / "aside", ignore_errors=True)
    aside.mkdir(parents=True)
    shutil.move(newest, aside / newest.name)
    rows = []
    try:
        site = work / "site-cache-cold"
        wall, cpu, done = timed(board_command(work, task_dir, results, site, "--strict",
                                              "--cache", str(cache), *flags))  # fmt: skip
        check_site(site, n - 1, verified=True)
        rows.append((f"{n - 1} bundles, cache empty (verify all, fill it)", wall, cpu, done))
    finally:
        shutil.move(aside / newest.name, newest)
    site = work / "site-cache-one-new"
    wall, cpu, done = timed(board_command(work, task_dir, results, site, "--strict",
                                          "--cache", str(cache), *flags))  # fmt: skip
    one_new = check_site(site, n, verified=True)
    rows.append((f"{n} bundles, one new (verify it, reuse {n - 1})", wall, cpu, done))
    site = work / "site-cache-warm"
    wall, cpu, done = timed(board_command(work, task_dir, results, site, "--strict",
                                          "--cache", str(cache), *flags))  # fmt: skip
    warm = check_site(site, n, verified=True)
    rows.append((f"{n} bundles, nothing changed (reuse all)", wall, cpu, done))
    site = work / "site-no-cache"  # built again each time: an older one may be another code's
    shutil.rmtree(site, ignore_errors=True)
    cold_wall, cold_cpu, _ = timed(board_command(work, task_dir, results, site, "--strict"))
    plain = check_site(site, n, verified=True)
    sealed = " --cache-key-env VAR --cache-prune (sealed)" if seal else ""
    print(f"\n3. bench board build --strict --cache DIR{sealed} (verified), whole process")
    for name, wall, cpu, done in rows:
        said = next((ln for ln in done.stdout.splitlines() if ln.startswith("cache:")), "")
        print(f"   {name:48} wall {wall:7.2f} s, CPU {cpu:7.2f} s  ({said})")
        print(f"   {'':48} / the build without a cache: wall {wall / cold_wall:.3f}, "
              f"CPU {cpu / cold_cpu:.3f}")  # fmt: skip
    label = f"baseline: {n} bundles, no cache (verify all)"
    print(f"   {label:48} wall {cold_wall:7.2f} s, CPU {cold_cpu:7.2f} s")
    print(f"   site digests: one new {one_new}, warm {warm}, without a cache {plain}")
    if len({one_new, warm, plain}) != 1:
        sys.exit("a cached build differs from the build without a cache")


def bench_publish(work: Path, task_dir: Path, results: Path, n: int, sample: int) -> None:
    """The publish workflow's verification before 2026-12-05 (a ``bench verify`` process per
    bundle, one after the other, then the build, which verified every bundle again) against
    the build alone (``--strict`` fails it on any bundle that does not verify). One such
    process takes about a minute here (it loads the suite, and its provenance check reads
    every other bundle), so ``sample`` bundles spread over the list are timed and the loop's
    figure is their mean times the bundles: an estimate, and printed as one."""
    every = sorted(m.parent for m in results.glob("*/*/manifest.json"))
    picked = [every[round(i * (len(every) - 1) / max(1, sample - 1))] for i in range(sample)]
    loop_wall = loop_cpu = 0.0
    for bundle in picked:
        wall, cpu, _ = timed([*BENCH, "verify", str(bundle), "--results-root", str(results),
                              "--allowed-signers", str(work / SIGNERS),
                              "--suite-tasks", str(task_dir)])  # fmt: skip
        print(f"   bench verify {bundle.parent.name}: wall {wall:.2f} s, CPU {cpu:.2f} s")
        loop_wall, loop_cpu = loop_wall + wall, loop_cpu + cpu
    loop_wall, loop_cpu = loop_wall * len(every) / sample, loop_cpu * len(every) / sample
    site = work / "site-publish"
    wall, cpu, _ = timed(board_command(work, task_dir, results, site, "--strict"))
    check_site(site, n, verified=True)
    print(f"\n4. the publish workflow's verification, {n} bundles, whole processes")
    print(f"   (the loop: the mean of {sample} bench verify processes x {len(every)} bundles)")
    print(f"   before: bench verify per bundle  wall {loop_wall:7.2f} s, CPU {loop_cpu:7.2f} s")
    print(f"           then the build --strict  wall {wall:7.2f} s, CPU {cpu:7.2f} s")
    print(f"           together                 wall {loop_wall + wall:7.2f} s, "
          f"CPU {loop_cpu + cpu:7.2f} s")  # fmt: skip
    print(f"   now:    the build --strict alone wall {wall:7.2f} s, CPU {cpu:7.2f} s "
          f"(now / before: wall {wall / (loop_wall + wall):.2f}, "
          f"CPU {cpu / (loop_cpu + cpu):.2f})")  # fmt: skip


def first_config(results: Path) -> str:
    config = next(results.glob("*/*/config.json"))
    return json.dumps(json.loads(config.read_text(encoding="utf-8"))["task_set"]["task_ids"])


def breakdown(work: Path, task_dir: Path, results: Path, sample: int, profile: bool) -> None:
    """Per bundle, in this process: the steps of the former loader and the loader now."""
    from bench.board.load import BundlesLoader, _BundleRunDir
    from bench.reports.summary import summarize
    from bench.verify import VerifyOptions, verify_bundle
    from bench.verify.records import load_run
    from bench.verify.taskcache import TaskCache

    bundles = BundlesLoader(results).bundles()[:sample]
    # The former loader: no cache given, so each verify_bundle derives the task set afresh.
    options = VerifyOptions(results_root=results, allowed_signers=work / SIGNERS, tasks=task_dir)
    steps: dict[str, list[float]] = {k: [] for k in ("verify_bundle", "load_run", "summarize",
                                                      "gzip+json.loads")}  # fmt: skip
    verify_bundle(bundles[0], options)  # warm: the task set and the other bundles are cached
    for bundle in bundles:
        c0 = time.process_time()
        verdict = verify_bundle(bundle, options)
        assert verdict.valid, verdict
        c1 = time.process_time()
        run = load_run(bundle)
        c2 = time.process_time()
        summarize(_BundleRunDir(bundle, run.config, run.status, tuple(run.attempts)))
        c3 = time.process_time()
        for line in gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes()).splitlines():
            json.loads(line)
        c4 = time.process_time()
        for key, value in zip(steps, (c1 - c0, c2 - c1, c3 - c2, c4 - c3), strict=True):
            steps[key].append(value)
    loader = BundlesLoader(results, allowed_signers=work / SIGNERS,
                           suite_tasks={"bfcl-v4": task_dir})  # fmt: skip
    cache = TaskCache()
    loader.load_one(bundles[0], None, cache)  # warm, as above
    now = []
    for bundle in bundles:
        c0 = time.process_time()
        loader.load_one(bundle, None, cache)
        now.append(time.process_time() - c0)
    per_now = statistics.median(now)
    print(f"\n2. per bundle, in this process, CPU seconds, median of {len(bundles)} bundles "
          f"(warm: task set loaded once)")  # fmt: skip
    for key, values in steps.items():
        print(f"   {key:16} {statistics.median(values):.3f} s")
    former = sum(statistics.median(steps[k]) for k in ("verify_bundle", "load_run", "summarize"))
    print(f"   former loader (verify + load again + summarize): {former:.3f} s per bundle")
    print(f"   BundlesLoader.load_one now (verify_and_load, one read, a shared TaskCache): "
          f"{per_now:.3f} s per bundle")  # fmt: skip
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        verify_bundle(bundles[-1], options)
        profiler.disable()
        print("\n   cProfile of one verify_bundle (top 30 by internal time):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=5, help="bundles in the breakdown")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the bundles here")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--skip-verified", action="store_true",
                        help="time only the --no-verify build")  # fmt: skip
    parser.add_argument("--make-only", action="store_true", help="make the bundles, time nothing")
    parser.add_argument("--cache-only", action="store_true",
                        help="time only the --cache builds (section 3)")  # fmt: skip
    parser.add_argument("--seal", action="store_true",
                        help="section 3 sealed and pruned, as the publish workflow")  # fmt: skip
    parser.add_argument("--publish-only", action="store_true",
                        help="time only the publish workflow's checks (section 4)")  # fmt: skip
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"bench_bfcl_board.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"{os.cpu_count()} cores  Python {platform.python_version()}  "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-bfcl-board-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        task_dir, results = make_bundles(bfcl_package(), work, args.entrants)
        if args.make_only:
            return
        if args.publish_only:
            bench_publish(work, task_dir, results, args.entrants, args.sample)
            return
        if not args.cache_only:
            bench_builds(work, task_dir, results, args.entrants, args.rounds, args.skip_verified)
        bench_cache(work, task_dir, results, args.entrants, seal=args.seal)
        if not args.cache_only:
            breakdown(work, task_dir, results, args.sample, args.profile)
        print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
