"""What config.json says the inference server declared (``server``), held to what ``bench run``
records there.

``bench run`` probes the server behind an ``openai`` or ``anthropic`` target before its first
attempt (``bench.targets.probe.server_identity``) and records what it declared: a
``ServerIdentity`` of exactly four fields, its engine one of the names the probe gives (or
``unknown``), its version and quantisation text as the probe keeps it (at most 80 characters,
stripped, nothing the board cannot draw), its context window a whole number. A replay
(``cassette``) keeps its original's. No other kind is probed, so no other run records one.

The board shows ``server`` twice on a row's card: as its engine ("vllm 0.9.2, context window
131072, quantisation FP8") and verbatim, every key and string, in the card's config block.
It is in the config fingerprint (so a row's key) and nothing re-derives it: without this, a
scripted agent's row could name an inference server it never ran on, any run could name an
engine no server declares ("OpenAI (official API)"), carry free text of its own in the card
("reproduced_by": "the maintainers"), or a bidirectional control that draws the block as
other words. What a probed server declared stays the word of its endpoint, which is the
entrant's (docs/LIMITS.md): this holds the record to the shape and text the probe writes.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.core.text import FORBIDDEN_CATEGORIES
from bench.records.bundle import CONFIG
from bench.targets.declared import MAX_DECLARED
from bench.targets.probe import IDENTIFIED_KINDS, KEYWORDS, METRIC_PREFIXES, ServerIdentity

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun

PROBED_KINDS = frozenset({*IDENTIFIED_KINDS, "cassette"})
"""The kinds whose runs record a server: those the probe asks, and a replay of one of them."""
ENGINES = frozenset({engine for _, engine in (*KEYWORDS, *METRIC_PREFIXES)} | {"unknown"})
"""Every engine name the probe gives (``probe.identify``); ``unknown`` when none declared."""
_TEXT_FIELDS = ("version", "quantisation")


def _fail(bundle: Path, code: Code, field: str, message: str) -> VerifyFailure:
    return VerifyFailure(code, message, path=str(bundle / CONFIG), field=field)


def _char(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def _text_problem(value: str) -> str | None:
    """Why ``value`` is not declared text as the probe keeps it (``declared._text``)."""
    if not value or value != value.strip():
        return "is empty or not stripped"
    if len(value) > MAX_DECLARED:
        return f"is longer than the {MAX_DECLARED} characters the probe keeps"
    return None


def check_server(bundle: Path, run: BundleRun) -> None:
    """Refuse a ``server`` that ``bench run`` would not have recorded for this run:
    ``RECORD_INCONSISTENT`` on a kind that is never probed, ``RECORD_INVALID`` for another
    shape (keys, types, an engine the probe never names, text the probe never keeps),
    ``TEXT_INVALID`` for a character the board cannot draw as it is."""
    server: Any = run.config.server
    if server is None:
        return
    kind = run.config.target_kind
    if kind not in PROBED_KINDS:
        raise _fail(
            bundle,
            Code.RECORD_INCONSISTENT,
            "server",
            f"a {kind} target is never probed, so bench run records no server for it; the "
            "board would name an engine the run never ran on",
        )
    try:
        identity = ServerIdentity.model_validate(server, strict=True)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise _fail(
            bundle,
            Code.RECORD_INVALID,
            f"server.{where}" if where else "server",
            f"is not what the probe records (engine, version, context_window, quantisation): "
            f"{error['msg']}",
        ) from None
    if identity.model_dump(mode="json") != server:
        raise _fail(
            bundle,
            Code.RECORD_INVALID,
            "server",
            "is not what the probe records: exactly engine, version, context_window and "
            "quantisation, each present",
        )
    for name in _TEXT_FIELDS:
        value = getattr(identity, name)
        if value is None:
            continue
        bad = next((ch for ch in value if unicodedata.category(ch) in FORBIDDEN_CATEGORIES), None)
        if bad is not None:
            raise _fail(
                bundle,
                Code.TEXT_INVALID,
                f"server.{name}",
                f"a setting the board shows contains a control or format character "
                f"({_char(bad)}), which the probe never keeps",
            )
        problem = _text_problem(value)
        if problem is not None:
            raise _fail(bundle, Code.RECORD_INVALID, f"server.{name}", problem)
    if identity.engine not in ENGINES:
        raise _fail(
            bundle,
            Code.RECORD_INVALID,
            "server.engine",
            f"'{identity.engine[:60]}' is no engine the probe names (one of "
            f"{', '.join(sorted(ENGINES))}); the card shows it as the row's engine",
        )
    if identity.context_window is not None and identity.context_window <= 0:
        raise _fail(
            bundle,
            Code.RECORD_INVALID,
            "server.context_window",
            "is not a positive whole number, which is all the probe records",
        )


__all__ = ["ENGINES", "PROBED_KINDS", "check_server"]
