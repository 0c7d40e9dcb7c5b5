"""Record SmolLM2-135M's answers to a stratified sample of BFCL tasks, through the real
llama-cpp-python server, for the agreement test (``tests/suites/data/smollm2-outputs.json``).

Run by hand, never by ``make test`` or pytest (its name is not ``test_*``)::

    .venv/bin/python tests/suites/record_smollm2.py --per-category 3 --out /tmp/try.json
    .venv/bin/python tests/suites/record_smollm2.py --work /tmp/rec   # 646 tasks, see below

What it does:

1. imports every single-turn BFCL category from the pinned bfcl-eval (the venv
   ``tests/suites/conftest.py`` builds) into a work directory;
2. draws up to ``--per-category`` tasks of every category (seeded, so a rerun asks the same);
3. starts llama-cpp-python's server as ``tests/real/engines.py`` does (SmolLM2-135M-Instruct
   Q4_1, ``chatml-function-calling``, one thread), with a context of ``--n-ctx`` tokens: BFCL's
   prompts with many function docs do not fit the 1,024 the real-engine tests use;
4. runs ``bench run`` over the sample against it (the direct route of tests/real: an ``openai``
   target, temperature 0, ``max_tokens`` 128, not streamed) with ``--task-budget-tool-calls 0``:
   each attempt stops after the model's first response, the only response BFCL's single-turn
   score and the ``calls`` check read (so the run's own outcomes, mostly ``over_budget``, mean
   nothing; only the first response is kept);
5. writes, for every attempt whose first model call was answered, the BFCL id, the category, the
   calls as the harness parsed them (``calls``: name and arguments, or the arguments error) and
   the response as BFCL's OpenAI function-calling handler records it (``bfcl``: a list of
   ``{name: arguments string}``, or the message content when no tool was called), from the
   recorded wire response. An empty answer (no content, no tool call: the harness's
   ``ENTRANT_EMPTY_RESPONSE``) is no call on both sides. Attempts with no answered first call
   (an engine error, a timeout) are listed under ``excluded`` with the reason.

Time: on one thread SmolLM2 answers a short prompt (simple, parallel, irrelevance) in 1 to 5 s,
but a live_multiple prompt of a dozen function docs takes 15 to 60 s, more when the machine is
shared. ``--category`` records part of the same sample, so parts can run side by side (one
engine each), and ``--no-run --merge RUN_DIR ...`` writes one fixture from their run
directories.

The fixture is written to a temporary file and renamed into place at the end, so an
interrupted recording never leaves a half-written fixture.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = HERE / "data" / "smollm2-outputs.json"
sys.path.insert(0, str(REPO / "tests" / "real"))

import engines  # noqa: E402

from bench.records import RunStore  # noqa: E402
from bench.suites.bfcl import CATEGORIES, import_bfcl, locate  # noqa: E402
from bench.tasks.load import load_task_set  # noqa: E402
from bench.tasks.model import Task  # noqa: E402


def _suite_conftest() -> Any:
    spec = importlib.util.spec_from_file_location("bfcl_suite_conftest", HERE / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bfcl_package() -> Path:
    """The pinned bfcl-eval's package directory (its venv built first if need be)."""
    python = _suite_conftest().build_venv()
    found = subprocess.run(
        [str(python), "-c", "import importlib.util as u;"
         "print(u.find_spec('bfcl_eval').submodule_search_locations[0])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(found.stdout.strip())


def tag(task: Task, name: str) -> str:
    prefix = f"bfcl:{name}="
    return next(t.removeprefix(prefix) for t in task.tags if t.startswith(prefix))


def sample(tasks: tuple[Task, ...], per_category: int, seed: int) -> list[Task]:
    """Up to ``per_category`` tasks of every category, drawn without replacement."""
    rng = np.random.default_rng(seed)
    chosen: list[Task] = []
    for category in CATEGORIES:
        group = sorted((t for t in tasks if tag(t, "category") == category), key=lambda t: t.id)
        picks = rng.choice(len(group), size=min(per_category, len(group)), replace=False)
        chosen += [group[int(i)] for i in sorted(picks)]
    return chosen


def write_target(directory: Path, url: str) -> Path:
    """The direct route of tests/real/conftest.py."""
    data = {
        "format_version": 1,
        "kind": "openai",
        "entrant": "smollm2-real",
        "display_name": "SmolLM2-135M-Instruct Q4_1, llama-cpp-python (direct)",
        "model": "smollm2",
        "base_url": url + "/v1",
        "params": {"temperature": 0, "max_tokens": 128},
        "stream": False,
    }
    path = directory / "smollm2.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def first_response(record: Any) -> tuple[dict[str, Any] | None, str | None]:
    """``(output, None)`` for an attempt whose first model call was answered, else
    ``(None, why)``. ``output`` holds ``calls`` (as the harness parsed them) and ``bfcl`` (what
    BFCL's OpenAI FC handler would have recorded from the same wire response)."""
    exchanges = record.trace.exchanges
    if not exchanges:
        return None, record.reason or record.outcome
    response = exchanges[0].response
    error = response.get("error")
    if error:
        if error.get("code") == "ENTRANT_EMPTY_RESPONSE":  # no content, no tool calls
            return {"calls": [], "bfcl": ""}, None
        return None, f"{error.get('code')}: {error.get('message', '')[:200]}"
    raw = (response.get("raw") or {}).get("response")
    if not raw:
        return None, "no wire response recorded"
    message = raw["choices"][0]["message"]
    calls: list[dict[str, Any]] = []
    for call in response.get("tool_calls") or []:
        if call.get("arguments_error") is not None:
            calls.append({"name": call["name"], "arguments_error": call["arguments_error"]})
        else:
            calls.append({"name": call["name"], "arguments": call["arguments"]})
    wire = message.get("tool_calls")
    if wire:  # the handler's _parse_query_response_FC
        bfcl: Any = [{c["function"]["name"]: c["function"]["arguments"]} for c in wire]
    else:
        bfcl = message.get("content")
    return {"calls": calls, "bfcl": bfcl}, None


def engine_version(home: Path) -> str:
    done = subprocess.run(
        [str(home / "venv" / "bin" / "python"), "-c",
         "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def record(work: Path, chosen: list[Task], args: argparse.Namespace, home: Path) -> Path:
    """``bench run`` of ``chosen`` against a fresh engine; the run directory."""
    engines.N_CTX = args.n_ctx
    server = engines.start_engine(home, work, "engine")
    runs = work / "runs"
    before = set(runs.glob("2*")) if runs.is_dir() else set()
    try:
        target = write_target(work, server.url)
        command = [sys.executable, "-m", "bench.cli", "run",
                   "--tasks", str(work / "bfcl" / "tasks"), "--target", str(target),
                   "--concurrency", "1", "--timeout", str(args.timeout),
                   "--task-budget-tool-calls", "0", "--progress", "json",
                   "--runs-dir", str(runs)]  # fmt: skip
        for task in chosen:
            command += ["--task", task.id]
        with (work / "run.log").open("w", encoding="utf-8") as log:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        print(f"bench run exited {done.returncode}; log {work / 'run.log'}", flush=True)
    finally:
        server.stop()
    [run_dir] = sorted(p for p in runs.glob("2*") if p.is_dir() and p not in before)
    return run_dir


def recorded_at(run_dirs: list[Path]) -> str:
    """When the earliest run started, from its id (``20261204T174545Z-…``)."""
    first = min(run_dir.name.split("-")[0] for run_dir in run_dirs)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.strptime(first, "%Y%m%dT%H%M%SZ"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-category", type=int, default=60)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--category", action="append",
                        help="record only these categories of the sample (repeatable; the "
                        "sample itself is drawn as for all)")  # fmt: skip
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--merge", type=Path, action="append", default=[],
                        help="an earlier run directory of the same sample and engine settings: "
                        "its attempts are taken, and only the tasks it (or another --merge) "
                        "has no attempt at are run (repeatable)")  # fmt: skip
    parser.add_argument("--no-run", action="store_true", help="start no engine: only --merge")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--work", type=Path, help="keep the import, runs and logs here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="record-smollm2-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work directory {work}", flush=True)

    package = bfcl_package()
    imported = import_bfcl(work / "bfcl", package)
    tasks = load_task_set(work / "bfcl" / "tasks").tasks
    chosen = sample(tasks, args.per_category, args.seed)
    print(f"{len(chosen)} of {imported.total} tasks sampled", flush=True)
    if args.category:
        chosen = [task for task in chosen if tag(task, "category") in args.category]
        print(f"{len(chosen)} of them in {', '.join(args.category)}", flush=True)

    home = engines.engine_home()
    attempted = {
        attempt.task_id
        for run_dir in args.merge
        for attempt in RunStore(run_dir.parent).resolve(run_dir.name).attempts()
    }
    missing = [task for task in chosen if task.id not in attempted]
    print(f"{len(chosen) - len(missing)} already attempted in --merge runs", flush=True)
    run_dirs = [] if args.no_run or not missing else [record(work, missing, args, home)]
    run_dirs += args.merge

    by_id = {task.id: task for task in chosen}
    records: dict[str, Any] = {}
    for run_dir in run_dirs:
        stored = RunStore(run_dir.parent).resolve(run_dir.name)
        for attempt in stored.attempts():
            if attempt.task_id in by_id:
                records.setdefault(attempt.task_id, attempt)
    outputs: list[dict[str, Any]] = []
    excluded: list[dict[str, str]] = []
    for task in sorted(chosen, key=lambda t: t.id):
        original = tag(task, "id")
        if task.id not in records:
            excluded.append({"id": original, "why": "not run"})
            continue
        output, why = first_response(records[task.id])
        if output is None:
            excluded.append({"id": original, "why": why or "unknown"})
            continue
        outputs.append({"id": original, "category": tag(task, "category"), **output})
    model = home / engines.MODEL_FILE
    fixture = {
        "what": "SmolLM2-135M-Instruct's first response to BFCL tasks, through the real "
        "llama-cpp-python server (tests/suites/record_smollm2.py)",
        "recorded_at": recorded_at(run_dirs),
        "engine": {
            "name": "llama-cpp-python",
            "version": engine_version(home),
            "chat_format": "chatml-function-calling",
            "n_threads": 1,
            "n_ctx": args.n_ctx,
            "model_file": engines.MODEL_FILE,
            "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
        },
        "params": {"temperature": 0, "max_tokens": 128, "stream": False},
        "bfcl_eval": locate(package).version,
        "sample": {"per_category": args.per_category, "seed": args.seed, "tasks": len(chosen)},
        "runs": {
            "run_ids": [run_dir.name for run_dir in run_dirs],
            "timeout_s": args.timeout,
            "task_budget_tool_calls": 0,
        },  # fmt: skip
        "counts": dict(sorted(Counter(o["category"] for o in outputs).items())),
        "excluded": excluded,
        "outputs": outputs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, args.out)
    print(f"wrote {len(outputs)} output(s), {len(excluded)} excluded, to {args.out}", flush=True)


if __name__ == "__main__":
    main()
