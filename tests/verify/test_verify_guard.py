"""The PR path guard on git's file lists."""

from __future__ import annotations

import pytest

from bench.verify.guard import Change, GuardRefusal, guard

RUN = "results/acme/20261202T114029Z-ca4ab2"


def added(*paths: str) -> list[Change]:
    return [Change("A", p) for p in paths]


def refusal(changes: list[Change]) -> str:
    with pytest.raises(GuardRefusal) as info:
        guard(changes)
    return info.value.code


def test_one_new_bundle_is_accepted() -> None:
    assert guard(added(f"{RUN}/manifest.json", f"{RUN}/manifest.json.sig")) == RUN


def test_a_key_registration_has_nothing_to_verify() -> None:
    assert (
        guard([Change("M", "submissions/allowed_signers"), *added("submissions/acme.yaml")]) is None
    )


def test_refusals() -> None:
    assert refusal(added(f"{RUN}/manifest.json", "src/bench/__init__.py")) == "PR_OUTSIDE_RESULTS"
    assert refusal([Change("M", f"{RUN}/manifest.json")]) == "PR_REWRITES_RESULTS"
    assert refusal([Change("D", f"{RUN}/manifest.json")]) == "PR_REWRITES_RESULTS"
    assert refusal(added("results/acme/manifest.json")) == "PR_BAD_PLACE"
    assert refusal(added("results/Acme!/20261202T114029Z-ca4ab2/x")) == "PR_BAD_PLACE"
    other = "results/acme/20261203T114029Z-aaaaaa/manifest.json"
    assert refusal(added(f"{RUN}/manifest.json", other)) == "PR_MULTIPLE_BUNDLES"
    keys = [Change("M", "submissions/allowed_signers"), *added(f"{RUN}/manifest.json")]
    assert refusal(keys) == "PR_KEYS_AND_RESULTS"
    assert refusal(added(".github/workflows/publish.yml")) == "PR_OUTSIDE_RESULTS"
