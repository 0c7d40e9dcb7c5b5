"""Provenance: a bundle that duplicates one already under ``results/`` is refused.

Another entrant's published bundle, renamed, given a new run id and re-signed with the thief's
key, passes every other check. What a thief cannot change without re-running is what the
entrant *did*, so each attempt is reduced to its **content**: its answers (read as the copy
rules read them: compatibility forms folded, invisible characters and accents deleted, Latin
look-alikes read as Latin letters; case-folded, whitespace collapsed) and its tool calls (name
and canonical arguments, read alike, in order). Names, ids, signatures, run ids, timings,
token counts, costs, the model's name and the order of repeats are not content.

Two bundles are compared task by task: an attempt of this bundle is *shared* when any attempt
of the other on the same task is a near copy of it (one attempt of theirs can be copied into
any number of repeats here: a thief who runs more repeats than the original, each a copy,
shares them all). Two rules, either of which makes this bundle a **duplicate** (thresholds
and why in docs/SUBMISSIONS.md, "Provenance"):

1. **Own words.** An attempt's *own words* are its answers' words that appear nowhere in its
   conversation's user or tool messages (what the task and its world handed it: the
   question, the passages; the entrant's own system prompt is not handed to it). An attempt
   with at least ``MIN_OWN_WORDS`` (5) of them is *distinctive*. If at least ``OWN_SHARE``
   (50 %) of this bundle's distinctive attempts (at least ``MIN_OWN`` = 3 of them, on tasks
   both attempted) have a near copy in the other
   (Jaccard similarity of own words and tool calls at least ``NEAR_OWN`` = 0.8, or the other's
   own words and tool calls at least ``CONTAIN_OWN`` = 90 % inside this one's, which is at most
   ``PAD_RATIO`` = 2 times their number: a copy padded with words of its own), it is a copy:
   independent agents do not phrase half their answers alike.
2. **Everything.** If at least ``ALL_SHARE`` (90 %) of the attempts with any answer or tool
   call (at least ``MIN_ALL`` of them) have a near copy in the other (Jaccard similarity of all
   words and tool calls at least ``NEAR_ALL`` = 0.9), it is a copy: it does what the other did
   everywhere, even where the words come from the task (extractive answers of a deterministic
   agent), which independent agents do not.

A copy with punctuation, a word or whitespace changed here and there is still a copy. Only
other entrants' bundles count: an entrant's own earlier runs (a new version of the same agent)
are not taken from anyone.

**The first one in git history wins**: bundles are ordered by when they landed on the branch
(``git log --first-parent``, where a merged pull request adds its files in the merge commit,
whatever dates its own commits claim); a bundle not committed yet is the newest; between two
uncommitted bundles, the earlier ``created_at``, then run id. Only the later of two duplicates
is refused, and the refusal names the earlier one.

Other bundles are read without their models (only answers, tool calls and messages are
needed), with the verifier's size cap; one that cannot be read is skipped here (its own
verification refuses it). What is read is kept for the process, keyed by the file's path, size
and modification time, so a board that verifies N bundles reads each once, not N times. Before
two bundles are compared attempt by attempt, a necessary condition is checked per task against
the union of the other bundle's words: an attempt can have a near copy there only if that union
contains at least the threshold's share of its words (Jaccard at least t implies containment at
least t; a padded copy, ``CONTAIN_OWN / PAD_RATIO`` of its own words: ``OWN_BOUND``) or its
exact digest; when even these upper bounds do not make a duplicate, the pair is
skipped. The verdict is the same as comparing every pair in full (a test checks both ways).
The unions hold 64-bit tokens of the words (:func:`token`), so that a board's cache can keep
them small (``digeststore``); words sharing a token only let more pairs through.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bench.core.canonical import canonical_json
from bench.core.diskerror import raise_if_disk
from bench.records.bundle import ATTEMPTS, MANIFEST
from bench.records.run import AttemptRecord
from bench.scorers.answers import fold

from .codes import Code
from .failure import VerifyFailure
from .layout import MAX_FILE_BYTES, MAX_MANIFEST_BYTES, Placement
from .records import BundleRun, open_regular

MIN_OWN_WORDS = 5
MIN_OWN = 3
NEAR_OWN = 0.8
# Padding: the other attempt's own words kept (at least CONTAIN_OWN of them) inside an attempt
# at most PAD_RATIO times its size is a near copy too, whatever was added around them.
CONTAIN_OWN = 0.9
PAD_RATIO = 2.0
OWN_SHARE = 0.5
NEAR_ALL = 0.9
ALL_SHARE = 0.9
MIN_ALL = 3
GIT_TIMEOUT_S = 30.0
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
# What an attempt was handed: the task's messages and its world's tool results. The bundle
# under verification's own ``system_prompt`` (the first message, which the harness adds when
# the target sets one: the binding check holds it there) is not: a prompt listing another
# bundle's answers made every copied word handed, so no attempt had words of its own and the
# own-words rule compared none. A task's own system messages (BFCL's) are handed.
_CONTEXT_ROLES = frozenset({"user", "system", "tool"})


def _normal(text: str) -> str:
    """``text`` as provenance compares it: read as the scorers' copy rules read it
    (``scorers.answers.fold``: compatibility forms folded, invisible characters, accents and
    combining marks deleted, letters of other scripts that look like Latin ones read as
    those), case-folded, runs of whitespace made one space. A copy with a soft hyphen, a
    zero-width space or a Cyrillic look-alike in every word reads as the text it copies (with
    NFKC alone, each such word was a new word: a thief's copy of another entrant's bundle,
    drawn on the board and the transcript page exactly as the original, shared none of its
    words)."""
    return _SPACE.sub(" ", fold(text).casefold()).strip()


def _words(text: str) -> set[str]:
    return set(_WORD.findall(_normal(text)))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def _padded(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether ``mine`` holds at least ``CONTAIN_OWN`` of ``theirs`` and is at most
    ``PAD_RATIO`` times its size: a copy with words of its own added around it."""
    if not theirs or len(mine) > PAD_RATIO * len(theirs):
        return False
    return len(mine & theirs) >= CONTAIN_OWN * len(theirs)


