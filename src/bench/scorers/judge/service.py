"""The judge a run is given: a judge file, its cache and its calibration, as one object the
``judge`` scorer reads from the scoring context (it satisfies ``base.JudgeService``).

    with open_judge(Path("judge.yaml")) as service:
        score = score_attempt(task, trace, known, judge=service)

``decide`` may make an HTTP request; call it from a worker thread, not on an event loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .cache import JudgeCache
from .calibration import Trust, assess, default_cache_path, default_calibration_path
from .client import Judge, JudgeDecision
from .config import JudgeConfig, load_judge_config


class RunJudge:
    """A configured, cached judge and whether its verdicts may count."""

    def __init__(self, judge: Judge, trust: Trust) -> None:
        self.judge = judge
        self.trust = trust

    @property
    def config(self) -> JudgeConfig:
        return self.judge.config

    @property
    def trusted(self) -> bool:
        return self.trust.trusted

    @property
    def trust_note(self) -> str:
        return self.trust.note

    def decide(self, rubric: str, question: str, answer: str) -> JudgeDecision:
        return self.judge.decide(rubric, question, answer)

    def describe(self) -> dict[str, Any]:
        """What a run record should say about its judge (JSON-ready; no key, no URL)."""
        report = self.trust.report
        return {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "fingerprint": self.config.fingerprint(),
            "trusted": self.trusted,
            "trust_note": self.trust_note,
            "calibration": None
            if report is None
            else {"kappa": report.kappa, "n": report.n, "created_at": report.created_at},
        }

    def usage(self) -> dict[str, Any]:
        """Requests made, cache hits and misses, outages, replies without a verdict asked again
        (``retries``) and counted as FAIL (``no_verdicts``), and dollars spent so far."""
        cache = self.judge.cache
        return {
            "requests": self.judge.requests,
            "cache_hits": cache.hits,
            "cache_misses": cache.misses,
            "outages": self.judge.outages,
            "retries": self.judge.retries,
            "no_verdicts": self.judge.no_verdicts,
            "cost_usd": self.judge.spent_usd,
        }

    def close(self) -> None:
        self.judge.cache.close()

    def __enter__(self) -> RunJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_judge(
    judge_file: Path,
    *,
    cache_path: Path | None = None,
    calibration_path: Path | None = None,
) -> RunJudge:
    """Load ``judge_file``, open its cache (default ``<stem>.cache.sqlite3`` beside it) and read
    its calibration (default ``<stem>.calibration.json`` beside it).

    Raises ``JudgeConfigError`` / ``JudgeKeyMissing`` / ``JudgeCacheError`` (input errors, exit
    3) before anything runs. A missing, stale or failing calibration is not an error: the judge
    is then untrusted and its verdicts are reported and excluded."""
    config = load_judge_config(judge_file)
    api_key = config.api_key()
    trust = assess(config, calibration_path or default_calibration_path(judge_file))
    cache = JudgeCache(cache_path or default_cache_path(judge_file))
    try:
        return RunJudge(Judge(config, cache, api_key=api_key), trust)
    except BaseException:
        cache.close()
        raise


__all__ = ["RunJudge", "open_judge"]
