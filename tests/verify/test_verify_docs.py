"""docs/VERIFY-ERRORS.md lists exactly the codes the verifier can emit (the Code registry)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.verify import UNUSABLE, Code

DOC = Path(__file__).resolve().parents[2] / "docs" / "VERIFY-ERRORS.md"


def test_every_code_is_documented_with_its_exit_code() -> None:
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\d) \|", DOC.read_text(encoding="utf-8"), re.M)
    documented = dict(rows)
    assert set(documented) == {code.value for code in Code}
    for code in Code:
        assert documented[code.value] == ("2" if code in UNUSABLE else "1"), code
