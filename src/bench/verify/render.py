"""A verdict as text, JSON, or the Markdown of a pull-request comment.

Everything that came from the bundle (paths, fields, messages quoting its content) is
contributor text: in Markdown it goes inside an inline code span with backticks, pipes and
control characters neutralised, so it cannot open links, mention people or break the table.

A ``LiveVerdict`` (``bench verify --live``) renders as its offline verdict plus the live check:
n, passes, claimed and live rates, the test, its p-value, alpha and the decision.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .live import LiveCheck, LiveVerdict
from .verifier import BundleVerdict

_MAX = 300


def _lone(ch: str) -> bool:
    """A lone surrogate (a file name's undecodable byte): it cannot be printed as UTF-8."""
    return "\ud800" <= ch <= "\udfff"


def _plain(text: str) -> str:
    """One line, no control or bidi/format characters, bounded length."""
    kept = "".join(
        " "
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
        else "\ufffd"
        if _lone(ch)
        else ch
        for ch in text
    )
    return kept[:_MAX] + ("…" if len(kept) > _MAX else "")


def md_code(text: str | None) -> str:
    """Contributor text as an inline code span that no Markdown can escape from."""
    if not text:
        return "—"
    clean = re.sub(r"[`|<>@\\]", "·", _plain(text))
    return f"`{clean}`"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def live_dict(check: LiveCheck) -> dict[str, Any]:
    return {
        "decision": check.decision,
        "reason": check.reason,
        "test": check.test,
        "n": check.n,
        "repeats": check.repeats,
        "sampled": list(check.sampled),
        "excluded": list(check.excluded),
        "claimed_passes": check.claimed_passes,
        "live_passes": check.live_passes,
        "claimed_rate": check.claimed_rate,
        "live_rate": check.live_rate,
        "live_better": check.live_better,
        "live_worse": check.live_worse,
        "p_value": check.p_value,
        "p_value_errors_as_failures": check.p_value_errors_as_failures,
        "alpha": check.alpha,
        "endpoint": check.endpoint,
        "endpoint_id": check.endpoint_id,
        "model": check.model,
        "requests": check.requests,
    }


def live_text(check: LiveCheck) -> str:
    attempts = check.n * check.repeats
    where = (
        f"endpoint {_plain(check.endpoint)} ({check.endpoint_id}), model {_plain(check.model)}, "
        f"{check.requests} model call(s)"
    )
    if check.n == 0:
        return f"live: {check.decision} — {_plain(check.reason)}; {where}"
    text = (
        f"live: {check.decision} — {check.test}: n = {check.n} task(s) × {check.repeats} "
        f"repeat(s); claimed {check.claimed_passes}/{attempts} ({_rate(check.claimed_rate)}), "
        f"live {check.live_passes}/{attempts} ({_rate(check.live_rate)}); live better on "
        f"{check.live_better}, worse on {check.live_worse}; p = {_p(check.p_value)}, "
        f"alpha = {check.alpha:g}"
    )
    if check.excluded:
        text += (
            f"; {len(check.excluded)} of {len(check.sampled)} sampled task(s) errored live "
            f"(p = {_p(check.p_value_errors_as_failures)} counting them as failures)"
        )
    return f"{text}; {where}"


def _live_rows(check: LiveCheck) -> list[tuple[str, str]]:
    attempts = check.n * check.repeats
    return [
        ("live decision", f"**{check.decision}**"),
        ("live test", check.test),
        ("tasks compared (n)", f"{check.n} of {len(check.sampled)} sampled, × {check.repeats}"),
        ("claimed passes", f"{check.claimed_passes}/{attempts} ({_rate(check.claimed_rate)})"),
        ("live passes", f"{check.live_passes}/{attempts} ({_rate(check.live_rate)})"),
        ("p-value", f"{_p(check.p_value)} (alpha {check.alpha:g})"),
        ("live endpoint", f"{md_code(check.endpoint)} {md_code(check.model)}"),
        ("live reason", md_code(check.reason)),
    ]


def as_dict(verdict: BundleVerdict | LiveVerdict) -> dict[str, Any]:
    if isinstance(verdict, LiveVerdict):
        live = live_dict(verdict.live) if verdict.live is not None else None
        return {**as_dict(verdict.verdict), "live": live}
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
        "replay_applies": verdict.replay_applies,
        "partial": verdict.partial,
        "sample_basis": verdict.sample_basis,
        "suite": verdict.suite,
        "exit_code": verdict.exit_code,
    }


def render_json(verdict: BundleVerdict | LiveVerdict) -> str:
    return json.dumps(as_dict(verdict), indent=2, sort_keys=True)


NO_REPLAY = "not applicable (an agent's turns are all re-driven by the binding check)"


def render_text(verdict: BundleVerdict | LiveVerdict) -> str:
    if isinstance(verdict, LiveVerdict):
        head = render_text(verdict.verdict)
        return head if verdict.live is None else f"{head}\n{live_text(verdict.live)}"
    if verdict.valid:
        extra = " (partial run)" if verdict.partial else ""
        suite = f" (suite {_plain(verdict.suite)})" if verdict.suite else ""
        replay = f"replayed {len(verdict.replayed)} attempt(s)" + (
            f", sample from {verdict.sample_basis}" if verdict.sample_basis else ""
        )
        if not verdict.replay_applies:
            replay = f"replay: {NO_REPLAY}"
        return (
            f"valid{extra}: {_plain(verdict.bundle)}{suite} — {', '.join(verdict.checks)}; "
            + replay
        )
    where = ": ".join(_plain(p) for p in (verdict.path, verdict.field) if p)
    code = verdict.code.value if verdict.code else ""
    return f"error[{code}]: {where}: {_plain(verdict.message)}"


def render_markdown(verdict: BundleVerdict | LiveVerdict) -> str:
    check = verdict.live if isinstance(verdict, LiveVerdict) else None
    if isinstance(verdict, LiveVerdict):
        verdict = verdict.verdict
    head = "✅ **Bundle valid**" if verdict.valid else "❌ **Bundle refused**"
    rows = [
        ("bundle", md_code(verdict.bundle)),
        ("entrant", md_code(verdict.entrant)),
        ("run", md_code(verdict.run_id)),
        ("suite", md_code(verdict.suite)),
    ]
    if not verdict.valid and verdict.code is not None:
        rows += [
            ("code", f"`{verdict.code.value}` (see docs/VERIFY-ERRORS.md)"),
            ("file", md_code(verdict.path)),
            ("field", md_code(verdict.field)),
            ("reason", md_code(verdict.message)),
        ]
    else:
        if not verdict.replay_applies:
            rows.append(("replay", NO_REPLAY))
        else:
            rows.append(("replayed", str(len(verdict.replayed))))
            if verdict.sample_basis:
                rows.append(("sample from", md_code(verdict.sample_basis)))
    if check is not None:
        rows += _live_rows(check)
    passed = ", ".join(verdict.checks) or "none"
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    return f"{head}\n\n| | |\n|---|---|\n{table}\n\nChecks passed: {passed}.\n"


def render(verdict: BundleVerdict | LiveVerdict, fmt: str) -> str:
    if fmt == "json":
        return render_json(verdict)
    if fmt == "markdown":
        return render_markdown(verdict)
    return render_text(verdict)


__all__ = [
    "as_dict",
    "live_dict",
    "live_text",
    "md_code",
    "render",
    "render_json",
    "render_markdown",
    "render_text",
]
