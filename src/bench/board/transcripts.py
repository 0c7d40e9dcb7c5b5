"""Stage 4: the transcripts a reader opens from a failed task, written beside the page.

``transcript.html`` is one self-contained viewer (``transcript.html.j2``, ``transcript.js``,
``transcript.css``); each row with a failed task that is not private gets one data file,
``transcripts/<key>.jsonl.gz``: one attempt record (``AttemptRecord``) per line, gzip. The
key is a hash of the row's source and path (:func:`data_key`), never a string a submitter
chose. The page links a failed task to ``transcript.html#<key>/<task id>``; the viewer
fetches the file, inflates it with ``DecompressionStream`` and shows that task's attempts.

For a bundle the file is a byte copy of its ``attempts.jsonl.gz``: the bytes verify checked
(their SHA-256 is compared with the manifest's again here, so a bundle changed since it was
verified, or since a cached build verified it, is refused), and a copy costs a rebuild from
the cache next to nothing. For a run directory it is the failed tasks' attempt files, one
record a line. See docs/DECISIONS.md ("Transcripts on the site").
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench.core.diskerror import raise_if_disk
from bench.core.errors import BenchError

from .errors import BoardInputError
from .model import Board, EntryRow

VIEWER = "transcript.html"
DATA_DIR = "transcripts"


def data_key(source: str, source_path: str) -> str:
    """The row's data file name: 24 hex digits of a hash of where the row was read from."""
    digest = hashlib.sha256(f"bench-board-transcripts/1\0{source}\0{source_path}".encode())
    return digest.hexdigest()[:24]


def data_path(key: str) -> str:
    return f"{DATA_DIR}/{key}.jsonl.gz"


@dataclass(frozen=True)
class Sources:
    """Where the build read its rows: ``--runs`` and ``--results`` (None: not read). A row
    read by another loader (``bench report``'s single run) is in neither: it gets no viewer."""

    runs: Path | None
    results: Path | None

    def locate(self, row: EntryRow) -> Path | None:
        root = self.results if row.source == "bundle" else self.runs
        if root is None:
            return None
        parts = row.source_path.split("/")
        depth = 3 if row.source == "bundle" else 2
        if len(parts) != depth or parts[0] != root.name or any(p in ("", ".", "..") for p in parts):
            return None
        found = root.joinpath(*parts[1:])
        return found if found.is_dir() else None


def _wanted(row: EntryRow) -> list[str]:
    return [f.task_id for f in row.failed if not f.private]


def bundle_data(bundle: Path, verified: bool) -> bytes:
    """The bundle's ``attempts.jsonl.gz``; of a ``verified`` bundle, checked against its
    manifest's SHA-256 and size (one that did not verify, or was not verified, is on the board
    with a warning, and its file is copied as the build read it: the viewer trusts no file)."""
    from bench.records.bundle import ATTEMPTS
    from bench.verify.codes import Code
    from bench.verify.failure import VerifyFailure
    from bench.verify.layout import MAX_FILE_BYTES
    from bench.verify.records import open_regular

    where = bundle / ATTEMPTS
    try:
        with open_regular(where, MAX_FILE_BYTES) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise VerifyFailure(
                Code.LIMIT_SIZE, f"larger than {MAX_FILE_BYTES} bytes", path=str(where)
            )
        if not verified:
            # read again as verify reads it (the board's row was read once, but the file may
            # have changed since, or the row came from --cache): the viewer inflates what is
            # copied, so it is held to verify's limits (a "gzip bomb" is refused here)
            _within_limits(data, str(where))
    except VerifyFailure as exc:
        raise BoardInputError(f"{exc.code}: {exc.message}", path=where) from None
    except OSError as exc:
        raise_if_disk(exc, where)  # the disk, not the bundle: IO_ERROR
        raise BoardInputError(f"cannot be read: {exc.strerror}", path=where) from None
    if not verified:
        return data
    try:
        manifest = json.loads((bundle / "manifest.json").read_bytes())
        listed = {f["path"]: f for f in manifest["files"]}[ATTEMPTS]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BoardInputError(
            f"cannot read the manifest's entry for {ATTEMPTS}: {exc}",
            path=bundle / "manifest.json",
        ) from None
    if len(data) != listed.get("size") or hashlib.sha256(data).hexdigest() != listed.get("sha256"):
        raise BoardInputError(
            "not the bytes its manifest lists, yet the row is verified: the bundle changed "
            "after it was verified (build again), or a --cache entry is not this bundle's",
            path=where,
        )
    return data


