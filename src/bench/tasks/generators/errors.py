"""The generator's refusals: one ``InputError`` subclass, one stable code per kind of bad datum.

Every refusal names the data file and the line of the datum (``facts.yaml: line 12
(shipping-cutoff): ...``), so the fix is one edit away.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.errors import InputError

GENERATOR_CODES: dict[str, str] = {
    "GEN_DATA_INVALID": "a datum is malformed: a missing or ill-typed field, no 'because'",
    "GEN_DUPLICATE_ID": "two data share an id, or two generated tasks would share an id",
    "GEN_PASSAGE_MISSING": "a datum names a passage id the corpus does not have",
    "GEN_PHRASE_NOT_IN_PASSAGE": "a must-include phrase is not in the passage it is attributed to",
    "GEN_WORLD_UNKNOWN": "a datum names a tool world that is not defined",
    "GEN_TOOL_NOT_IN_WORLD": "an expectation or call names a tool its world does not have",
    "GEN_CALL_NOT_IN_TRANSCRIPT": "an applied call is not in the transcript it claims",
    "GEN_VALUE_NOT_IN_DOCUMENT": "an extraction value does not appear in the rendered invoice",
}


class GeneratorError(InputError):
    """Bad generator data; ``code`` is one of ``GENERATOR_CODES``."""

    default_code = "GEN_DATA_INVALID"

    def __init__(
        self,
        message: str,
        *,
        code: str,
        path: str | Path | None = None,
        line: int | None = None,
        datum: str | None = None,
    ) -> None:
        where = None
        if line is not None:
            where = f"line {line}" + (f" ({datum})" if datum else "")
        elif datum:
            where = datum
        super().__init__(message, code=code, path=path, field=where)
        self.line = line
        self.datum = datum


__all__ = ["GENERATOR_CODES", "GeneratorError"]
