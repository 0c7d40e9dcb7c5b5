"""The adversarial suite of the verifier (SECURITY.md, "How we test it").

Fixture bundles are generated at test time (conftest.py: a real run of tests/fixtures/mini with
the ``good`` scripted entrant, bundled and signed); each case mutates a private copy the way an
attacker would — often re-signing with their own registered key, so that the check under test
is the one that must catch it. Every case asserts its exact code and that nothing under
results/ or submissions/ changed.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.signing import NAMESPACE, sign, wire
from bench.signing.bundle import deterministic_gzip
from bench.verify import UNUSABLE, Code, VerifyOptions, verify_bundle

MANIFEST = "manifest.json"
ENTRANT = "mini-good"
Options = dict[str, Any]
Case = Callable[[Any], Options | None]


def read_manifest(bundle: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((bundle / MANIFEST).read_bytes())
    return value


def write_manifest(
    bundle: Path,
    value: dict[str, Any],
    key: Ed25519PrivateKey,
    *,
    namespace: str = NAMESPACE,
    raw: bytes | None = None,
) -> None:
    data = raw if raw is not None else rfc8785.dumps(value)
    (bundle / MANIFEST).write_bytes(data)
    (bundle / "manifest.json.sig").write_text(sign(data, key, namespace))


def rewrite(bundle: Path, name: str, data: bytes, key: Ed25519PrivateKey) -> None:
    """Replace a payload file and list it honestly, re-signed by ``key``."""
    (bundle / name).write_bytes(data)
    manifest = read_manifest(bundle)
    for entry in manifest["files"]:
        if entry["path"] == name:
            entry["sha256"] = hashlib.sha256(data).hexdigest()
            entry["size"] = len(data)
    write_manifest(bundle, manifest, key)


def attempts(bundle: Path) -> list[dict[str, Any]]:
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def tree_hash(*roots: Path) -> str:
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            digest.update(str(path.relative_to(root)).encode())
            if path.is_symlink():
                digest.update(b"L" + str(path.readlink()).encode())
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _owner(w: Any) -> Ed25519PrivateKey:
    key: Ed25519PrivateKey = w.keys[ENTRANT]
    return key


def _manifest_edit(**changes: Any) -> Case:
    def case(w: Any) -> None:
        value = read_manifest(w.bundle)
        value.update(changes)
        write_manifest(w.bundle, value, _owner(w))

    return case


def _raw_manifest(transform: Callable[[bytes], bytes]) -> Case:
    def case(w: Any) -> None:
        write_manifest(w.bundle, {}, _owner(w), raw=transform((w.bundle / MANIFEST).read_bytes()))

    return case


def _tamper(name: str) -> Case:
    def case(w: Any) -> None:
        path = w.bundle / name
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x20
        path.write_bytes(bytes(data))

    return case


def _unsigned_manifest_edit(w: Any) -> None:
    raw = (w.bundle / MANIFEST).read_bytes()
    (w.bundle / MANIFEST).write_bytes(raw.replace(b'"size":', b'"size":1', 1))


def _flip_signature(w: Any) -> None:
    path = w.bundle / "manifest.json.sig"
    lines = path.read_text().splitlines()
    blob = bytearray(base64.b64decode("".join(lines[1:-1])))
    blob[-1] ^= 0x01
    encoded = base64.b64encode(bytes(blob)).decode()
    body = [encoded[i : i + 70] for i in range(0, len(encoded), 70)]
    path.write_text("\n".join([lines[0], *body, lines[-1]]) + "\n")


def _append(w: Any) -> None:
    path = w.bundle / "cassette.jsonl"
    path.write_bytes(path.read_bytes() + b"\n")


def _json_file(name: str, text: str) -> Case:
    def case(w: Any) -> None:
        rewrite(w.bundle, name, text.encode(), _owner(w))

    return case


def _status_edit(**changes: Any) -> Case:
    def case(w: Any) -> None:
        value = json.loads((w.bundle / "status.json").read_bytes())
        value.update(changes)
        rewrite(w.bundle, "status.json", json.dumps(value).encode(), _owner(w))

    return case


def _attempt_edit(edit: Callable[[dict[str, Any]], None]) -> Case:
    def case(w: Any) -> None:
        records = attempts(w.bundle)
        edit(records[0])
        lines = b"".join(json.dumps(r).encode() + b"\n" for r in records)
        rewrite(w.bundle, "attempts.jsonl.gz", deterministic_gzip(lines), _owner(w))

    return case


def _cassette_answer(w: Any) -> None:
    lines = (w.bundle / "cassette.jsonl").read_text().splitlines()
    for index, line in enumerate(lines):
        entry = json.loads(line)
        if entry["response"].get("content"):
            entry["response"]["content"] = "Something else entirely."
            lines[index] = json.dumps(entry)
            break
    rewrite(w.bundle, "cassette.jsonl", ("\n".join(lines) + "\n").encode(), _owner(w))


def _sign_with(name: str, namespace: str = NAMESPACE) -> Case:
    def case(w: Any) -> None:
        key = w.keys[name] if name in w.keys else Ed25519PrivateKey.generate()
        write_manifest(w.bundle, read_manifest(w.bundle), key, namespace=namespace)

    return case


def _rsa_signature(w: Any) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pub = rsa_key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    blob = (
        b"SSHSIG" + wire.uint32(1) + wire.string(base64.b64decode(pub.split()[1]))
        + wire.string(NAMESPACE) + wire.string(b"") + wire.string("sha512")
        + wire.string(wire.string("rsa-sha2-512") + wire.string(b"\x00" * 128))
    )  # fmt: skip
    text = base64.b64encode(blob).decode()
    body = "\n".join(text[i : i + 70] for i in range(0, len(text), 70))
    (w.bundle / "manifest.json.sig").write_text(
        f"-----BEGIN SSH SIGNATURE-----\n{body}\n-----END SSH SIGNATURE-----\n"
    )


def _signers_text(edit: Callable[[str], str]) -> Case:
    def case(w: Any) -> None:
        w.signers.write_text(edit(w.signers.read_text()))

    return case


def _without_owner(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith(ENTRANT + " "))


def _with_wildcard(text: str) -> str:
    bob = next(line for line in text.splitlines() if line.startswith("bob "))
    return text + "*" + bob[3:] + "\n"


def _move(entrant: str, run_id: str | None = None) -> Case:
    def case(w: Any) -> Options:
        target = w.results / entrant / (run_id or w.run_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(w.bundle, target)
        return {"bundle": target}

    return case


def _outside(w: Any) -> Options:
    target = w.root / "not-results" / ENTRANT / w.run_id
    shutil.copytree(w.bundle, target)
    return {"bundle": target}


def _reused_run_id(w: Any) -> None:
    """Bob publishes the same run under his own name, honestly re-signed by bob."""
    copy = w.results / "bob" / w.run_id
    shutil.copytree(w.bundle, copy)
    value = read_manifest(copy)
    value.update(entrant="bob", target_dir=f"results/bob/{w.run_id}")
    write_manifest(copy, value, w.keys["bob"])


def _change_task_set(w: Any) -> None:
    path = w.tasks / "mini.yaml"
    path.write_text(path.read_text().replace("How long do refunds take?", "Refund time?"))


def _duplicate_key(w: Any) -> None:
    raw = (w.bundle / MANIFEST).read_bytes()
    forged = raw.replace(b'{"config_fingerprint"', b'{"entrant":"bob","config_fingerprint"', 1)
    assert forged != raw
    write_manifest(w.bundle, {}, _owner(w), raw=forged)


def _listed_path(path: str) -> Case:
    def case(w: Any) -> None:
        value = read_manifest(w.bundle)
        value["files"][0]["path"] = path
        write_manifest(w.bundle, value, _owner(w))

    return case


def _extra_file(name: str, *, listed: bool = False) -> Case:
    def case(w: Any) -> None:
        (w.bundle / name).write_bytes(b"hello\n")
        if listed:
            value = read_manifest(w.bundle)
            digest = hashlib.sha256(b"hello\n").hexdigest()
            value["files"].append({"path": name, "sha256": digest, "size": 6})
            value["files"].sort(key=lambda f: f["path"])
            write_manifest(w.bundle, value, _owner(w))

    return case


def _symlink(w: Any) -> None:
    (w.bundle / "cassette.jsonl").unlink()
    (w.bundle / "cassette.jsonl").symlink_to(w.signers)


def _bundle_symlink(w: Any) -> None:
    real = w.root / "elsewhere"
    shutil.move(w.bundle, real)
    w.bundle.symlink_to(real, target_is_directory=True)


def _many_files(w: Any) -> None:
    for index in range(20):
        (w.bundle / f"f{index}.txt").write_text("x")


def _deep(w: Any) -> None:
    text = (w.bundle / "status.json").read_text().rstrip()[:-1]
    text += ', "deep": ' + "[" * 100 + "]" * 100 + "}"
    rewrite(w.bundle, "status.json", text.encode(), _owner(w))


def _wrong_answer(record: dict[str, Any]) -> None:
    record["trace"]["answers"] = ["I am not sure."]


CASES: dict[str, tuple[Case | None, str | None]] = {
    "valid_pass": (None, None),
    # tampering with any file
    "tamper_attempts_fail": (_tamper("attempts.jsonl.gz"), "FILE_HASH_MISMATCH"),
    "tamper_cassette_fail": (_tamper("cassette.jsonl"), "FILE_HASH_MISMATCH"),
    "tamper_config_fail": (_tamper("config.json"), "FILE_HASH_MISMATCH"),
    "tamper_status_fail": (_tamper("status.json"), "FILE_HASH_MISMATCH"),
    "tamper_target_fail": (_tamper("target.json"), "FILE_HASH_MISMATCH"),
    "tamper_manifest_fail": (_unsigned_manifest_edit, "SIGNATURE_INVALID"),
    "tamper_signature_fail": (_flip_signature, "SIGNATURE_INVALID"),
    "appended_bytes_fail": (_append, "FILE_SIZE_MISMATCH"),
    # unlisted and missing files
    "unlisted_file_fail": (_extra_file("README.txt"), "BUNDLE_FILE_UNLISTED"),
    "listed_extra_file_fail": (_extra_file("notes.txt", listed=True), "BUNDLE_FILE_UNEXPECTED"),
    "missing_file_fail": (lambda w: (w.bundle / "cassette.jsonl").unlink(), "BUNDLE_FILE_MISSING"),
    "missing_manifest_fail": (lambda w: (w.bundle / MANIFEST).unlink(), "MANIFEST_MISSING"),
    "missing_signature_fail": (
        lambda w: (w.bundle / "manifest.json.sig").unlink(),
        "SIGNATURE_MISSING",
    ),
    "garbled_signature_fail": (
        lambda w: (w.bundle / "manifest.json.sig").write_text("not a signature\n") and None,
        "SIGNATURE_MALFORMED",
    ),
    # wrong key, unknown key, wrong key type, wrong namespace
    "wrong_key_fail": (_sign_with("bob"), "SIGNATURE_WRONG_KEY"),
    "unknown_key_fail": (_sign_with("stranger"), "SIGNATURE_WRONG_KEY"),
    "unknown_principal_fail": (_signers_text(_without_owner), "SIGNER_UNKNOWN"),
    "rsa_key_fail": (_rsa_signature, "SIGNATURE_KEY_TYPE"),
    "git_namespace_fail": (_sign_with(ENTRANT, "git"), "SIGNATURE_NAMESPACE"),
    # wildcard signer lines (and a missing signers file): the verifier's input is unusable
    "wildcard_signer_fail": (_signers_text(_with_wildcard), "SIGNERS_UNUSABLE"),
    "missing_signers_fail": (lambda w: w.signers.unlink(), "SIGNERS_UNUSABLE"),
    # replays into another directory, entrant, repository or version
    "other_run_dir_fail": (_move(ENTRANT, "20300101T000000Z-000000"), "RUN_ID_MISMATCH"),
    "other_entrant_fail": (_move("bob"), "ENTRANT_MISMATCH"),
    "outside_results_fail": (_outside, "BUNDLE_PLACEMENT"),
    "too_deep_dir_fail": (_move("x", "y/z"), "BUNDLE_PLACEMENT"),
    "other_repository_fail": (lambda w: {"repository": "someone/fork"}, "REPOSITORY_MISMATCH"),
    "other_target_dir_fail": (_manifest_edit(target_dir="results/x/y"), "TARGET_DIR_MISMATCH"),
    "other_task_set_version_fail": (_change_task_set, "TASK_SET_MISMATCH"),
    "future_created_at_fail": (
        _manifest_edit(created_at="2999-01-01T00:00:00Z"),
        "CREATED_IN_FUTURE",
    ),
    # re-used run ids
    "reused_run_id_fail": (_reused_run_id, "RUN_ID_REUSED"),
    # non-canonical manifests and duplicate keys
    "pretty_manifest_fail": (
        _raw_manifest(lambda raw: json.dumps(json.loads(raw), indent=1).encode()),
        "MANIFEST_NOT_CANONICAL",
    ),
    "duplicate_key_fail": (_duplicate_key, "DUPLICATE_KEY"),
    "manifest_schema_fail": (_manifest_edit(format_version=2), "MANIFEST_SCHEMA"),
    "manifest_not_json_fail": (_raw_manifest(lambda raw: raw[:-1]), "JSON_MALFORMED"),
    "config_not_json_fail": (_json_file("config.json", "{"), "JSON_MALFORMED"),
    # path tricks
    "listed_dotdot_fail": (_listed_path("../escape.json"), "PATH_UNSAFE"),
    "listed_absolute_fail": (_listed_path("/etc/passwd"), "PATH_UNSAFE"),
    "listed_backslash_fail": (_listed_path("..\\escape.json"), "PATH_UNSAFE"),
    "listed_nul_fail": (_listed_path("config.json\u0000.txt"), "PATH_UNSAFE"),
    "backslash_name_fail": (_extra_file("a\\b.json"), "PATH_UNSAFE"),
    "unicode_twin_fail": (_extra_file("cassétte.jsonl"), "PATH_UNSAFE"),
    "case_twin_fail": (_extra_file("Config.json"), "PATH_UNSAFE"),
    "symlink_file_fail": (_symlink, "PATH_UNSAFE"),
    "symlink_bundle_fail": (_bundle_symlink, "PATH_UNSAFE"),
    "subdirectory_fail": (lambda w: (w.bundle / "extra").mkdir(), "PATH_UNSAFE"),
    # claimed scores that do not match the traces
    "score_answer_changed_fail": (_attempt_edit(_wrong_answer), "SCORE_MISMATCH"),
    "score_value_claimed_fail": (_attempt_edit(lambda r: r.update(value=0.5)), "SCORE_MISMATCH"),
    "task_fingerprint_fail": (
        _attempt_edit(lambda r: r.update(task_fingerprint="0" * 16)),
        "TASK_FINGERPRINT_MISMATCH",
    ),
    "record_schema_fail": (_attempt_edit(lambda r: r.update(bonus=1)), "RECORD_INVALID"),
    "record_other_run_fail": (
        _status_edit(run_id="20300101T000000Z-000000"),
        "RECORD_INCONSISTENT",
    ),
    # non-finite numbers, integers beyond 2^53
    "manifest_nan_fail": (
        _raw_manifest(lambda r: r.replace(b'"size":', b'"size":NaN,"x":', 1)),
        "NON_FINITE_NUMBER",
    ),
    "status_infinity_fail": (
        _json_file("status.json", '{"elapsed_s": Infinity}'),
        "NON_FINITE_NUMBER",
    ),
    "status_overflow_fail": (
        _json_file("status.json", '{"elapsed_s": 1e400}'),
        "NON_FINITE_NUMBER",
    ),
    "manifest_big_integer_fail": (
        _raw_manifest(lambda r: r.replace(b'"size":', b'"size":9007199254740993,"y":', 1)),
        "INTEGER_RANGE",
    ),
    # cassette mismatches
    "cassette_answer_changed_fail": (_cassette_answer, "REPLAY_MISMATCH"),
    # oversized and over-deep files
    "oversized_manifest_fail": (
        lambda w: (w.bundle / MANIFEST).write_bytes(b" " * (1024 * 1024 + 1)) and None,
        "LIMIT_SIZE",
    ),
    "over_deep_status_fail": (_deep, "LIMIT_DEPTH"),
    "too_many_files_fail": (_many_files, "LIMIT_FILES"),
    # a run where too many attempts errored
    "error_rate_fail": (lambda w: {"bundle": w.other}, "ERROR_RATE_HIGH"),
    # unusable input
    "no_bundle_fail": (lambda w: {"bundle": w.results / ENTRANT / "nope"}, "BUNDLE_NOT_FOUND"),
    "no_task_set_fail": (lambda w: {"tasks": w.root / "no-tasks"}, "TASKS_UNUSABLE"),
}


def _verify(w: Any, **options: Any) -> Any:
    bundle = options.pop("bundle", w.bundle)
    values: dict[str, Any] = {
        "results_root": w.results,
        "allowed_signers": w.signers,
        "tasks": w.tasks,
        "replay_sample": 10,
        "seed": 7,
    }
    values.update(options)
    return verify_bundle(bundle, VerifyOptions(**values))


@pytest.mark.parametrize("name", sorted(CASES))
def test_adversarial_case(name: str, world: Any) -> None:
    mutate, expected = CASES[name]
    options = (mutate(world) if mutate is not None else None) or {}
    before = tree_hash(world.results, world.root / "submissions")
    verdict = _verify(world, **options)
    assert tree_hash(world.results, world.root / "submissions") == before
    assert (verdict.code.value if verdict.code else None) == expected, verdict
    assert name.endswith("_pass") == (expected is None)
    unusable = {code.value for code in UNUSABLE}
    assert verdict.exit_code == (0 if expected is None else 2 if expected in unusable else 1)


def test_every_code_has_a_case() -> None:
    assert {code for _, code in CASES.values() if code} == {code.value for code in Code}


def test_a_valid_bundle_replays_a_seeded_sample(world: Any) -> None:
    verdict = _verify(world, replay_sample=2, seed=3)
    assert verdict.valid and verdict.exit_code == 0
    assert len(verdict.replayed) == 2
    assert verdict.checks[-1] == "error rate" and "signature" in verdict.checks
    assert _verify(world, replay_sample=2, seed=3).replayed == verdict.replayed


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_flipping_any_byte_of_any_file_is_rejected(world: Any, data: st.DataObject) -> None:
    names = sorted(p.name for p in world.bundle.iterdir())
    name = data.draw(st.sampled_from(names), label="file")
    size = (world.bundle / name).stat().st_size
    offset = data.draw(st.integers(0, size - 1), label="offset")
    mask = data.draw(st.integers(1, 255), label="xor")
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results"
        bundle = results / ENTRANT / world.run_id
        shutil.copytree(world.bundle, bundle)
        raw = bytearray((bundle / name).read_bytes())
        raw[offset] ^= mask
        (bundle / name).write_bytes(bytes(raw))
        verdict = verify_bundle(
            bundle,
            VerifyOptions(
                results_root=results,
                allowed_signers=world.signers,
                tasks=world.tasks,
                replay_sample=0,
            ),
        )
    assert not verdict.valid, (name, offset, mask)
