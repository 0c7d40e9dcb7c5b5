"""A recorded target holds only the settings its kind uses, as ``bench run`` reads a target file.

``bench run`` refuses a target file that sets a field another kind reads (``TARGET_INVALID``,
``bench.targets.load.FIELD_KINDS``): ``headers`` or ``stream`` on a ``scripted`` target,
``callable`` on an ``openai`` one. So the target config.json records for a run of any kind but
a replay holds each such field at its default. Nothing re-derived that: a recorded target
passed verify when it was a valid ``TargetSpec``, so a ``scripted`` row's config could carry
gateway headers, a stream flag, retry settings or a token cap's name it never sent a byte
with, a target no run of its kind records. Where an endpoint is (``WHERE_ONLY``) is left
alone: verify never goes there. A replay (``cassette``) is a run of another's recording and
keeps its original's target (``runner.session``), HTTP settings and all, so it is not held
to this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.records.bundle import CONFIG
from bench.records.run import RunConfig
from bench.targets.base import TargetSpec
from bench.targets.load import FIELD_KINDS

from .codes import Code
from .failure import VerifyFailure

KEPT_BY_REPLAY = frozenset({"cassette"})
"""The kinds whose recorded target keeps fields of another kind: a replay keeps its original's."""
WHERE_ONLY = frozenset({"base_url", "api_key_env", "endpoint_id"})
"""Fields that only name where an endpoint and its key are, not how a run talks to it: verify
never connects to one (tests/fixtures/bundles/named_endpoint_pass: a scripted target naming a
local port is re-driven from its recording alone) and the board shows none, so they are left
as ``records.load_run`` already holds them (the URL cut to ``scheme://host[:port]``)."""


def _default(name: str) -> Any:
    return TargetSpec.model_fields[name].get_default(call_default_factory=True)


def check_target_fields(bundle: Path, config: RunConfig) -> None:
    """``RECORD_INCONSISTENT`` when config.json's target sets a field its kind never reads
    (one ``bench run`` refuses in a target file of that kind) to anything but its default."""
    spec = TargetSpec.model_validate(config.target)  # load_run refused one that is not
    if spec.kind in KEPT_BY_REPLAY:
        return
    for name, owners in FIELD_KINDS.items():
        if name in WHERE_ONLY or spec.kind in owners:
            continue
        if getattr(spec, name) != _default(name):
            raise VerifyFailure(
                Code.RECORD_INCONSISTENT,
                f"a {spec.kind} target never uses {name} (it is for {' and '.join(owners)}), "
                "and bench run refuses a target file that sets it: no run of this kind "
                "records it",
                path=str(bundle / CONFIG),
                field=f"target.{name}",
            )


__all__ = ["KEPT_BY_REPLAY", "WHERE_ONLY", "check_target_fields"]
