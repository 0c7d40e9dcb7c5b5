"""Provenance: a bundle that duplicates one already under ``results/`` is refused.

Another entrant's published bundle, renamed, given a new run id and re-signed with the thief's
key, passes every other check. What it cannot change without re-running is what the entrant
*did*: so each attempt is reduced to its **content**, the answers (Unicode NFKC, case-folded,
whitespace collapsed) and the tool calls (name and canonical arguments, in order). Names, ids,
signatures, run ids, timings, token counts, costs and the model's name are not content.

Two bundles are compared task by task, as multisets (repeats may be shuffled): the share of
this bundle's *distinctive* attempts (content of at least ``MIN_CONTENT`` characters; a bare
refusal or an empty answer says nothing about who made it) whose content the other bundle also
has for the same task. At ``DUPLICATE_SHARE`` (50 %) or more, over at least ``MIN_COMPARED``
distinctive attempt(s), the later bundle is a duplicate (docs/SUBMISSIONS.md, "Provenance"):
independent runs of different entrants share almost no distinctive answer word for word. Only
other entrants' bundles count: an entrant's own earlier runs (a new version of the same agent)
are not taken from anyone.

**The first one in git history wins**: bundles are ordered by when they landed on the branch
(``git log --first-parent``, where a merged pull request adds its files in the merge commit,
whatever dates its own commits claim); a bundle not committed yet is the newest. Only the later
of two duplicates is refused, and the refusal names the earlier one.

Other bundles are read with the verifier's own bounded reader but without their models (only
answers and tool calls are needed); one that cannot be read is skipped here (its own
verification refuses it).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.core.canonical import canonical_json
from bench.records.bundle import ATTEMPTS, MANIFEST
from bench.records.run import AttemptRecord

from .codes import Code
from .failure import VerifyFailure
from .layout import MAX_FILE_BYTES, Placement
from .records import BundleRun

DUPLICATE_SHARE = 0.5
MIN_CONTENT = 40
MIN_COMPARED = 1
GIT_TIMEOUT_S = 30.0
_SPACE = re.compile(r"\s+")

Contents = dict[str, Counter[str]]  # task id -> multiset of content digests


def _normal(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content(answers: list[Any], tool_calls: list[tuple[Any, Any]]) -> str | None:
    """An attempt's content digest, or None when it is not distinctive."""
    texts = [_normal(a) for a in answers if isinstance(a, str)]
    calls = [[str(name), canonical_json(args).decode()] for name, args in tool_calls]
    size = sum(len(t) for t in texts) + sum(len(c[1]) for c in calls)
    if size < MIN_CONTENT or not any(texts):
        return None
    return hashlib.sha256(canonical_json({"answers": texts, "calls": calls})).hexdigest()


def contents_of_records(records: list[AttemptRecord]) -> Contents:
    out: Contents = defaultdict(Counter)
    for record in records:
        calls = [(c.name, c.arguments) for c in record.trace.tool_calls]
        digest = content(record.trace.answers, calls)
        if digest is not None:
            out[record.task_id][digest] += 1
    return out


def contents_of_bundle(bundle: Path) -> Contents | None:
    """The contents of another bundle's attempts, read without their models; None when the
    file cannot be read (that bundle's own verification refuses it)."""
    out: Contents = defaultdict(Counter)
    try:
        with gzip.open(bundle / ATTEMPTS, "rb") as handle:
            read = 0
            for line in handle:
                read += len(line)
                if read > MAX_FILE_BYTES:
                    return None
                if not line.strip():
                    continue
                value = json.loads(line)
                trace = value["trace"]
                calls = [(c.get("name"), c.get("arguments")) for c in trace.get("tool_calls", [])]
                digest = content(trace.get("answers", []), calls)
                if digest is not None:
                    out[str(value["task_id"])][digest] += 1
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return out


