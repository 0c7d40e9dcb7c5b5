"""The run summary's "errored N × WHY" lines: a reason with a code names it and its text; a
reason with no ``CODE: `` prefix (an attempt timeout's) is printed whole, with no dangling
colon."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bench.cli.run_cmd import _error_lines


def _record(reason: str) -> Any:
    return SimpleNamespace(outcome="errored", reason=reason)


def test_a_reason_without_a_code_has_no_dangling_colon() -> None:
    lines = _error_lines([_record("no final answer within 2s (attempt timeout)")] * 2)
    assert lines == ["  errored 2 × no final answer within 2s (attempt timeout)"]


def test_a_coded_reason_keeps_its_code_and_text() -> None:
    lines = _error_lines([_record("ENDPOINT_UNREACHABLE: connection refused")])
    assert lines == ["  errored 1 × ENDPOINT_UNREACHABLE: connection refused"]
