"""The LLM judge: its config, client, cache and calibration, and the ``judge`` scorer.

Importing this package registers the ``judge`` scorer and nothing heavier: the client (httpx)
and the calibration load only when asked for, from their modules:

* ``config``: ``JudgeConfig``, ``load_judge_config``, the prompt and ``parse_verdict``;
* ``client``: ``Judge`` (``decide`` with the cache), ``JudgeClient``, ``JudgeDecision``;
* ``cache``: ``JudgeCache`` and ``cache_key``;
* ``calibration``: ``calibrate``, ``CalibrationReport``, ``assess`` and the floor;
* ``service``: ``open_judge``, the object a run hands ``score_attempt(..., judge=...)``;
* ``guard``: ``check_answer``, which fails an answer that speaks to its grader before any judge
  is asked;
* ``errors``: the error classes and their codes.

See docs/JUDGE.md.
"""

from .scorer import score_judge

__all__ = ["score_judge"]
