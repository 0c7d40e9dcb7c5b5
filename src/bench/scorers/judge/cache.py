"""The verdict cache: SQLite (WAL), keyed on what was asked, never on a task id.

The key is the SHA-256 of the canonical JSON of ``{rubric, prompt, answer, model, temperature,
template}``, where ``prompt`` is the question the judge saw (the task's last user message) and
``template`` fingerprints the wording the judge is asked in (system prompt and prompt
template). So a re-scored run costs no judge calls, an edited task (a new rubric, a new
question) can never be served a stale verdict, and neither can a reworded judge.

Only decided verdicts (a parsed PASS or FAIL) are stored: an outage is never cached. The file
holds verdicts, reasons, token counts and costs, never a key or a request header.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from bench.core.canonical import canonical_json, sha256_hex
from bench.core.clock import iso_z, utc_now
from bench.core.sqlerrors import disk_refusal, is_busy
from bench.core.trace import Usage

from .errors import JudgeCacheError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    passed INTEGER NOT NULL,
    reason TEXT NOT NULL,
    model TEXT NOT NULL,
    temperature REAL NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cached_tokens INTEGER,
    cost_usd REAL,
    created_at TEXT NOT NULL
)
"""


def _refusal(exc: sqlite3.Error, path: Path, said: str) -> Exception:
    """What a SQLite error on the cache at ``path`` is, said truly: the file system's refusal
    (an ``OSError`` naming the file: IO_ERROR; a full disk said "not a judge cache"), another
    process holding the cache (``JUDGE_CACHE_BUSY``), or a file that is not a judge cache
    (``JUDGE_CACHE_INVALID``)."""
    refused = disk_refusal(exc, path, "the judge cache")
    if refused is not None:
        return refused
    if is_busy(exc):
        return JudgeCacheError(
            f"another process holds the judge cache ({exc}); run the command again when it "
            "is done, or give this one another --judge-cache",
            code="JUDGE_CACHE_BUSY",
            path=path,
        )
    return JudgeCacheError(f"{said}: {exc}", path=path)


def cache_key(
    *, rubric: str, prompt: str, answer: str, model: str, temperature: float, template: str
) -> str:
    """SHA-256 hex of the canonical JSON of what was asked (see the module docstring)."""
    return sha256_hex(
        canonical_json(
            {
                "rubric": rubric,
                "prompt": prompt,
                "answer": answer,
                "model": model,
                "temperature": float(temperature),
                "template": template,
            }
        )
    )


@dataclass(frozen=True)
class CachedVerdict:
    passed: bool
    reason: str
    usage: Usage | None
    cost_usd: float | None


class JudgeCache:
    """A verdict cache file. Safe to share between scoring threads; counts hits and misses."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise _refusal(exc, path, "cannot open the judge cache") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise JudgeCacheError(
                    f"cache schema version {version}, this harness reads {SCHEMA_VERSION}",
                    path=path,
                    field="user_version",
                )
        except sqlite3.Error as exc:
            self._db.close()
            raise _refusal(exc, path, "not a judge cache") from None
        except BaseException:
            self._db.close()
            raise

    def get(self, key: str) -> CachedVerdict | None:
        with self._lock:
            row = self._db.execute(
                "SELECT passed, reason, prompt_tokens, completion_tokens, cached_tokens, cost_usd"
                " FROM verdicts WHERE key = ?",
                (key,),
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        passed, reason, prompt_tokens, completion_tokens, cached_tokens, cost = row
        usage = (
            None
            if prompt_tokens is None
            else Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens or 0,
                cached_tokens=cached_tokens or 0,
            )
        )
        return CachedVerdict(passed=bool(passed), reason=reason, usage=usage, cost_usd=cost)

    def put(
        self,
        key: str,
        *,
        passed: bool,
        reason: str,
        model: str,
        temperature: float,
        usage: Usage | None,
        cost_usd: float | None,
    ) -> None:
        row = (
            key,
            int(passed),
            reason,
            model,
            float(temperature),
            None if usage is None else usage.prompt_tokens,
            None if usage is None else usage.completion_tokens,
            None if usage is None else usage.cached_tokens,
            cost_usd,
            iso_z(utc_now()),
        )
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO verdicts (key, passed, reason, model, temperature,"
                    " prompt_tokens, completion_tokens, cached_tokens, cost_usd, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.Error as exc:  # a full disk was a sqlite3 traceback
                raise _refusal(exc, self.path, "cannot write to the judge cache") from None

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["SCHEMA_VERSION", "CachedVerdict", "JudgeCache", "cache_key"]
