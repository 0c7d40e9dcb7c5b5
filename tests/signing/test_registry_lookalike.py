"""``bench submissions lint`` applies the board's look-alike rules (``bench.core.lookalike``)
to registry files, where a PR adds a name: before, a registry file whose ``display_name`` mixed
scripts or read as another entrant's linted clean, and only the board build refused it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.cli.submissions_cmd import submissions
from bench.signing import public_line, signer_line
from bench.signing.registry import lint_directory

RECORD: dict[str, Any] = {
    "organisation": "Acme Ltd",
    "model": "acme-7b",
    "links": [],
    "contact": "bench@acme.example",
    "license": "Apache-2.0",
}


def _registry(directory: Path, names: dict[str, str]) -> Path:
    """``directory`` holding a keyed registry file for each entrant -> display name."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = []
    for entrant, name in names.items():
        text = yaml.safe_dump({**RECORD, "display_name": name}, allow_unicode=True)
        (directory / f"{entrant}.yaml").write_text(text, encoding="utf-8")
        key = public_line(Ed25519PrivateKey.generate().public_key())
        lines.append(signer_line(entrant, key) + "\n")
    (directory / "allowed_signers").write_text("".join(lines), encoding="utf-8")
    return directory


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Acme \u041egent", "U+041E CYRILLIC CAPITAL LETTER O (Cyrillic) among Latin letters"),
        ("Acme \ua4eegent", "U+A4EE LISU LETTER A (Lisu) among Latin letters"),
        ("Acme\u3164Agent", "U+3164 HANGUL FILLER, which draws nothing"),
        ("Acme \u0363gent", "U+0363 COMBINING LATIN SMALL LETTER A, a letter drawn over"),
    ],
)
def test_a_display_name_that_could_pass_for_another_is_a_lint_error(
    tmp_path: Path, name: str, said: str
) -> None:
    directory = _registry(tmp_path / "submissions", {"acme": name, "other": "Other Bot"})
    records, findings = lint_directory(directory)
    assert set(records) == {"acme", "other"}  # the file reads: the name is the lint's finding
    [finding] = findings
    assert (finding.severity, finding.code, finding.field) == (
        "error",
        "ENTRANT_NAME_LOOKALIKE",
        "display_name",
    )
    assert finding.path == str(directory / "acme.yaml")
    assert said in finding.message and ascii(name) in finding.message
    result = CliRunner().invoke(submissions, ["lint", "--dir", str(directory)])
    assert result.exit_code == 1
    assert f"acme.yaml: error[ENTRANT_NAME_LOOKALIKE]: display_name: {ascii(name)}" in result.output


@pytest.mark.parametrize(
    "twin",
    [
        "acme support",  # case
        "Acme  Supp0rt",  # a zero, two spaces
        "\u0410\u0441m\u0435 Support",  # Cyrillic a, c, e among Latin letters
        "\u13aa\u13df\u13b7\u13ac \u13da\u13c1\u13c1\u13e2\u13be\u13a1\u13d6",  # Cherokee
    ],
)
def test_two_registered_names_that_look_alike_are_a_lint_error(tmp_path: Path, twin: str) -> None:
    directory = _registry(tmp_path / "submissions", {"acme": "Acme Support", "zeta": twin})
    _, findings = lint_directory(directory)
    [collision] = [f for f in findings if f.code == "ENTRANT_NAME_COLLISION"]
    assert collision.severity == "error" and collision.field == "display_name"
    assert collision.path == str(directory / "zeta.yaml")
    assert "entrant 'acme'" in collision.message and "'Acme Support'" in collision.message
    assert "acme.yaml" in collision.message and ascii(twin) in collision.message
    result = CliRunner().invoke(submissions, ["lint", "--dir", str(directory)])
    assert result.exit_code == 1 and "error[ENTRANT_NAME_COLLISION]" in result.output


def test_distinct_names_in_any_script_lint_clean(tmp_path: Path) -> None:
    names = {
        "a": "Acme Support",
        "b": "Acme Support 2",
        "c": "通义千问 Qwen",
        "d": "Яндекс",
        "e": "Émile's agent",
        "f": "Agent ☀️",
        "g": "カラクリ LM 8x7B",
    }
    directory = _registry(tmp_path / "submissions", names)
    records, findings = lint_directory(directory)
    assert len(records) == len(names) and findings == []
