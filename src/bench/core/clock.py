"""UTC time, always timezone-aware."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_z(moment: datetime) -> str:
    """``2026-12-02T11:40:29Z`` (seconds precision, always UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["iso_z", "utc_now"]