def _within_limits(data: bytes, where: str) -> None:
    """``data`` (an ``attempts.jsonl.gz``) inflates within verify's limits: at most
    ``MAX_FILE_BYTES`` and ``MAX_GZIP_RATIO`` times its size, ``MAX_ATTEMPT_LINES`` lines of
    at most ``MAX_LINE_BYTES`` each (``VerifyFailure`` otherwise)."""
    import io

    from bench.verify.layout import (
        GZIP_RATIO_FLOOR,
        MAX_ATTEMPT_LINES,
        MAX_FILE_BYTES,
        MAX_GZIP_RATIO,
    )
    from bench.verify.records import count_lines, gzip_chunks

    limit = min(MAX_FILE_BYTES, MAX_GZIP_RATIO * max(len(data), GZIP_RATIO_FLOOR))
    count_lines(gzip_chunks(io.BytesIO(data), where, limit), where, MAX_ATTEMPT_LINES, "attempts")


def run_data(run: Path, tasks: Iterable[str], repeats: int) -> bytes:
    """The run's attempts of ``tasks``, every repeat it recorded, one record a line, gzip
    (no time stamp: the same run gives the same bytes)."""
    from bench.records.run import attempt_filename
    from bench.records.store import RunDir

    store = RunDir(run)
    lines = []
    try:
        for task in tasks:
            for k in range(repeats):
                if (run / "attempts" / attempt_filename(task, k)).is_file():
                    lines.append(store.attempt(task, k).model_dump_json())
    except BenchError as exc:
        raise BoardInputError(exc.message, path=exc.path, field=exc.field) from None
    return gzip.compress("".join(line + "\n" for line in lines).encode(), mtime=0)


def transcript_files(
    boards: list[tuple[str, Board]], sources: Sources
) -> tuple[list[tuple[str, Board]], dict[str, bytes]]:
    """Each board with ``transcripts`` set on every row that has a data file, and the files
    (``transcripts/<key>.jsonl.gz``), each written once however many pages show its row."""
    files: dict[str, bytes] = {}
    keyed: dict[tuple[str, str], str | None] = {}
    out = []
    for stem, board in boards:
        cohorts = []
        for cohort in board.cohorts:
            rows = []
            for row in cohort.entries:
                ident = (row.source, row.source_path)
                if ident not in keyed:
                    keyed[ident] = _write(row, sources, files)
                rows.append(row.model_copy(update={"transcripts": keyed[ident]}))
            cohorts.append(cohort.model_copy(update={"entries": rows}))
        out.append((stem, board.model_copy(update={"cohorts": cohorts})))
    return out, files


def _write(row: EntryRow, sources: Sources, files: dict[str, bytes]) -> str | None:
    wanted = _wanted(row)
    where = sources.locate(row) if wanted else None
    if where is None:
        return None
    key = data_key(row.source, row.source_path)
    if row.source == "bundle":
        files[data_path(key)] = bundle_data(where, row.verified)
    else:
        repeats = row.config.get("repeats")
        files[data_path(key)] = run_data(where, wanted, repeats if isinstance(repeats, int) else 1)
    return key


def viewer_page(templates: Path | None) -> bytes:
    """``transcript.html``: the viewer, its script and style inline and hashed in its CSP."""
    from .page import content_security_policy, read_asset, render_template

    css = read_asset(templates, "transcript.css")
    script = read_asset(templates, "transcript.js")
    csp = content_security_policy([script], [css], connect="'self'")
    text = render_template(
        "transcript.html.j2", templates, csp=csp, css=css, script=script, data_dir=DATA_DIR
    )
    return text.encode("utf-8")


__all__ = [
    "DATA_DIR",
    "VIEWER",
    "Sources",
    "bundle_data",
    "data_key",
    "data_path",
    "run_data",
    "transcript_files",
    "viewer_page",
]
