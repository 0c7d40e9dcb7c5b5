"""The forger, sixteenth round: every number the board shows, traced to a check.

An audit of the row's fields (score, intervals, family and category figures, error rate,
harness faults, not-scored tasks, dollars, tokens, p95 latency, the frontier, labels, dates,
run ids, repeats, task counts, failed tasks) against what ``bench verify`` recomputes. Almost
all were bound already; latency is the submitter's clock (docs/LIMITS.md) and was held only to
the attempt's own model calls. One cheap edit went through:

- **Timed-out attempts made fast.** A slow model's attempts that its time limit stopped are the
  slowest of its run, so they set its p95 latency (the board's latency column, chart and
  frontier). The reason of such an attempt is bound to its recording ("no final answer within
  60s (attempt timeout)"), but its ``trace.latency_s`` was not: a submitter lowered those to
  a second, the reason still saying the attempt ran for 60, and verify accepted it. An attempt
  is timed from before its limit starts, less only its queue time, which stops the limit too
  (``core.clock.queued``), so an attempt its limit stopped ran at least that limit: now
  ``RECORD_INCONSISTENT`` (``bench.verify.timing.check_time_limit``). Lowering the limit to
  match is a run with another limit (``attempt_timeout_s``): every reason must then name it, and
  the board names the row's limit under its cohort.

Real runs of the mini task set with a scripted entrant that stalls on refunds past a short
limit, bundled and signed with a throw-away key, then forged and re-signed by their owner."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization

from bench.core.budget import Budget
from bench.runner import RunRequest, start_run
from bench.signing import public_line, sign, signer_line
from bench.signing.bundle import build_bundle, deterministic_gzip
from bench.testing.keys import write_private_key
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
ENTRANT = "mini-stalls"
LIMIT_S = 1.0
"""Short, for a quick test, yet far above what the other attempts take (milliseconds), so a
busy machine does not stop them too (a run whose every attempt errored is ERROR_RATE_HIGH)."""
STALL = '''

def stalls_on_refunds(request):
    """``good``, except that on refunds its call after the first tool result takes longer
    than the run's short time limit (the limit stops the attempt with that call in flight)."""
    if "Refund" in _question(request) and any(m.role == "tool" for m in request.messages):
        time.sleep({stall})
    return good(request)
'''


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A task set, a stalling entrant's target file and its registered key."""
    shutil.copytree(MINI, tmp_path / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    agents = tmp_path / "mini" / "agents.py"
    agents.write_text(agents.read_text() + STALL.format(stall=LIMIT_S * 2))
    (tmp_path / "mini" / "targets" / "stalls.yaml").write_text(
        textwrap.dedent(f"""\
            format_version: 1
            kind: scripted
            entrant: {ENTRANT}
            display_name: mini stalls
            model: mini-stalls
            callable: ../agents.py:stalls_on_refunds
            pricing: {{prompt_per_mtok: 1.0, completion_per_mtok: 2.0}}
            params: {{temperature: 0}}
            """)
    )
    key = write_private_key(tmp_path / "keys" / ENTRANT)
    signers = tmp_path / "submissions" / "allowed_signers"
    signers.parent.mkdir()
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    return tmp_path


def _bundle(root: Path, **request: Any) -> Path:
    run, status = start_run(
        RunRequest(tasks=root / "mini" / "tasks", target_file=root / "mini" / "targets" /
                   "stalls.yaml", runs_dir=root / "runs", split="public",
                   task_ids=("qa-0001", "qa-0002", "tool-0001"), concurrency=1, **request)
    )  # fmt: skip
    assert status.status == "complete"
    return build_bundle(
        run,
        entrant=ENTRANT,
        key_file=root / "keys" / ENTRANT,
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )


def _verify(root: Path, bundle: Path) -> BundleVerdict:
    return verify_bundle(
        bundle,
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=root / "mini" / "tasks",
        ),
    )


def _attempts(bundle: Path) -> list[dict[str, Any]]:
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _resign(root: Path, bundle: Path, records: list[dict[str, Any]]) -> None:
    """The attempts replaced by ``records``, listed honestly and re-signed by their owner."""
    data = deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    (bundle / "attempts.jsonl.gz").write_bytes(data)
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        if entry["path"] == "attempts.jsonl.gz":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    (bundle / "manifest.json").write_bytes(raw)
    key = serialization.load_ssh_private_key((root / "keys" / ENTRANT).read_bytes(), None)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


def _made_fast(root: Path, bundle: Path, reason: str) -> str:
    """Every attempt its limit stopped (``reason``) re-timed at a millisecond, its model calls
    too; the other attempts as they were. Returns the first one's ``task#repeat``."""
    records = _attempts(bundle)
    stopped = [r for r in records if r["reason"] == reason]
    assert stopped, f"no attempt says {reason!r}: {[r['reason'] for r in records]}"
    for record in stopped:
        assert record["trace"]["latency_s"] >= LIMIT_S  # what the run measured
        record["trace"]["latency_s"] = 0.001
        for exchange in record["trace"]["exchanges"]:
            exchange["latency_s"] = 0.0
    _resign(root, bundle, records)
    cassette = bundle / "cassette.jsonl"  # the calls' own latencies, as the attempts now say
    assert b'"latency_s"' in cassette.read_bytes()
    return f"{stopped[0]['task_id']}#{stopped[0]['repeat']}"


def _forged_cassette(root: Path, bundle: Path) -> None:
    """The cassette's lines given the attempts' (re-timed) model calls, listed and re-signed."""
    lines = []
    for record in _attempts(bundle):
        for exchange in record["trace"]["exchanges"]:
            lines.append({"task_id": record["task_id"], "repeat": record["repeat"], **exchange})
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    (bundle / "cassette.jsonl").write_bytes(data)
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        if entry["path"] == "cassette.jsonl":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    (bundle / "manifest.json").write_bytes(raw)
    key = serialization.load_ssh_private_key((root / "keys" / ENTRANT).read_bytes(), None)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        ({"attempt_timeout_s": LIMIT_S}, f"no final answer within {LIMIT_S:g}s (attempt timeout)"),
        ({"task_budget": Budget(seconds=LIMIT_S)}, f"over budget: seconds > {LIMIT_S}"),
    ],
    ids=["attempt-timeout", "seconds-budget"],
)
def test_an_attempt_its_time_limit_stopped_cannot_claim_less_time(
    root: Path, request_: dict[str, Any], reason: str
) -> None:
    """The honest bundle verifies (its stopped attempt ran its limit); the same attempt
    re-timed at a millisecond, its reason still naming the limit, is RECORD_INCONSISTENT
    (accepted before: the board's p95 would have dropped from the limit to 1 ms)."""
    bundle = _bundle(root, **request_)
    verdict = _verify(root, bundle)
    assert verdict.valid, verdict.message
    where = _made_fast(root, bundle, reason)
    _forged_cassette(root, bundle)
    verdict = _verify(root, bundle)
    assert verdict.code is not None and verdict.code.value == "RECORD_INCONSISTENT", verdict
    assert verdict.field == f"{where}.trace.latency_s"
    assert "time limit" in verdict.message
