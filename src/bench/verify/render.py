"""A verdict as text, JSON, or the Markdown of a pull-request comment.

Everything that came from the bundle (paths, fields, messages quoting its content) is
contributor text: in Markdown it goes inside an inline code span with backticks, pipes and
control characters neutralised, so it cannot open links, mention people or break the table.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .verifier import BundleVerdict

_MAX = 300


def _plain(text: str) -> str:
    """One line, no control or bidi/format characters, bounded length."""
    kept = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text
    )
    return kept[:_MAX] + ("…" if len(kept) > _MAX else "")


def md_code(text: str | None) -> str:
    """Contributor text as an inline code span that no Markdown can escape from."""
    if not text:
        return "—"
    clean = re.sub(r"[`|<>@\\]", "·", _plain(text))
    return f"`{clean}`"


def as_dict(verdict: BundleVerdict) -> dict[str, Any]:
    return {
        "bundle": verdict.bundle,
        "valid": verdict.valid,
        "code": verdict.code.value if verdict.code else None,
        "path": verdict.path,
        "field": verdict.field,
        "message": verdict.message,
        "entrant": verdict.entrant,
        "run_id": verdict.run_id,
        "checks": list(verdict.checks),
        "replayed": list(verdict.replayed),
        "partial": verdict.partial,
        "exit_code": verdict.exit_code,
    }


def render_json(verdict: BundleVerdict) -> str:
    return json.dumps(as_dict(verdict), indent=2, sort_keys=True)


def render_text(verdict: BundleVerdict) -> str:
    if verdict.valid:
        extra = " (partial run)" if verdict.partial else ""
        return (
            f"valid{extra}: {_plain(verdict.bundle)} — {', '.join(verdict.checks)}; "
            f"replayed {len(verdict.replayed)} attempt(s)"
        )
    where = ": ".join(_plain(p) for p in (verdict.path, verdict.field) if p)
    code = verdict.code.value if verdict.code else ""
    return f"error[{code}]: {where}: {_plain(verdict.message)}"


def render_markdown(verdict: BundleVerdict) -> str:
    head = "✅ **Bundle valid**" if verdict.valid else "❌ **Bundle refused**"
    rows = [
        ("bundle", md_code(verdict.bundle)),
        ("entrant", md_code(verdict.entrant)),
        ("run", md_code(verdict.run_id)),
    ]
    if not verdict.valid and verdict.code is not None:
        rows += [
            ("code", f"`{verdict.code.value}` (see docs/VERIFY-ERRORS.md)"),
            ("file", md_code(verdict.path)),
            ("field", md_code(verdict.field)),
            ("reason", md_code(verdict.message)),
        ]
    else:
        rows.append(("replayed", str(len(verdict.replayed))))
    passed = ", ".join(verdict.checks) or "none"
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    return f"{head}\n\n| | |\n|---|---|\n{table}\n\nChecks passed: {passed}.\n"


def render(verdict: BundleVerdict, fmt: str) -> str:
    if fmt == "json":
        return render_json(verdict)
    if fmt == "markdown":
        return render_markdown(verdict)
    return render_text(verdict)


__all__ = ["as_dict", "md_code", "render", "render_json", "render_markdown", "render_text"]
