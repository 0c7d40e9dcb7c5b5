"""The one exception the verifier's checks raise: a code, the file, the field, one sentence."""

from __future__ import annotations

from bench.core.errors import BenchError

from .codes import Code, exit_code


class VerifyFailure(BenchError):
    def __init__(self, code: Code, message: str, *, path: str, field: str | None = None) -> None:
        super().__init__(message, code=code.value, path=path, field=field)
        self.verify_code = code
        self.exit_code = exit_code(code)


__all__ = ["VerifyFailure"]
