"""No secret and no local path in a bundle (docs/SUBMISSIONS.md, "Secrets and local paths").

``check_privacy`` holds a loaded bundle to the rules of ``bench.core.secrets`` — the ones
``bench run`` and ``bench bundle`` apply, so a bundle they made passes:

* ``SECRET_PUBLISHED``: the recorded target's (or the comparable settings') ``params`` hold a
  value named like a credential or shaped like a known key, or its system prompt holds a key;
* ``LOCAL_PATH_PUBLISHED``: config, status or target (target.json equals config's target, which
  ``records.load_run`` checked), or what the harness wrote in an attempt (``reason``, ``fault``),
  names an absolute local path; or a field that is a path
  (task set, target file, callable, cassette) is absolute.

Model and tool text in traces and the cassette is not searched for paths: an answer may say
``/api/v1`` or ``/tmp``. Linear in the attempts, a few regular expressions per attempt.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.secrets import Finding, attempt_findings, config_findings, status_findings
from bench.records.bundle import ATTEMPTS, CONFIG, STATUS

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun


def _failure(finding: Finding, path: Path) -> VerifyFailure:
    if finding.kind == "secret":
        return VerifyFailure(
            Code.SECRET_PUBLISHED,
            f"{finding.problem} (a key belongs in an environment variable named by api_key_env)",
            path=str(path),
            field=finding.field,
        )
    return VerifyFailure(
        Code.LOCAL_PATH_PUBLISHED,
        f"{finding.problem}: it would publish a user or machine name",
        path=str(path),
        field=finding.field,
    )


def check_privacy(bundle: Path, run: BundleRun) -> None:
    """Raise ``VerifyFailure`` (``SECRET_PUBLISHED`` before ``LOCAL_PATH_PUBLISHED``) at the
    first secret or local path the bundle publishes."""
    config = run.config.model_dump(mode="json")
    findings = list(config_findings(config))
    for finding in sorted(findings, key=lambda f: f.kind != "secret"):
        raise _failure(finding, bundle / CONFIG)
    for finding in status_findings(run.status.model_dump(mode="json")):
        raise _failure(finding, bundle / STATUS)
    for finding in attempt_findings(run.attempts):
        raise _failure(finding, bundle / ATTEMPTS)


__all__ = ["check_privacy"]
