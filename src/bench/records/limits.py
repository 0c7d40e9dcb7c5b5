"""What a bundle may hold: ``bench verify`` refuses more (``LIMIT_SIZE``, ``LIMIT_FILES``) and
``bench bundle`` refuses to write more (``BUNDLE_TOO_LARGE``); ``bench run`` warns early when a
run will not fit (``runner.size``). Plain numbers, apart from ``records.bundle``'s models, so a
run reads them without building the manifest's pydantic classes (docs/PERFORMANCE.md, issue 19).

A 172-task x 5-repeat run of the example bot: config 8 KB, status and target under 1 KB, 860
attempt lines (5 MB inflated, 32x its gzip, longest line 14 KB), 1,325 cassette lines (2.4 MB,
longest 4 KB).
"""

from __future__ import annotations

MAX_FILES = 16
MAX_FILE_BYTES = 64 * 1024 * 1024  # any file, and attempts.jsonl.gz once inflated
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_MANIFEST_BYTES = 1024 * 1024
MAX_RECORD_BYTES = 4 * 1024 * 1024  # config.json, status.json, target.json each
MAX_LINE_BYTES = 16 * 1024 * 1024  # one attempt or cassette line
MAX_ATTEMPT_LINES = 100_000  # and never more than the config's tasks x repeats
MAX_CASSETTE_LINES = 250_000  # and never more than the model calls the attempts record
MAX_GZIP_RATIO = 256  # inflated bytes per compressed byte of attempts.jsonl.gz
GZIP_RATIO_FLOOR = 64 * 1024  # a smaller gzip may still inflate to 256 x 64 KiB (16 MiB)

__all__ = [
    "GZIP_RATIO_FLOOR",
    "MAX_ATTEMPT_LINES",
    "MAX_CASSETTE_LINES",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_RECORD_BYTES",
    "MAX_TOTAL_BYTES",
]