@dataclass(frozen=True)
class Overlap:
    shared: int
    compared: int

    @property
    def share(self) -> float:
        return self.shared / self.compared if self.compared else 0.0

    @property
    def duplicate(self) -> bool:
        return self.compared >= MIN_COMPARED and self.share >= DUPLICATE_SHARE


def overlap(mine: Contents, theirs: Contents) -> Overlap:
    """How many of ``mine``'s distinctive attempts ``theirs`` also has, on shared tasks."""
    shared = compared = 0
    for task_id, counts in mine.items():
        other = theirs.get(task_id)
        if other is None:
            continue
        compared += sum(counts.values())
        shared += sum((counts & other).values())
    return Overlap(shared, compared)


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def landing_order(root: Path) -> dict[Path, int]:
    """Each committed manifest under ``root`` with its landing rank on the current branch's
    first-parent history: 0 landed first."""
    top = _git(["rev-parse", "--show-toplevel"], root)
    log = _git(
        ["log", "--first-parent", "--diff-filter=A", "--name-only", "--format=%x00", "--", "."],
        root,
    )
    if top is None or log is None:
        return {}
    base = Path(top.strip())
    rank: dict[Path, int] = {}
    for position, block in enumerate(reversed(log.split("\0"))):  # git prints newest first
        for name in block.splitlines():
            if name.endswith("/" + MANIFEST):
                rank.setdefault((base / name).resolve(), position)
    return rank


def _earlier(a: Path, b: Path, rank: dict[Path, int], created: dict[Path, str]) -> bool:
    """Whether bundle ``a`` came before bundle ``b``."""
    ka, kb = rank.get((a / MANIFEST).resolve()), rank.get((b / MANIFEST).resolve())
    if ka != kb:
        if ka is None:
            return False  # not committed yet: the newest
        if kb is None:
            return True
        return ka < kb
    # Neither committed (or both in one commit): the earlier created time, then the path.
    return (created.get(a, ""), str(a)) < (created.get(b, ""), str(b))


def _created(bundle: Path) -> str:
    try:
        value = json.loads((bundle / MANIFEST).read_bytes())
        return str(value.get("created_at", "")) if isinstance(value, dict) else ""
    except (OSError, ValueError):
        return ""


def check_provenance(bundle: Path, placement: Placement, run: BundleRun) -> None:
    """Refuse ``bundle`` when an earlier bundle under the results root has the same (or
    nearly the same) attempts."""
    mine = contents_of_records(run.attempts)
    if sum(sum(c.values()) for c in mine.values()) < MIN_COMPARED:
        return
    here = bundle.resolve()
    others = [
        p.parent
        for p in sorted(placement.root.glob(f"*/*/{MANIFEST}"))
        if p.parent.resolve() != here
        and p.parent.parent.name != placement.entrant  # an entrant's own runs are its own
        and not p.parent.is_symlink()
        and not p.parent.parent.is_symlink()
    ]
    if not others:
        return
    order: dict[Path, int] | None = None
    created: dict[Path, str] = {}
    for other in others:
        theirs = contents_of_bundle(other)
        if theirs is None:
            continue
        found = overlap(mine, theirs)
        if not found.duplicate:
            continue
        if order is None:
            order = landing_order(placement.root)
        for path in (bundle, other):
            created.setdefault(path, _created(path))
        if _earlier(other, bundle, order, created):
            name = f"{other.parent.name}/{other.name}"
            raise VerifyFailure(
                Code.DUPLICATE_BUNDLE,
                f"{found.shared} of its {found.compared} distinctive attempts are word for word "
                f"those of results/{name}, which came first (at most "
                f"{DUPLICATE_SHARE:.0%} may be shared)",
                path=str(bundle / ATTEMPTS),
            )


__all__ = [
    "DUPLICATE_SHARE",
    "MIN_COMPARED",
    "MIN_CONTENT",
    "Overlap",
    "check_provenance",
    "content",
    "contents_of_bundle",
    "contents_of_records",
    "landing_order",
    "overlap",
]
