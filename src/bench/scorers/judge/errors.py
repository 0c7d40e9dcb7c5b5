"""The judge's errors: a bad judge file, a bad label file, a missing key, a cache that will not
open, and an outage (which the ``judge`` scorer turns into an undecided verdict, never a fail).

None of them ever carries the API key: messages name the environment variable, never its value.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.errors import HarnessFault, InputError


class JudgeConfigError(InputError):
    """A judge file (``judge.yaml``) is malformed: names the file and the field."""

    default_code = "JUDGE_CONFIG_INVALID"


class JudgeLabelsError(InputError):
    """A hand-label file (``labels.jsonl``) is malformed: names the file and the line."""

    default_code = "JUDGE_LABELS_INVALID"


class JudgeCalibrationError(InputError):
    """A calibration file is not a calibration report (``bench judge status`` reports it)."""

    default_code = "JUDGE_CALIBRATION_INVALID"


class JudgeKeyMissing(InputError):
    """``api_key_env`` names an environment variable that is not set (or is empty)."""

    default_code = "JUDGE_API_KEY_MISSING"


class JudgeCacheError(InputError):
    """The verdict cache file cannot be opened as a judge cache."""

    default_code = "JUDGE_CACHE_INVALID"


class JudgeUnavailable(HarnessFault):
    """The judge could not decide: an HTTP error status, a timeout, a connection error or a
    body that is not a chat completion. Never cached; the scorer reports it undecided. (A chat
    completion without a verdict is not this: it is asked again, then counted as FAIL.)"""

    default_code = "JUDGE_UNAVAILABLE"

    def __init__(
        self, reason: str, *, path: str | Path | None = None, status: int | None = None
    ) -> None:
        self.reason = reason
        self.status = status
        """The HTTP status the judge's server replied with; None for any other outage."""
        super().__init__(reason, path=path)


__all__ = [
    "JudgeCacheError",
    "JudgeCalibrationError",
    "JudgeConfigError",
    "JudgeKeyMissing",
    "JudgeLabelsError",
    "JudgeUnavailable",
]
