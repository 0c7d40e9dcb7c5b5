"""The adversarial fixtures' own builder (tests/fixtures/bundles/regenerate.py), loaded once,
and a private copy of its base bundle's world: shared by the verify tests that re-sign a
forged copy of the base bundle with its owner's key (each names its own ``world`` fixture,
since tests/verify/conftest.py has another)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from cryptography.hazmat.primitives import serialization

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
BASE = BUNDLES / "_base"


def _regenerate() -> ModuleType:
    name = "bundles_regenerate"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BUNDLES / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


REGEN = _regenerate()
OWNER = serialization.load_ssh_private_key((BUNDLES / "_keys" / REGEN.ENTRANT).read_bytes(), None)


def base_world(tmp_path: Path) -> Any:
    """A copy of the base bundle's world under ``tmp_path``, re-signed on every rewrite."""
    shutil.copytree(BASE, tmp_path / "world")
    return REGEN.World(tmp_path / "world", {REGEN.ENTRANT: OWNER}, None, None)