# What the prefilter may assume of an attempt with a near copy by own words: that share of its
# own words lies in the other's (Jaccard >= t gives t; a padded copy, CONTAIN_OWN / PAD_RATIO).
OWN_BOUND = min(NEAR_OWN, CONTAIN_OWN / PAD_RATIO)


@dataclass(frozen=True)
class Content:
    """What one attempt did, without names, ids, timings or the order of repeats."""

    digest: str  # answers and tool calls, exactly (after normalising text)
    words: frozenset[str]  # all answer words, and one token per tool call
    own: frozenset[str]  # answer words not handed to it, and one token per tool call
    own_count: int  # how many own answer words (tool calls not counted)

    @property
    def distinctive(self) -> bool:
        return self.own_count >= MIN_OWN_WORDS

    def near(self, other: Content, *, own: bool) -> bool:
        if self.digest == other.digest:
            return True
        if own:
            return _jaccard(self.own, other.own) >= NEAR_OWN or _padded(self.own, other.own)
        return _jaccard(self.words, other.words) >= NEAR_ALL


Contents = dict[str, list[Content]]  # task id -> its attempts' contents


def content(
    answers: Iterable[Any], tool_calls: Iterable[tuple[Any, Any]], context: Iterable[Any] = ()
) -> Content | None:
    """An attempt's content (None when it has no answer text and no tool call). ``context``:
    the texts the attempt was handed (``_CONTEXT_ROLES``)."""
    texts = [_normal(a) for a in answers if isinstance(a, str)]
    calls = [f"\0call:{name}:{_normal(canonical_json(args).decode())}" for name, args in tool_calls]
    if not any(texts) and not calls:
        return None
    digest = hashlib.sha256(canonical_json({"answers": texts, "calls": calls})).hexdigest()
    said = {word for text in texts for word in _WORD.findall(text)}
    handed = {word for text in context if isinstance(text, str) for word in _words(text)}
    own = said - handed
    return Content(digest, frozenset(said | set(calls)), frozenset(own | set(calls)), len(own))


def contents_of_records(records: list[AttemptRecord], own_prompt: str | None = None) -> Contents:
    """The contents of a bundle's attempts; ``own_prompt``: its target's ``system_prompt``,
    which its attempts were not handed by the task (``_CONTEXT_ROLES``)."""
    out: Contents = defaultdict(list)
    for record in records:
        trace = record.trace
        messages = trace.messages
        if own_prompt and messages and messages[0].role == "system":
            messages = messages[1:]  # the harness put the entrant's own prompt first
        found = content(
            trace.answers,
            [(c.name, c.arguments) for c in trace.tool_calls],
            [m.content for m in messages if m.role in _CONTEXT_ROLES],
        )
        if found is not None:
            out[record.task_id].append(found)
    return out


def token(task_id: str, text: str) -> int:
    """A word, tool call or digest of one task as 64 bits (blake2b): what a :class:`Digest`
    holds."""
    raw = f"{task_id}\0{text}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")


