"""Every attempt bound to its recording (bench.verify.binding), for chat and http-agent
entrants and for harness faults; the sample seed a submitter cannot choose (sample.py); and
provenance by landing order in git (provenance.py). Each test makes real runs, real bundles
signed with real keys, and real git repositories."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization

from bench.runner import RunRequest, start_run
from bench.signing import sign
from bench.signing.bundle import build_bundle, deterministic_gzip
from bench.testing.agent_server import AgentServer
from bench.verify import VerifyOptions, digeststore, provenance, verify_bundle
from bench.verify.digeststore import DigestStore
from bench.verify.provenance import (
    Content,
    content,
    could_duplicate,
    digest_of,
    overlap,
    read_other,
)
from bench.verify.sample import resolve_seed, seed_from

from .conftest import signing_keys

BASE = Path(__file__).resolve().parents[1] / "fixtures" / "bundles" / "_base"
ATTEMPTS = "attempts.jsonl.gz"
ENTRANTS = ("mini-good", "mini-agent", "mini-crashes-on-refunds", "bob", "mini-slow")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path, ENTRANTS)


def _bundle(mini: Path, target: Path, entrant: str, keys: dict[str, Path], root: Path) -> Path:
    run, status = start_run(
        RunRequest(tasks=mini / "tasks", target_file=target, runs_dir=root / "runs", split="public")
    )
    assert status.status == "complete"
    return build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )


def _options(root: Path, mini: Path, **more: object) -> VerifyOptions:
    return VerifyOptions(
        results_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
        tasks=mini / "tasks",
        **more,  # type: ignore[arg-type]
    )


def _attempts(bundle: Path) -> list[dict[str, object]]:
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _resign(bundle: Path, key_file: Path, files: dict[str, bytes]) -> None:
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for name, data in files.items():
        (bundle / name).write_bytes(data)
        for entry in manifest["files"]:
            if entry["path"] == name:
                entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    (bundle / "manifest.json").write_bytes(raw)
    key = serialization.load_ssh_private_key(key_file.read_bytes(), password=None)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


# -- http-agent entrants: re-driven through the tool session ---------------------------------


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer() as server:
        yield server


def _agent_target(mini: Path, url: str) -> Path:
    path = mini / "targets" / "agent.yaml"
    path.write_text(
        "format_version: 1\nkind: http-agent\nentrant: mini-agent\ndisplay_name: mini agent\n"
        f"model: example-agent\nbase_url: {url}\n"
        "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}\n"
    )
    return path


def test_an_http_agent_bundle_verifies_with_every_attempt_re_driven(
    mini: Path, keys: dict[str, Path], agent: AgentServer, tmp_path: Path
) -> None:
    bundle = _bundle(mini, _agent_target(mini, agent.url), "mini-agent", keys, tmp_path)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message
    assert "every attempt bound to its recording" in verdict.checks


def test_an_http_agent_tool_result_forged_is_refused(
    mini: Path, keys: dict[str, Path], agent: AgentServer, tmp_path: Path
) -> None:
    bundle = _bundle(mini, _agent_target(mini, agent.url), "mini-agent", keys, tmp_path)
    records = _attempts(bundle)
    forged = next(r for r in records if r["trace"]["tool_calls"])  # type: ignore[index]
    forged["trace"]["tool_calls"][0]["result"] = {"forged": True}  # type: ignore[index]
    data = deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    _resign(bundle, keys["mini-agent"], {"attempts.jsonl.gz": data})
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "REPLAY_MISMATCH", verdict.message
    assert verdict.field == f"{forged['task_id']}#{forged['repeat']}"


# -- harness faults: carried, reproduced, capped ---------------------------------------------


def _faulty_tasks(mini: Path) -> None:
    """tool-0001's refund writes a value from an argument its schema never has: the world
    cannot apply the write (WORLD_TOOL_DATA), a bug of the task, not of the entrant."""
    path = mini / "tasks" / "mini.yaml"
    text = path.read_text()
    broken = text.replace("value: refunded", 'value: "{reason}"', 1)
    assert broken != text
    path.write_text(broken)


def test_a_reproducible_harness_fault_is_published_with_its_code(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    _faulty_tasks(mini)
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    faulted = [r for r in _attempts(bundle) if r["outcome"] == "harness_fault"]
    assert [r["fault"] for r in faulted] == ["WORLD_TOOL_DATA"]
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message


def test_a_harness_fault_with_another_code_is_unexplained(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    _faulty_tasks(mini)
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    records = _attempts(bundle)
    for record in records:
        if record["outcome"] == "harness_fault":
            record["fault"] = "HARNESS_EXCEPTION"
    data = deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    _resign(bundle, keys["mini-good"], {"attempts.jsonl.gz": data})
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "HARNESS_FAULT_UNEXPLAINED"
    assert verdict.field == "tool-0001#0"


# -- the sample seed -----------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def test_the_default_seed_comes_from_a_commit_the_submitter_does_not_control(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    raw = (bundle / "manifest.json").read_bytes()
    options = _options(tmp_path, mini)
    local, basis = resolve_seed(bundle, raw, None, options)
    assert basis.startswith("manifest only") and local == seed_from(None, raw)
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "base")
    base = _git(tmp_path, "rev-parse", "HEAD")
    with_base = VerifyOptions(**{**vars(options), "base_ref": base, "git_dir": tmp_path})
    seeded, basis = resolve_seed(bundle, raw, None, with_base)
    assert basis == f"base commit {base[:12]} + manifest" and seeded == seed_from(base, raw)
    assert seeded != local and resolve_seed(bundle, raw, None, with_base)[0] == seeded
    _git(tmp_path, "add", "results")
    _git(tmp_path, "commit", "-q", "-m", "merge the bundle")
    merge = _git(tmp_path, "rev-parse", "HEAD")
    landed, basis = resolve_seed(bundle, raw, None, options)
    assert basis == f"adding commit {merge[:12]} + manifest" and landed == seed_from(merge, raw)
    assert resolve_seed(bundle, raw, 5, options) == (5, "seed 5 (given)")
    verdict = verify_bundle(bundle, options)
    assert verdict.valid and verdict.sample_basis == basis


# -- provenance -----------------------------------------------------------------------------


def _steal(bundle: Path, thief: str, run_id: str, keys: dict[str, Path]) -> Path:
    """``bundle`` renamed to ``thief``'s entrant and ``run_id``, re-signed with its key."""
    import shutil

    copy = bundle.parent.parent / thief / run_id
    shutil.copytree(bundle, copy)
    config = json.loads((copy / "config.json").read_bytes())
    config.update(entrant=thief, run_id=run_id, display_name="not a copy")
    config["target"].update(entrant=thief, display_name="not a copy")
    status = json.loads((copy / "status.json").read_bytes())
    status["run_id"] = run_id
    records = _attempts(copy)
    for record in records:
        record["run_id"] = run_id
        record["trace"]["latency_s"] = 0.5  # type: ignore[index]
    pretty = {"indent": 2, "ensure_ascii": False, "sort_keys": True}
    files = {
        "config.json": (json.dumps(config, **pretty) + "\n").encode(),  # type: ignore[arg-type]
        "target.json": (json.dumps(config["target"], **pretty) + "\n").encode(),  # type: ignore[arg-type]
        "status.json": json.dumps(status).encode(),
        "attempts.jsonl.gz": deterministic_gzip(
            b"".join(json.dumps(r).encode() + b"\n" for r in records)
        ),
    }
    manifest = json.loads((copy / "manifest.json").read_bytes())
    manifest.update(entrant=thief, run_id=run_id, target_dir=f"results/{thief}/{run_id}")
    (copy / "manifest.json").write_bytes(rfc8785.dumps(manifest))
    _resign(copy, keys[thief], files)
    return copy


