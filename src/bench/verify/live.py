"""``bench verify --live``: the offline verdict first, then a seeded sample of public tasks
re-run against the entrant's allow-listed endpoint and compared with what the bundle claims.

Order (each step stops at its first failure, with a code from ``LIVE_CODES``):

1. the offline verification, unchanged; an invalid bundle is never re-run;
2. the allow-list loads (``LIVE_ALLOWLIST_INVALID``), lists the entrant
   (``LIVE_ENTRANT_NOT_LISTED``) and one of its endpoints has the bundle's kind, model and
   ``endpoint_id`` (``LIVE_ENDPOINT_NOT_ALLOWED``); the key's variable is set
   (``LIVE_KEY_MISSING``) — all before any network call;
3. the sample: ``--live-sample`` public tasks whose claimed attempts all decided, drawn with
   ``random.Random(seed)`` (``--seed``, else a fresh random seed the report names, never one
   derived from the bundle: a submitter must not know the sample in advance); re-run into a
   temp directory, removed after;
4. what the endpoint declares about itself (engine, version, context window, quantisation)
   is what the run recorded (``LIVE_SERVER_CHANGED``, exit 2), probed before any model call;
   not checked when the run recorded nothing or the endpoint declares nothing now;
5. the decision (``live_stats``): inconsistent (``LIVE_INCONSISTENT``, exit 1) when the exact
   sign-flip p-value is below alpha; could not re-run (``LIVE_RERUN_FAILED``, exit 2) when no
   task, or more than 25 % of them, re-ran without an error, or when the verdict would flip if
   the errored tasks counted as failures (errors can neither convict nor acquit).

Live messages name error *codes*, never an endpoint's error text, and the API key is scrubbed
from every message besides: the key must not reach a report or a log.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.core.errors import BenchError
from bench.records.bundle import CONFIG

from . import live_run, records, scores
from .codes import Code, exit_code
from .failure import VerifyFailure
from .live_allowlist import AllowedEndpoint, load_allowlist
from .live_decision import LiveCheck, decide, sample_tasks
from .verifier import BundleVerdict, VerifyOptions, verify_bundle

DEFAULT_SAMPLE = 30
DEFAULT_ALPHA = 0.01


@dataclass(frozen=True)
class LiveOptions:
    allowlist: Path
    sample: int = DEFAULT_SAMPLE
    alpha: float = DEFAULT_ALPHA


@dataclass(frozen=True)
class LiveVerdict:
    """The offline verdict with the live check's failure folded in, and the live check."""

    verdict: BundleVerdict
    live: LiveCheck | None

    @property
    def valid(self) -> bool:
        return self.verdict.valid

    @property
    def exit_code(self) -> int:
        return exit_code(self.verdict.code)


def _scrub(text: str, secret: str | None) -> str:
    return text.replace(secret, "[redacted]") if secret else text


def _where(live: LiveOptions, options: VerifyOptions) -> str:
    ref = options.base_ref
    return f"{ref}:{live.allowlist}" if ref is not None else str(live.allowlist)


def _endpoint(
    bundle: Path, entrant: str, run: records.BundleRun, live: LiveOptions, options: VerifyOptions
) -> tuple[AllowedEndpoint, int]:
    """The allow-listed endpoint the bundle names, and its index in the entrant's list."""
    allowlist = load_allowlist(live.allowlist, base_ref=options.base_ref, git_dir=options.git_dir)
    where = _where(live, options)
    entries = allowlist.entrants.get(entrant)
    if not entries:
        raise VerifyFailure(
            Code.LIVE_ENTRANT_NOT_LISTED,
            f"no endpoint is allowed for entrant '{entrant}'",
            path=where,
            field=f"entrants.{entrant}",
        )
    recorded = run.config.target
    kind, model, named = recorded.get("kind"), recorded.get("model"), recorded.get("endpoint_id")
    for index, entry in enumerate(entries):
        if (entry.kind, entry.model, entry.endpoint_id) == (kind, model, named):
            if not entry.same_headers(recorded.get("headers")):
                # The run reached the endpoint with other routing headers than the allow-list
                # sends (a gateway routes by them): a re-run would test another configuration.
                raise VerifyFailure(
                    Code.LIVE_ENDPOINT_NOT_ALLOWED,
                    f"the bundle ran {kind} {model} @ {named} with other headers than the "
                    f"allow-list sends (entrants.{entrant}[{index}].headers): the run's "
                    f"{_names(recorded.get('headers'))}; the allow-list's "
                    f"{_names(entry.headers)} (names; a value may differ)",
                    path=str(bundle / CONFIG),
                    field="target.headers",
                )
            return entry, index
    allowed = ", ".join(f"{e.kind} {e.model} @ {e.endpoint_id}" for e in entries)
    raise VerifyFailure(
        Code.LIVE_ENDPOINT_NOT_ALLOWED,
        f"the bundle ran {kind} {model} @ {named or 'no endpoint'}; "
        f"allowed for '{entrant}': {allowed}",
        path=str(bundle / CONFIG),
        field="target.endpoint_id",
    )