@dataclass(frozen=True)
class Digest:
    """What any attempt of a bundle could share with another, per task: the union of its own
    words, of all its words, and its exact digests (the prefilter's necessary condition), as
    64-bit tokens of (task, text) (:func:`token`), one set of each for the whole bundle. Two
    texts with one token only make the prefilter let more pairs through; a pair it lets
    through is compared in full, by the strings."""

    tasks: frozenset[str]
    own: frozenset[int]
    words: frozenset[int]
    digests: frozenset[int]


def digest_of(contents: Contents) -> Digest:
    own: set[int] = set()
    words: set[int] = set()
    digests: set[int] = set()
    for task_id, attempts in contents.items():
        for a in attempts:
            if a.distinctive:
                own.update(token(task_id, w) for w in a.own)
            words.update(token(task_id, w) for w in a.words)
            digests.add(token(task_id, a.digest))
    return Digest(frozenset(contents), frozenset(own), frozenset(words), frozenset(digests))


@dataclass(frozen=True)
class _Probe:
    """One attempt of the bundle being checked, as tokens."""

    digest: int
    words: tuple[int, ...]  # one token per word (two words may share one)
    own: tuple[int, ...]
    distinctive: bool


class Probes(dict[str, list[_Probe]]):
    """A bundle's attempts as tokens, by task (:func:`probes_of`), with every attempt in one
    list and their digest tokens beside them, made once for all the bundles it is checked
    against."""

    def __init__(self, items: dict[str, list[_Probe]]) -> None:
        super().__init__(items)
        self.flat: list[_Probe] = [a for attempts in self.values() for a in attempts]
        self.digests: list[int] = [a.digest for a in self.flat]
        self.task_ids = frozenset(self)


def probes_of(contents: Contents) -> Probes:
    """``contents`` as tokens, made once for all the bundles it is checked against."""
    return Probes(
        {
            task_id: [
                _Probe(
                    token(task_id, a.digest),
                    tuple(token(task_id, w) for w in a.words),
                    tuple(token(task_id, w) for w in a.own),
                    a.distinctive,
                )
                for a in attempts
            ]
            for task_id, attempts in contents.items()
        }
    )


def _contained(part: tuple[int, ...], whole: frozenset[int], share: float) -> bool:
    # How many of ``part``'s words have their token in ``whole``: at least as many as the
    # words the other bundle has, whatever tokens coincide.
    found = len(whole.intersection(part))
    if found < len(part) and len(set(part)) < len(part):
        found = sum(1 for t in part if t in whole)  # two of its words share a token
    return found >= share * len(part)


def _reaches(
    exact: int,
    rest: list[tuple[int, ...]],
    whole: frozenset[int],
    near: float,
    total: int,
    least: int,
    share: float,
) -> bool:
    """Whether ``exact`` attempts (digest found) and those of ``rest`` whose words are at
    least ``near`` contained in ``whole`` can make ``share`` of ``total`` (and ``total`` at
    least ``least``): counted until the answer is certain either way."""
    if total < least:
        return False
    need = share * total
    shared = exact
    if shared >= need:
        return True
    reach = total  # what the count could still become: every attempt not yet missed
    for words in rest:
        if _contained(words, whole, near):
            shared += 1
            if shared >= need:
                return True
        else:
            reach -= 1
            if reach < need:
                return False
    return False  # every attempt counted, and short of ``need``


def could_duplicate(mine: Contents | Probes, theirs: Digest) -> bool:
    """Whether ``mine`` could be a duplicate of the bundle ``theirs`` digests: the rules of
    ``Overlap.duplicate`` applied to upper bounds of the shared counts (an attempt with a near
    copy there has its digest there, or has at least the threshold's share of its words in the
    union of that task's words). False means ``overlap`` would not find a duplicate either.

    Each rule's bound is its exact copies (the digests found there, one set lookup per
    attempt) plus the other attempts whose words are contained enough, counted only until
    the rule is certainly met or certainly missed: the answer is that of counting every
    attempt (a test compares both ways), at a fraction of the work for a pair of bundles
    of thousands of attempts that share most of them exactly."""
    probes = _as_probes(mine)
    if probes.task_ids <= theirs.tasks:
        attempts, digests = probes.flat, probes.digests
    else:
        attempts = [a for t, found in probes.items() if t in theirs.tasks for a in found]
        digests = [a.digest for a in attempts]
    hits = list(map(theirs.digests.__contains__, digests))
    exact_all = sum(hits)
    missed = [a for a, hit in zip(attempts, hits, strict=True) if not hit]
    if _reaches(
        exact_all,
        [a.words for a in missed],
        theirs.words,
        NEAR_ALL,
        len(attempts),
        MIN_ALL,
        ALL_SHARE,
    ):
        return True
    distinctive = sum(a.distinctive for a in attempts)
    exact_own = sum(a.distinctive for a, hit in zip(attempts, hits, strict=True) if hit)
    return _reaches(
        exact_own,
        [a.own for a in missed if a.distinctive],
        theirs.own,
        OWN_BOUND,
        distinctive,
        MIN_OWN,
        OWN_SHARE,
    )


