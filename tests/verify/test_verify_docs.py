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


def test_submissions_states_the_thresholds_the_code_uses() -> None:
    """SUBMISSIONS.md's numbers for harness faults and provenance are the code's."""
    from bench.verify import provenance
    from bench.verify.scores import MAX_HARNESS_FAULT_SHARE

    text = (DOC.parent / "SUBMISSIONS.md").read_text(encoding="utf-8")
    assert f"at most **{MAX_HARNESS_FAULT_SHARE:.0%}".replace("%", " %") in text
    own = (
        f"at least {provenance.MIN_OWN_WORDS} words of their own",
        f"at least {provenance.MIN_OWN} compared, {provenance.OWN_SHARE:.0%}",
        f"own words\n   and tool calls ≥ {provenance.NEAR_OWN}",
        f"at least {provenance.MIN_ALL} compared, {provenance.ALL_SHARE:.0%}",
        f"all words and tool calls ≥ {provenance.NEAR_ALL}",
    )
    for phrase in own:
        assert phrase.replace("%", " %") in text, phrase
