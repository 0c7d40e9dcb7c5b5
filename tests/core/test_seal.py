"""Sealed cache files (bench.core.seal) and the keyed layout's pruning (bench.core.keyed)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from bench.core.keyed import keyed_path, prune, read_keyed, write_keyed
from bench.core.seal import MAGIC, MIN_KEY_BYTES, SealKey, seal, unseal

KEY = SealKey(bytes(range(32)))


def test_a_sealed_body_unseals_under_its_key_and_name_only() -> None:
    raw = seal(KEY, "entry:abc", b"body\nwith lines")
    assert raw.startswith(MAGIC) and raw.endswith(b"body\nwith lines")
    assert unseal(KEY, "entry:abc", raw) == b"body\nwith lines"
    other = SealKey(bytes(range(1, 33)))
    refused = [
        (other, "entry:abc", raw),  # another key
        (KEY, "entry:abd", raw),  # moved under another name
        (KEY, "entry:abc", raw[:-1] + b"X"),  # one byte of the body changed
        (KEY, "entry:abc", raw.replace(raw[20:21], b"0" if raw[20:21] != b"0" else b"1", 1)),
        (KEY, "entry:abc", b"body"),  # never sealed
        (KEY, "entry:abc", b""),
    ]
    for key, name, data in refused:
        with pytest.raises(ValueError):
            unseal(key, name, data)
    # without a key, nothing is added or checked
    assert seal(None, "entry:abc", b"x") == b"x" and unseal(None, "entry:abc", raw) == raw


def test_the_key_never_shows_and_short_keys_are_refused() -> None:
    secret = b"A" * MIN_KEY_BYTES
    key = SealKey(secret)
    for text in (repr(key), str(key), f"{key}", repr([key])):
        assert "AAAA" not in text and "32 bytes" in text
    assert pickle.loads(pickle.dumps(key)) == key  # a pool's worker gets it whole
    assert key != SealKey(b"B" * MIN_KEY_BYTES) and hash(key) == hash(SealKey(secret))
    with pytest.raises(ValueError):
        SealKey(b"A" * (MIN_KEY_BYTES - 1))


def test_prune_touches_only_its_own_layout(tmp_path: Path) -> None:
    keep, stale = "a" * 64, "ab" + "c" * 62
    kept = keyed_path(tmp_path, keep, ".json")
    gone = keyed_path(tmp_path, stale, ".json")
    other_suffix = keyed_path(tmp_path, stale, ".tokens")
    misplaced = tmp_path / "cd" / f"{stale}.json"  # not under its own first two digits
    upper = tmp_path / "ab" / f"{stale.upper()}.json"
    for path in (kept, gone, other_suffix, misplaced, upper, tmp_path / "top.json"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    assert prune(tmp_path, ".json", {keep}) == 1
    assert not gone.exists()
    assert all(p.exists() for p in (kept, other_suffix, misplaced, upper, tmp_path / "top.json"))
    assert prune(tmp_path / "absent", ".json", set()) == 0
    (tmp_path / "ab" / f"{stale.upper()}.json").unlink()
    other_suffix.unlink()
    assert prune(tmp_path, ".json", {keep}) == 0
    assert not (tmp_path / "ab").exists()  # left empty: removed


def test_a_keyed_file_is_read_only_when_it_is_a_regular_file_of_its_own(tmp_path: Path) -> None:
    key = "ab" + "0" * 62
    path = keyed_path(tmp_path, key, ".json")
    path.parent.mkdir()
    os.mkfifo(path)  # a plain read would wait for a writer forever
    with pytest.raises(ValueError, match="not a regular file"):
        read_keyed(tmp_path, key, ".json")
    path.unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(b"secret")
    path.symlink_to(elsewhere)
    with pytest.raises(OSError):
        read_keyed(tmp_path, key, ".json")
    path.unlink()
    path.write_bytes(b"x" * 11)
    with pytest.raises(ValueError, match="larger"):
        read_keyed(tmp_path, key, ".json", limit=10)
    assert read_keyed(tmp_path, key, ".json", limit=11) == b"x" * 11
    # a two-digit directory that is a link: neither read through nor written into
    target = tmp_path / "target"
    target.mkdir()
    (target / f"{key}.json").write_bytes(b"planted")
    path.unlink()
    path.parent.rmdir()
    path.parent.symlink_to(target, target_is_directory=True)
    with pytest.raises(OSError):
        read_keyed(tmp_path, key, ".json")
    with pytest.raises(OSError):
        write_keyed(tmp_path, key, ".json", b"new")
    assert sorted(p.name for p in target.iterdir()) == [f"{key}.json"]
    assert (target / f"{key}.json").read_bytes() == b"planted"
    assert prune(tmp_path, ".json", set()) == 0 and (target / f"{key}.json").exists()


def test_caches_take_a_file_that_is_not_a_file_as_a_miss(tmp_path: Path) -> None:
    from bench.board.entrycache import SUFFIX, EntryCache

    cache = EntryCache(tmp_path, KEY)
    key = "cd" + "1" * 62
    path = keyed_path(tmp_path, key, SUFFIX)
    path.parent.mkdir()
    os.mkfifo(path)
    assert cache.get(key) is None and cache.misses == 1  # at once, not blocked