def _as_probes(mine: Contents | Probes) -> Probes:
    if isinstance(mine, Probes):
        return mine
    return probes_of(mine)


_READ: dict[Path, tuple[tuple[int, int, int], Contents, Digest]] = {}


def read_other(bundle: Path) -> tuple[Contents, Digest] | None:
    """``contents_of_bundle`` and its digest, read once per process while the attempts file
    keeps its size and modification time."""
    path = (bundle / ATTEMPTS).resolve()
    try:
        stat = path.stat()
    except OSError as exc:
        raise_if_disk(exc, path)  # unread, a duplicate would pass: the disk is said instead
        return None
    key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    cached = _READ.get(path)
    if cached is not None and cached[0] == key:
        return cached[1], cached[2]
    contents = contents_of_bundle(bundle)
    if contents is None:
        _READ.pop(path, None)
        return None
    found = (contents, digest_of(contents))
    _READ[path] = (key, *found)
    return found


def contents_of_bundle(bundle: Path) -> Contents | None:
    """The contents of another bundle's attempts, read without their models; None when the
    file cannot be read (that bundle's own verification refuses it)."""
    out: Contents = defaultdict(list)
    raw = safe_open(bundle / ATTEMPTS, MAX_FILE_BYTES)
    if raw is None:
        return None
    try:
        with raw, gzip.GzipFile(fileobj=raw, mode="rb") as handle:
            read = 0
            for line in handle:
                read += len(line)
                if read > MAX_FILE_BYTES:
                    return None
                if not line.strip():
                    continue
                value = json.loads(line)
                trace = value["trace"]
                found = content(
                    trace.get("answers", []),
                    [(c.get("name"), c.get("arguments")) for c in trace.get("tool_calls", [])],
                    [
                        m.get("content")
                        for m in trace.get("messages", [])
                        if m.get("role") in _CONTEXT_ROLES
                    ],
                )
                if found is not None:
                    out[str(value["task_id"])].append(found)
    except OSError as exc:
        raise_if_disk(exc, bundle / ATTEMPTS)  # a bad gzip stream has no errno: the data
        return None
    except (EOFError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return out


@dataclass(frozen=True)
class Overlap:
    """How much of one bundle another one has: by own words, and over everything."""

    own_shared: int
    own_compared: int
    all_shared: int
    all_compared: int

    @property
    def by_own(self) -> bool:
        return self.own_compared >= MIN_OWN and self.own_shared >= OWN_SHARE * self.own_compared

    @property
    def by_all(self) -> bool:
        return self.all_compared >= MIN_ALL and self.all_shared >= ALL_SHARE * self.all_compared

    @property
    def duplicate(self) -> bool:
        return self.by_own or self.by_all

    def describe(self, other: str) -> str:
        """Why this bundle duplicates ``other``: the rule that matched, with its own counts
        (an extractive agent has no attempt with words of its own, and the other rule's count
        read "0 of its 0"), and what to do when the two are one agent."""
        same = (
            "if both bundles are your agent, publish this one under the earlier one's entrant "
            "(an entrant's own runs are never compared)"
        )
        if self.by_own:
            return (
                f"{self.own_shared} of its {self.own_compared} attempts with words of their own "
                f"(at least {MIN_OWN_WORDS} answer words found in no message the attempt was "
                f"handed) are near copies of those in {other} (the own-words rule: "
                f"{OWN_SHARE:.0%} or more of at least {MIN_OWN}; docs/SUBMISSIONS.md, "
                f"Provenance); {same}"
            )
        return (
            f"{self.all_shared} of its {self.all_compared} attempts with an answer or a tool "
            f"call, on tasks both attempted, are near copies of those in {other} (the "
            f"everything rule: {ALL_SHARE:.0%} or more of at least {MIN_ALL}; "
            "docs/SUBMISSIONS.md, Provenance). If this is your own agent: answers that only "
            "repeat words of the task (the top passage quoted, as baseline-quote-top-passage "
            "does) match any other agent's that do the same, so have it answer in its own "
            f"words; {same}"
        )


def _matched(mine: list[Content], theirs: list[Content], *, own: bool) -> int:
    """How many of ``mine`` have a near copy among ``theirs`` (not one to one: repeats
    copied from one attempt are each a copy)."""
    return sum(1 for attempt in mine if any(attempt.near(c, own=own) for c in theirs))


def overlap(mine: Contents, theirs: Contents) -> Overlap:
    """Both rules' counts for ``mine`` against ``theirs``, on the tasks both attempted."""
    own_shared = own_compared = all_shared = all_compared = 0
    for task_id, attempts in mine.items():
        other = theirs.get(task_id)
        if not other:
            continue
        distinctive = [a for a in attempts if a.distinctive]
        own_compared += len(distinctive)
        own_shared += _matched(distinctive, [c for c in other if c.distinctive], own=True)
        all_compared += len(attempts)
        all_shared += _matched(attempts, other, own=False)
    return Overlap(own_shared, own_compared, all_shared, all_compared)


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


def order_key(
    bundle: Path, rank: dict[Path, int], created: dict[Path, str]
) -> tuple[bool, int, str, str, str]:
    """Where ``bundle`` stands in the order :func:`earlier` compares by: committed ones by
    landing rank, then those not committed yet; ties by created time, run id and path."""
    landed = rank.get((bundle / MANIFEST).resolve())
    return (
        landed is None,  # not committed yet: the newest
        landed or 0,
        created.get(bundle, ""),
        bundle.name,
        str(bundle),
    )


def earlier(a: Path, b: Path, rank: dict[Path, int], created: dict[Path, str]) -> bool:
    """Whether bundle ``a`` came before bundle ``b``."""
    return order_key(a, rank, created) < order_key(b, rank, created)


def created_of(bundle: Path) -> str:
    handle = safe_open(bundle / MANIFEST, MAX_MANIFEST_BYTES)
    if handle is None:
        return ""
    try:
        with handle:
            value = json.loads(handle.read(MAX_MANIFEST_BYTES + 1))
        return str(value.get("created_at", "")) if isinstance(value, dict) else ""
    except OSError as exc:
        raise_if_disk(exc, bundle / MANIFEST)
        return ""
    except ValueError:
        return ""


def safe_open(file: Path, max_bytes: int) -> IO[bytes] | None:
    """Another bundle's ``file`` opened as verify opens its own (``records.open_regular``: a
    regular file, not through a symlink, never blocking on a FIFO, at most ``max_bytes``), or
    None when it is not one: that bundle's own verification refuses it, and reading it here
    must neither hang nor read what it points at (``/dev/zero``, a pipe) for every other
    bundle's verdict."""
    try:
        return open_regular(file, max_bytes)
    except VerifyFailure:
        return None


def _digest_read(bundle: Path) -> Digest | None:
    read = read_other(bundle)
    return None if read is None else read[1]


def check_provenance(
    bundle: Path,
    placement: Placement,
    run: BundleRun,
    digests: Callable[[Path], Digest | None] | None = None,
) -> None:
    """Refuse ``bundle`` when an earlier bundle under the results root has the same (or
    nearly the same) attempts. ``digests``: where another bundle's digest comes from (a
    ``DigestStore`` keeps them between processes); by default it is read."""
    prompt = run.config.target.get("system_prompt")
    mine = contents_of_records(run.attempts, prompt if isinstance(prompt, str) else None)
    if not mine:
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
    digest = digests or _digest_read
    probes = probes_of(mine)
    for other in others:
        theirs = digest(other)
        if theirs is None or not could_duplicate(probes, theirs):
            continue
        read = read_other(other)
        if read is None:
            continue
        found = overlap(mine, read[0])
        if not found.duplicate:
            continue
        if order is None:
            order = landing_order(placement.root)
        for path in (bundle, other):
            created.setdefault(path, created_of(path))
        if earlier(other, bundle, order, created):
            name = f"{other.parent.name}/{other.name}"
            raise VerifyFailure(
                Code.DUPLICATE_BUNDLE,
                found.describe(f"results/{name}, which came first"),
                path=str(bundle / ATTEMPTS),
            )


__all__ = [
    "ALL_SHARE",
    "CONTAIN_OWN",
    "MIN_OWN",
    "MIN_OWN_WORDS",
    "NEAR_ALL",
    "NEAR_OWN",
    "OWN_BOUND",
    "OWN_SHARE",
    "PAD_RATIO",
    "Content",
    "Overlap",
    "Digest",
    "Probes",
    "check_provenance",
    "content",
    "contents_of_bundle",
    "could_duplicate",
    "digest_of",
    "contents_of_records",
    "created_of",
    "earlier",
    "landing_order",
    "order_key",
    "overlap",
    "probes_of",
    "read_other",
    "safe_open",
    "token",
]