def test_the_later_of_two_duplicates_in_git_history_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    stolen = _steal(bundle, "bob", "20200101T000000Z-000000", keys)  # an older-looking id
    # bob's copy lands first on main: it wins, whatever its dates say; mini-good is refused.
    _git(tmp_path, "add", str(stolen.relative_to(tmp_path)))
    _git(tmp_path, "commit", "-q", "-m", "bob lands", "--date=2001-01-01T00:00:00")
    _git(tmp_path, "add", str(bundle.relative_to(tmp_path)))
    _git(tmp_path, "commit", "-q", "-m", "mini-good lands", "--date=2000-01-01T00:00:00")
    options = _options(tmp_path, mini)
    assert verify_bundle(stolen, options).valid
    refused = verify_bundle(bundle, options)
    assert refused.code is not None and refused.code.value == "DUPLICATE_BUNDLE"
    assert "results/bob/20200101T000000Z-000000" in refused.message


def test_an_entrants_own_runs_and_other_entrants_answers_are_not_duplicates(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    first = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    again = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    other = _bundle(
        mini,
        mini / "targets" / "crashes_on_refunds.yaml",
        "mini-crashes-on-refunds",
        keys,
        tmp_path,
    )
    options = _options(tmp_path, mini)
    for bundle in (first, again):
        verdict = verify_bundle(bundle, options)
        assert verdict.valid, (bundle, verdict.message)
    verdict = verify_bundle(other, options)  # it errors on refunds: a failure, published
    assert verdict.valid, verdict.message
    assert "provenance" in verdict.checks


def test_content_ignores_names_case_and_spacing_and_sees_near_copies() -> None:
    calls = [("get_order", {"order_id": "1041"})]
    handed = ["Refund order 1041.", '{"status":"delivered","total":30}']
    text = "Order 1041 is refunded, as you asked; the money is back in five to ten days."
    one = content([text], calls, handed)
    assert one is not None and one.distinctive
    assert content(["  " + text.upper().replace(" ", "   ") + " "], calls, handed) == one
    near = content([text.replace("money", "cash") + "!"], calls, handed)
    assert near is not None and near != one and near.near(one, own=True)  # a touched-up copy
    other = content(["Done: your refund for 1041 went through, expect it within a week."], calls)
    assert other is not None and not other.near(one, own=True)  # another agent's words
    quoted = content(["Refund order 1041."], calls, handed)  # nothing of its own
    assert quoted is not None and not quoted.distinctive
    assert content([""], []) is None
    found = overlap({"t": [one, one, one, one]}, {"t": [near, near]})
    assert (found.own_shared, found.own_compared, found.duplicate) == (4, 4, True)
    # repeats copied from fewer attempts are each a copy (not paired one to one)
    found = overlap({"t": [one, one, one, one]}, {"t": [near]})
    assert (found.own_shared, found.own_compared, found.duplicate) == (4, 4, True)
    found = overlap({"t": [one, other, other, other]}, {"t": [near]})
    assert (found.own_shared, found.own_compared, found.duplicate) == (1, 4, False)
    # padded: the other's own words all kept, as many words of its own added (Jaccard 0.5)
    padded = content([text + " Kindly note zebra quartz umbrella violin walnut xylophone yacht "
                      "marble lantern harbor."], calls, handed)  # fmt: skip
    assert padded is not None and padded.near(one, own=True)
    assert provenance._jaccard(padded.own, one.own) < provenance.NEAR_OWN
    assert not one.near(padded, own=True)  # the shorter one does not hold the padded one
    found = overlap({"t": [padded] * 3, "u": [padded]}, {"t": [one], "u": [one]})
    assert (found.own_shared, found.own_compared, found.duplicate) == (4, 4, True)
    # padded past twice its size: not a copy by this rule
    long = content([text + " " + " ".join(f"w{i}" for i in range(3 * len(one.own)))], calls)
    assert long is not None and not long.near(one, own=True)
    # a thief re-publishing three repeats as seven: paired one to one, only 3 of 7 (43 %)
    theirs_three = {f"t{i}": [one, near, one] for i in range(4)}
    mine_seven = {f"t{i}": [one] * 4 + [near] * 3 for i in range(4)}
    found = overlap(mine_seven, theirs_three)
    assert (found.own_shared, found.own_compared, found.duplicate) == (28, 28, True)
    assert not overlap({"t": [one]}, {"u": [one]}).duplicate  # other tasks never count
    # everything copied, where the words are the task's own: the second rule
    copies = {f"t{i}": [quoted] for i in range(3)}
    found = overlap(copies, copies)
    assert (found.own_compared, found.all_shared, found.all_compared) == (0, 3, 3)
    assert found.duplicate
    assert not overlap(copies, {"t0": [quoted], "t1": [other], "t2": [other]}).duplicate


def _pad(a: Content, rng: random.Random) -> Content:
    """``a`` with up to as many new words of its own as it has (a padded copy)."""
    extra = {f"pad{rng.randint(0, 10**6)}" for _ in range(rng.randint(1, max(1, len(a.own))))}
    return replace(a, digest=a.digest + "p", words=a.words | extra, own=a.own | extra)


@pytest.mark.parametrize("tokens", ["blake2b", "colliding"])
def test_the_prefilter_never_hides_a_duplicate(
    tokens: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``could_duplicate`` is a necessary condition: over random bundles built from a small
    vocabulary (so near copies, exact copies and near misses all occur), whenever the full
    comparison finds a duplicate, the prefilter lets the pair through; and it does skip
    pairs (it is not a constant True). Also when many words share a token (a crafted
    collision of the 64-bit tokens): sharing can only let more pairs through."""
    if tokens == "colliding":
        monkeypatch.setattr(provenance, "token", lambda task, text: len(text) % 5)
    rng = random.Random(14)
    vocabulary = [f"w{i}" for i in range(40)]
    skipped = duplicates = 0

    def attempt() -> Content | None:
        words = rng.sample(vocabulary, rng.randint(0, 12))
        calls = [("tool", {"x": rng.randint(0, 2)})] if rng.random() < 0.3 else []
        return content([" ".join(words)], calls, [" ".join(rng.sample(vocabulary, 5))])

    def bundle() -> dict[str, list[Content]]:
        out: dict[str, list[Content]] = {}
        for task in range(rng.randint(1, 5)):
            found = [a for a in (attempt() for _ in range(rng.randint(1, 3))) if a is not None]
            if found:
                out[f"t{task}"] = found
        return out

    def touched(source: dict[str, list[Content]]) -> dict[str, list[Content]]:
        out: dict[str, list[Content]] = {}
        for task, attempts in source.items():
            kept = [a if rng.random() < 0.7 else (attempt() or a) for a in attempts]
            out[task] = [  # a near copy: one word more, so another digest; or padded
                replace(a, digest=a.digest + "x", words=a.words | {"x"}, own=a.own | {"x"})
                if rng.random() < 0.6
                else _pad(a, rng)
                if rng.random() < 0.5
                else a
                for a in kept
            ]
        return out

    for _ in range(3000):
        mine = bundle()
        theirs = touched(mine) if rng.random() < 0.5 else bundle()
        full = overlap(mine, theirs).duplicate
        allowed = could_duplicate(mine, digest_of(theirs))
        assert allowed or not full, (mine, theirs)
        duplicates += full
        skipped += not allowed
    assert duplicates > 100, duplicates
    assert tokens == "colliding" or skipped > 100, skipped


def _could_duplicate_in_full(mine: dict[str, list[Content]], theirs: provenance.Digest) -> bool:
    """``could_duplicate`` as it was before it stopped early: every attempt counted."""
    probes = provenance.probes_of(mine)
    own_shared = own_compared = all_shared = all_compared = 0
    for task_id, attempts in probes.items():
        if task_id not in theirs.tasks:
            continue
        for attempt in attempts:
            exact = attempt.digest in theirs.digests
            all_compared += 1
            all_shared += exact or provenance._contained(
                attempt.words, theirs.words, provenance.NEAR_ALL
            )
            if attempt.distinctive:
                own_compared += 1
                own_shared += exact or provenance._contained(
                    attempt.own, theirs.own, provenance.OWN_BOUND
                )
    return provenance.Overlap(own_shared, own_compared, all_shared, all_compared).duplicate


def test_the_prefilter_stopping_early_answers_as_counting_every_attempt() -> None:
    """Bundles of up to 40 tasks where the other holds a copy of any share (0 to all) of
    them, so that pairs are decided on either side of both rules' thresholds: stopping once
    neither share is within reach never changes the answer."""
    rng = random.Random(43)
    vocabulary = [f"w{i}" for i in range(60)]
    answers = {True: 0, False: 0}

    most = 12

    def attempt() -> Content | None:
        words = rng.sample(vocabulary, rng.randint(0, most))
        return content([" ".join(words)], [], [" ".join(rng.sample(vocabulary, 5))])

    for _ in range(2000):
        most = rng.choice([3, 12])  # 3: no attempt has its own words, only the "all" rule
        n = rng.choice([3, 10, 20, 40, rng.randint(1, 40)])
        mine = {f"t{t}": [a for a in [attempt()] if a is not None] for t in range(n)}
        mine = {task: attempts for task, attempts in mine.items() if attempts}
        share = rng.choice([0.0, 0.45, 0.5, 0.55, 0.85, 0.9, 0.95, 1.0, rng.random()])
        copied = set(rng.sample(sorted(mine), round(share * len(mine))))  # exactly that many
        theirs = {
            task: (list(attempts) if task in copied else [a for a in [attempt()] if a])
            for task, attempts in mine.items()
            if task in copied or rng.random() < 0.95
        }
        digest = digest_of({task: a for task, a in theirs.items() if a})
        expected = _could_duplicate_in_full(mine, digest)
        assert could_duplicate(mine, digest) == expected, (mine, theirs)
        answers[expected] += 1
    assert min(answers.values()) > 200, answers


def test_stored_digests_find_the_same_duplicates(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """A board rebuilt from its cache takes other bundles' digests from ``DigestStore``:
    the verdicts are those without it, from a store just filled, read back from disk, or
    corrupt; a changed attempts file is a new key, never a stale digest."""
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    stolen = _steal(bundle, "bob", "20200101T000000Z-000000", keys)
    plain = [verify_bundle(b, _options(tmp_path, mini)) for b in (bundle, stolen)]
    assert [v.valid for v in plain] == [False, True]
    assert plain[0].code is not None and plain[0].code.value == "DUPLICATE_BUNDLE"
    store_dir = tmp_path / "store"

    def verdicts() -> tuple[list[tuple[bool, str]], DigestStore]:
        digeststore._MEMO.clear()
        store = DigestStore(store_dir)
        options = _options(tmp_path, mini, digest_store=store)
        found = [verify_bundle(b, options) for b in (bundle, stolen)]
        return [(v.valid, v.message) for v in found], store

    expected = [(v.valid, v.message) for v in plain]
    first, store = verdicts()
    assert first == expected and (store.hits, store.misses) == (0, 2)
    files = sorted(store_dir.rglob("*.tokens"))
    assert len(files) == 2
    again, store = verdicts()
    assert again == expected and (store.hits, store.misses) == (2, 0)
    read = read_other(stolen)
    assert read is not None and store.digest(stolen) == read[1] == digest_of(read[0])
    files[0].write_bytes(files[0].read_bytes()[:-3])  # cut short: a miss, written again
    files[1].write_bytes(b"not tokens")
    corrupt, store = verdicts()
    assert corrupt == expected and (store.hits, store.misses) == (0, 2)
    assert store.digest(stolen) == read[1]
    # bob's copy changed: another key, its digest read afresh
    records = _attempts(stolen)
    records[0]["trace"]["answers"] = ["something else entirely"]  # type: ignore[index]
    (stolen / ATTEMPTS).write_bytes(
        deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    )
    digeststore._MEMO.clear()
    store = DigestStore(store_dir)
    changed = store.digest(stolen)
    assert (store.hits, store.misses) == (0, 1) and changed != read[1]


def test_priming_a_store_keeps_the_digest_and_not_the_contents(tmp_path: Path) -> None:
    """A board build makes every bundle's digest first (``DigestStore.prime``): the digest
    lands in the store, equal to the one read in full, while the bundle's contents are not
    kept in the process (most pairs stop at the digest); priming again reads nothing."""
    (source,) = (p.parent for p in BASE.glob("results/*/*/manifest.json"))
    bundle = tmp_path / "copy"
    shutil.copytree(source, bundle)
    digeststore._MEMO.clear()
    store = DigestStore(tmp_path / "store")
    store.prime(bundle)
    assert (store.hits, store.misses) == (0, 1)
    assert (bundle / ATTEMPTS).resolve() not in provenance._READ
    store.prime(bundle)
    assert (store.hits, store.misses) == (1, 1)
    read = read_other(bundle)
    assert read is not None and store.digest(bundle) == read[1]


def test_another_bundle_is_read_once_per_process(tmp_path: Path) -> None:
    """The board verifies every bundle, and each verification looks at every other one: the
    other bundles' contents come from the process's cache until their file changes."""
    (source,) = (p.parent for p in BASE.glob("results/*/*/manifest.json"))
    bundle = tmp_path / "copy"
    shutil.copytree(source, bundle)
    first = read_other(bundle)
    assert first is not None and read_other(bundle) is not None
    assert read_other(bundle)[0] is first[0]  # type: ignore[index]
    attempts = bundle / ATTEMPTS
    data = gzip.decompress(attempts.read_bytes())
    attempts.write_bytes(gzip.compress(data + b"\n"))  # a new file: read again
    again = read_other(bundle)
    assert again is not None and again[0] is not first[0] and again[0] == first[0]


def test_failed_model_calls_are_bound_and_a_refused_request_is_an_explained_fault(
    tmp_path: Path, mini: Path, keys: dict[str, Path]
) -> None:
    """Against the mock server: the first model call is refused as malformed (a harness fault,
    REQUEST_REFUSED) and one later call fails for good (an errored attempt). Both failed calls
    are in the attempts and the cassette; the bundle verifies, the re-drive reproducing the
    harness fault from its recorded refusal; a forged refusal on an answered attempt does not."""
    from bench.testing.mock_server import MockServer

    with MockServer(max_seconds=120) as server:
        target = mini / "targets" / "refused.yaml"
        target.write_text(
            "\n".join(
                [
                    "format_version: 1",
                    "kind: openai",
                    "entrant: mini-good",
                    "display_name: mini good over http",
                    "model: bench-mock",
                    f"base_url: {server.fault_url('invalid,times=1')}/v1",
                    "retry: {max_attempts: 1}",
                ]
            )
            + "\n"
        )
        bundle = _bundle(mini, target, "mini-good", keys, tmp_path)
    records = _attempts(bundle)
    faults = [r for r in records if r["outcome"] == "harness_fault"]
    assert [r["fault"] for r in faults] == ["REQUEST_REFUSED"]
    (refused,) = faults[0]["trace"]["exchanges"]  # type: ignore[index]
    assert refused["response"]["error"]["code"] == "REQUEST_REFUSED"
    cassette = (bundle / "cassette.jsonl").read_text().splitlines()
    assert sum('"REQUEST_REFUSED"' in line for line in cassette) == 1
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message
    # an answered attempt relabelled as refused, its recording forged to match: its re-drive
    # no longer ends where the trace does
    answered = next(r for r in records if r["outcome"] == "scored")
    answered["outcome"], answered["fault"], answered["value"] = (
        "harness_fault",
        "REQUEST_REFUSED",
        None,
    )
    answered["passed"], answered["verdicts"] = None, []
    _resign(
        bundle,
        keys["mini-good"],
        {ATTEMPTS: deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))},
    )
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert not verdict.valid


def test_an_attempt_its_timeout_stopped_mid_call_verifies(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """A timeout cancels the call in flight, which leaves no exchange; re-driving the recording
    asks for one call more than it holds. That ask is the re-drive's, not the attempt's, so the
    bundle verifies (seen on llama-cpp-python: a tool call's arguments ran past the timeout)."""
    run, _ = start_run(
        RunRequest(tasks=mini / "tasks", target_file=mini / "targets" / "hangs.yaml",
                   runs_dir=tmp_path / "runs", split="public",
                   task_ids=("qa-0001", "tool-0001"), attempt_timeout_s=2)
    )  # fmt: skip
    [record] = [r for r in run.attempts() if r.task_id == "tool-0001"]
    assert record.outcome == "errored" and "timeout" in (record.reason or "")
    assert len(record.trace.exchanges) == 1  # the second call was in flight
    bundle = build_bundle(run, entrant="mini-slow", key_file=keys["mini-slow"],
                          out_root=tmp_path / "results",
                          allowed_signers=tmp_path / "submissions" / "allowed_signers")  # fmt: skip
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, (verdict.code, verdict.message)


def test_the_landing_order_is_one_sort_key(tmp_path: Path) -> None:
    """``earlier`` compares ``order_key``s (so a board's cache sorts the bundles once): the
    same answers as the rule written out, over random ranks, created times and run ids."""
    from bench.verify.provenance import earlier

    def rule(a: Path, b: Path, rank: dict[Path, int], created: dict[Path, str]) -> bool:
        ka = rank.get((a / "manifest.json").resolve())
        kb = rank.get((b / "manifest.json").resolve())
        if ka != kb:
            if ka is None:
                return False
            if kb is None:
                return True
            return ka < kb
        return (created.get(a, ""), a.name, str(a)) < (created.get(b, ""), b.name, str(b))

    rng = random.Random(5)
    bundles = [tmp_path / f"e{rng.randint(0, 2)}" / f"r{rng.randint(0, 3)}-{i}" for i in range(12)]
    for _ in range(200):
        landed = [b for b in bundles if rng.random() < 0.6]
        rank = {(b / "manifest.json").resolve(): rng.randint(0, 3) for b in landed}
        created = {b: f"2026-0{rng.randint(1, 3)}" for b in bundles if rng.random() < 0.8}
        for a in bundles:
            for b in bundles:
                assert earlier(a, b, rank, created) == rule(a, b, rank, created), (a, b)


# -- manifest and record hygiene --------------------------------------------------------------


def test_a_file_listed_twice_is_refused_whichever_entry_matches(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """One hash per file: with two entries for a path, the verifier took the last one, and a
    reader of the first would see another file than the one verified."""
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    [entry] = [e for e in manifest["files"] if e["path"] == "attempts.jsonl.gz"]
    for twin in ({**entry, "sha256": "0" * 64}, dict(entry)):  # a stale twin first, then equal
        forged = json.loads(json.dumps(manifest))
        forged["files"].insert(0, twin)
        raw = rfc8785.dumps(forged)
        (bundle / "manifest.json").write_bytes(raw)
        key = serialization.load_ssh_private_key(keys["mini-good"].read_bytes(), password=None)
        (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]
        verdict = verify_bundle(bundle, _options(tmp_path, mini))
        assert verdict.code is not None and verdict.code.value == "MANIFEST_SCHEMA"
        assert verdict.field is not None and verdict.field.startswith("files[")
        assert "listed twice" in verdict.message


def test_a_run_created_after_its_bundle_is_refused(
    mini: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(mini, mini / "targets" / "good.yaml", "mini-good", keys, tmp_path)
    assert verify_bundle(bundle, _options(tmp_path, mini)).valid
    config = json.loads((bundle / "config.json").read_bytes())
    config["created_at"] = "2999-01-01T00:00:00Z"
    text = json.dumps(config, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    _resign(bundle, keys["mini-good"], {"config.json": text.encode()})
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "CREATED_IN_FUTURE", verdict.message
    assert verdict.field == "created_at" and (verdict.path or "").endswith("config.json")
