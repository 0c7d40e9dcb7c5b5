"""A bundle whose run records a negative seed stops the build with ``BOARD_INPUT`` naming the
field, never a traceback: the board draws the row's headline interval with the run's own seed,
and the draws (numpy's SeedSequence, ``bench.stats.draws``) take no negative seed. Verify
refuses such a bundle too (``RECORD_INVALID``, tests/verify/test_forged_records.py); the build
meets it unverified (``--no-verify``, or an unverifiable bundle on a board built without
``--strict``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.board import BuildOptions, build
from bench.board.errors import BoardInputError

REPO = Path(__file__).resolve().parents[2]
# A shipped bundle whose families are not constant, so its headline interval is drawn.
SHIPPED = REPO / "results" / "example-support-bot" / "20261204T152001Z-f33f45"


@pytest.mark.parametrize("verify", [False, True], ids=["no-verify", "verify"])
def test_a_negative_seed_is_a_board_input_error(tmp_path: Path, verify: bool) -> None:
    bundle = tmp_path / "results" / SHIPPED.parent.name / SHIPPED.name
    shutil.copytree(SHIPPED, bundle)
    config = json.loads((bundle / "config.json").read_bytes())
    config["seed"] = -1
    text = json.dumps(config, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    (bundle / "config.json").write_text(text, encoding="utf-8")
    options = BuildOptions(
        runs=None,
        results=tmp_path / "results",
        out=tmp_path / "site",
        submissions=None,
        verify_bundles=verify,
        allowed_signers=REPO / "submissions" / "allowed_signers",
        tasks=REPO / "tasks",
        resamples=50,
        frontier_resamples=50,
    )
    with pytest.raises(BoardInputError) as caught:
        build(options)
    assert caught.value.field == "seed"
    assert caught.value.path == str(bundle / "config.json")
    assert "non-negative" in caught.value.message
    assert not (tmp_path / "site").exists()
