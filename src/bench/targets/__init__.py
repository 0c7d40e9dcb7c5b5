"""Entrants: the request/response protocol, target files, and the scripted, cassette, openai and
anthropic kinds."""

from .anthropic import AnthropicTarget
from .base import (
    HTTP_KINDS,
    ModelRequest,
    ModelResponse,
    Pricing,
    RetrySettings,
    Target,
    TargetKind,
    TargetSpec,
    Timeouts,
    endpoint_id,
    redact_url,
)
from .cassette import CASSETTE_FILE, CassetteTarget, current_attempt, read_cassette
from .config import read_dotenv, resolve_spec
from .http import backoff_delay, parse_retry_after
from .load import build_target, load_target, read_target_spec
from .openai import OpenAITarget
from .probe import DEFAULT_PORTS, ProbeReport, probe, scan
from .scripted import ScriptedTarget, resolve_callable

__all__ = [
    "CASSETTE_FILE",
    "DEFAULT_PORTS",
    "HTTP_KINDS",
    "AnthropicTarget",
    "CassetteTarget",
    "ModelRequest",
    "ModelResponse",
    "OpenAITarget",
    "Pricing",
    "ProbeReport",
    "RetrySettings",
    "ScriptedTarget",
    "Target",
    "TargetKind",
    "TargetSpec",
    "Timeouts",
    "backoff_delay",
    "build_target",
    "current_attempt",
    "endpoint_id",
    "load_target",
    "parse_retry_after",
    "probe",
    "read_cassette",
    "read_dotenv",
    "read_target_spec",
    "redact_url",
    "resolve_callable",
    "resolve_spec",
    "scan",
]
