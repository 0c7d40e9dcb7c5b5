"""Entrants: the request/response protocol, target files, and the scripted and cassette kinds."""

from .base import ModelRequest, ModelResponse, Pricing, Target, TargetKind, TargetSpec
from .cassette import CASSETTE_FILE, CassetteTarget, current_attempt, read_cassette
from .load import build_target, load_target, read_target_spec
from .scripted import ScriptedTarget, resolve_callable

__all__ = [
    "CASSETTE_FILE",
    "CassetteTarget",
    "ModelRequest",
    "ModelResponse",
    "Pricing",
    "ScriptedTarget",
    "Target",
    "TargetKind",
    "TargetSpec",
    "build_target",
    "current_attempt",
    "load_target",
    "read_cassette",
    "read_target_spec",
    "resolve_callable",
]
