"""Scoring: one check per expectation type, and the rule that folds them into an attempt score.

Importing this package registers every scorer module (one module per thing a check reads:
``text`` the answer text, ``document`` the answer as JSON, ``citations`` the answer against the
corpus, ``refusal`` whether the answer declines, ``tools``, ``plans`` and ``calls`` the tool calls).
``registered_types()`` says which of the fourteen expectation types have a scorer; an
expectation of any other type is reported undecided, never scored as a zero.
"""

# Imported to register their scorers.
from . import calls, citations, document, judge, plans, refusal, text, tools  # noqa: F401
from .aggregate import AttemptScore, safety_violations, score_attempt
from .base import REGISTRY, Scorer, ScoringContext, register, registered_types

__all__ = [
    "REGISTRY",
    "AttemptScore",
    "Scorer",
    "ScoringContext",
    "register",
    "registered_types",
    "safety_violations",
    "score_attempt",
]
