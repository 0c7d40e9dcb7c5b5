"""Issue 19, a run's start-up: a whole ``bench run`` (the run, its summary, its report and its
history) never builds the bundle manifest's pydantic classes (``records.bundle``); the limits
it warns with come from ``records.limits``, the same numbers ``bench bundle`` and ``bench
verify`` hold a bundle to."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.records import BundleManifest as Exported
from bench.records import bundle


def test_a_whole_run_does_not_import_the_bundle_models(mini: Path) -> None:
    code = (
        "import json, sys\n"
        "from bench.cli.main import main\n"
        f"mini = {str(mini)!r}\n"
        "try:\n"
        "    main(['run', '--tasks', mini + '/tasks', '--target', mini + '/targets/good.yaml',"
        " '--runs-dir', mini + '/runs', '--progress', 'none'])\n"
        "except SystemExit as end:\n"
        "    assert not end.code, end.code\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('bench.records'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    assert {"bench.records.run", "bench.records.store"} <= loaded
    assert "bench.records.bundle" not in loaded
    assert any((mini / "runs").glob("*/attempts/*.json"))  # the run really ran


def test_the_bundle_limits_are_the_run_limits_and_the_package_still_exports_the_models() -> None:
    from bench.records import limits

    for name in limits.__all__:
        assert getattr(bundle, name) == getattr(limits, name)
        assert name in bundle.__all__
    assert Exported is bundle.BundleManifest