def _names(headers: object) -> str:
    """Headers said by name only, each cut short: a bundle's text is the submitter's."""
    if not isinstance(headers, dict) or not headers:
        return "none"
    names = sorted(ascii(str(name))[1:-1][:60].lower() for name in headers)
    return ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")


def _key(endpoint: AllowedEndpoint, where: str, field: str) -> str | None:
    if endpoint.api_key_env is None:
        return None
    key = os.environ.get(endpoint.api_key_env, "").strip()
    if not key:
        raise VerifyFailure(
            Code.LIVE_KEY_MISSING,
            f"the environment variable {endpoint.api_key_env} (api_key_env) is not set",
            path=where,
            field=f"{field}.api_key_env",
        )
    return key


def _live_check(bundle: Path, entrant: str, options: VerifyOptions, live: LiveOptions) -> LiveCheck:
    run = records.load_run(bundle)
    endpoint, index = _endpoint(bundle, entrant, run, live, options)
    where, field = _where(live, options), f"entrants.{entrant}[{index}]"
    key = _key(endpoint, where, field)
    task_set = scores.pinned_tasks(options.tasks, options.corpus_root, run)
    public = {task.id for task in task_set.tasks if task.split == "public"}
    # Drawn fresh unless given: a seed derived from the bundle and a commit (the replay
    # sample's) is known before the check to whoever can guess the commit (the base tip
    # before a merge), and a submitter could grind created_at until the sample missed the
    # tasks they faked. The report names the seed, so `--seed` draws the same tasks again.
    seed = options.seed if options.seed is not None else secrets.randbits(63)
    sampled = sample_tasks(run, public, live.sample, seed)
    if not sampled:
        raise VerifyFailure(
            Code.LIVE_RERUN_FAILED,
            "the bundle has no public task whose attempts all decided: nothing to re-run",
            path=str(bundle / CONFIG),
            field="task_set",
        )
    with tempfile.TemporaryDirectory(prefix="bench-verify-live-") as scratch:
        try:
            attempts, metered = live_run.rerun(
                Path(scratch), run.config, endpoint, options.tasks, options.corpus_root, sampled
            )
        except live_run.ServerChanged as exc:
            raise VerifyFailure(
                Code.LIVE_SERVER_CHANGED,
                _scrub(
                    f"the endpoint now declares {_identity(exc.live)}; the run recorded "
                    f"{_identity(exc.recorded)}: a re-run would test another configuration",
                    key,
                ),
                path=str(bundle / CONFIG),
                field="server",
            ) from None
        except BenchError as exc:
            raise VerifyFailure(
                Code.LIVE_RERUN_FAILED,
                _scrub(f"the re-run could not start: {exc.code}: {exc.message}", key),
                path=where,
                field=field,
            ) from None
    comparison = decide(run, sampled, attempts, live.alpha)
    reason = comparison.reason + (
        f"; sample seed {seed}" + (", given" if options.seed is not None else ", drawn fresh")
    )
    if metered.capped:
        reason += f"; max_requests ({endpoint.max_requests}) ran out"
    return LiveCheck.of(
        dataclasses.replace(comparison, reason=_scrub(reason, key)),
        endpoint=endpoint.shown_url,
        endpoint_id=endpoint.endpoint_id,
        model=endpoint.model,
        requests=metered.sent,
    )


def _identity(server: dict[str, object] | None) -> str:
    if not server:
        return "nothing about itself"
    return ", ".join(f"{name} {value}" for name, value in server.items() if value is not None)


def _message(check: LiveCheck) -> str:
    if check.decision == "inconsistent":
        return (
            f"live pass rate {check.live_passes}/{check.n * check.repeats} "
            f"({check.live_rate:.3f}) is inconsistent with the claimed "
            f"{check.claimed_passes}/{check.n * check.repeats} ({check.claimed_rate:.3f}) "
            f"on the same {check.n} task(s): {check.reason}"
        )
    return f"could not re-run the sample (not a verdict on the entrant): {check.reason}"


def verify_live(bundle: Path, options: VerifyOptions, live: LiveOptions) -> LiveVerdict:
    """The offline verdict, then (only if valid) the live check. Never raises for a bad bundle
    or an unreachable endpoint; writes nothing but a temp directory it removes."""
    verdict = verify_bundle(bundle, options)
    if not verdict.valid or verdict.entrant is None:
        return LiveVerdict(verdict, None)
    try:
        check = _live_check(bundle, verdict.entrant, options, live)
    except VerifyFailure as exc:
        failed = dataclasses.replace(
            verdict, code=exc.verify_code, path=exc.path, field=exc.field, message=exc.message
        )
        return LiveVerdict(failed, None)
    if check.decision == "consistent":
        return LiveVerdict(dataclasses.replace(verdict, checks=(*verdict.checks, "live")), check)
    code = Code.LIVE_INCONSISTENT if check.decision == "inconsistent" else Code.LIVE_RERUN_FAILED
    failed = dataclasses.replace(
        verdict, code=code, path=str(bundle), field="live", message=_message(check)
    )
    return LiveVerdict(failed, check)


__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_SAMPLE",
    "LiveCheck",
    "LiveOptions",
    "LiveVerdict",
    "decide",
    "sample_tasks",
    "verify_live",
]
