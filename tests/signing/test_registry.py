"""submissions/<entrant>.yaml: the strict registry model, and lint's cross-check with keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.cli.submissions_cmd import submissions
from bench.signing import public_line, signer_line
from bench.signing.registry import (
    EntrantRecord,
    RegistryError,
    https_url,
    lint_directory,
    read_entrant,
)

REPO = Path(__file__).resolve().parents[2]
GOOD: dict[str, Any] = {
    "display_name": "Acme Support",
    "organisation": "Acme Ltd",
    "model": "acme-7b",
    "links": ["https://acme.example/bot", "https://acme.example:8443/paper?x=1#y"],
    "contact": "bench@acme.example",
    "license": "Apache-2.0",
    "description": "A **Markdown** description.\n\nTwo paragraphs.\n",
}


def _write(directory: Path, name: str, data: Any) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


def _signers(directory: Path, *principals: str) -> None:
    lines = [
        signer_line(p, public_line(Ed25519PrivateKey.generate().public_key())) for p in principals
    ]
    _write(directory, "allowed_signers", "".join(line + "\n" for line in lines))


def test_a_good_file_reads() -> None:
    record = EntrantRecord.model_validate(GOOD)
    assert record.display_name == "Acme Support" and len(record.links) == 2
    assert EntrantRecord.model_validate({**GOOD, "description": None}).description is None
    assert EntrantRecord.model_validate({**GOOD, "display_name": "Équipe 🤖 北京"})


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"extra": 1}, "extra"),
        ({"model": None}, "model"),
        ({"model": 7}, "model"),
        ({"links": "https://acme.example"}, "links"),
        ({"display_name": ""}, "display_name"),
        ({"display_name": "x" * 81}, "display_name"),
        ({"display_name": " padded"}, "display_name"),
        ({"display_name": "Acme\u202eroppuS"}, "display_name"),  # RIGHT-TO-LEFT OVERRIDE
        ({"display_name": "Ac\u200bme"}, "display_name"),  # ZERO WIDTH SPACE
        ({"display_name": "Acme\u2066x\u2069"}, "display_name"),  # isolates
        ({"display_name": "Acme\nSupport"}, "display_name"),
        ({"organisation": "Acme\x00"}, "organisation"),
        ({"description": "ok\u202e"}, "description"),
        ({"description": "x" * 4001}, "description"),
        ({"links": ["https://a.example"] * 11}, "links"),
    ],
)
def test_the_model_refuses(change: dict[str, Any], field: str) -> None:
    data = {**GOOD, **change}
    if "extra" not in change and change.get("model", 0) is None:
        del data["model"]
    with pytest.raises(ValueError) as refused:
        EntrantRecord.model_validate(data)
    assert field in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://acme.example",
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "data:text/html,<b>x</b>",
        "//acme.example/x",
        "/relative",
        "https://",
        "https://user:pw@acme.example/",
        "https://acme.example/a b",
        'https://acme.example/"onmouseover=x',
        "https://acme.example:99999/",
        "https://acme.example/\u202e",
        "ftp://acme.example",
    ],
)
def test_links_are_https_only(url: str) -> None:
    with pytest.raises(ValueError):
        https_url(url)
    with pytest.raises(ValueError):
        EntrantRecord.model_validate({**GOOD, "links": [url]})


def test_read_entrant_codes(tmp_path: Path) -> None:
    assert read_entrant(_write(tmp_path, "acme.yaml", GOOD)).model == "acme-7b"
    for name in ("Acme.yaml", "-acme.yaml", "acme.yml", "acme.json", "ac_me.yaml"):
        with pytest.raises(RegistryError) as bad_name:
            read_entrant(_write(tmp_path, name, GOOD))
        assert bad_name.value.code == "ENTRANT_FILE_NAME", name
    cases = {
        "dup.yaml": "display_name: a\ndisplay_name: b\n",
        "alias.yaml": "display_name: &n Acme\norganisation: *n\n",
        "tag.yaml": "display_name: !!python/name:os.system\n",
        "list.yaml": "- a\n- b\n",
        "broken.yaml": "display_name: [\n",
        "schema.yaml": yaml.safe_dump({**GOOD, "links": ["http://x.example"]}),
    }
    for name, text in cases.items():
        with pytest.raises(RegistryError) as bad:
            read_entrant(_write(tmp_path, name, text))
        assert bad.value.code == "ENTRANT_FILE_INVALID", name
    (tmp_path / "notutf8.yaml").write_bytes(b"display_name: \xff\n")
    with pytest.raises(RegistryError) as encoding:
        read_entrant(tmp_path / "notutf8.yaml")
    assert encoding.value.code == "ENTRANT_FILE_INVALID"


def test_lint_cross_checks_keys_and_files(tmp_path: Path) -> None:
    directory = tmp_path / "submissions"
    _signers(directory, "acme", "nofile")
    _write(directory, "acme.yaml", GOOD)
    _write(directory, "keyless.yaml", {**GOOD, "display_name": "Keyless Bot"})
    _write(directory, "Bad_Name.yaml", GOOD)
    _write(directory, ".hidden.yaml", "not: [valid")
    records, findings = lint_directory(directory)
    assert sorted(records) == ["acme", "keyless"]
    got = {(f.severity, f.code, Path(f.path).name) for f in findings}
    assert got == {
        ("error", "ENTRANT_FILE_MISSING", "allowed_signers"),
        ("error", "ENTRANT_FILE_NAME", "Bad_Name.yaml"),
        ("warning", "ENTRANT_KEY_MISSING", "keyless.yaml"),
    }
    assert findings[-1].severity == "warning"
    missing = next(f for f in findings if f.code == "ENTRANT_FILE_MISSING")
    assert missing.line == 2 and "nofile" in missing.message


def test_lint_reports_a_broken_file_of_a_registered_entrant_once(tmp_path: Path) -> None:
    directory = tmp_path / "submissions"
    _signers(directory, "acme")
    _write(directory, "acme.yaml", {**GOOD, "display_name": "Acme\u202e"})
    _, findings = lint_directory(directory)
    assert [(f.code, f.field) for f in findings] == [("ENTRANT_FILE_INVALID", "display_name")]


def test_lint_without_allowed_signers(tmp_path: Path) -> None:
    _, findings = lint_directory(tmp_path)
    assert [f.code for f in findings] == ["SIGNERS_MISSING"]


def test_cli_lint_exit_codes(tmp_path: Path) -> None:
    directory = tmp_path / "submissions"
    _signers(directory, "acme")
    _write(directory, "acme.yaml", GOOD)
    _write(directory, "keyless.yaml", {**GOOD, "display_name": "Keyless Bot"})
    runner = CliRunner()
    warned = runner.invoke(submissions, ["lint", "--dir", str(directory)])
    assert warned.exit_code == 0, warned.output
    assert "warning[ENTRANT_KEY_MISSING]" in warned.output
    assert "ok (2 entrant file(s), 1 warning(s))" in warned.output
    _write(directory, "acme.yaml", {**GOOD, "links": ["javascript:alert(1)"]})
    failed = runner.invoke(submissions, ["lint", "--dir", str(directory)])
    assert failed.exit_code == 1
    assert "acme.yaml: error[ENTRANT_FILE_INVALID]: links[0]: must be an https: URL" in (
        failed.output
    )


def test_the_shipped_submissions_directory_lints() -> None:
    records, findings = lint_directory(REPO / "submissions")
    assert "example-support-bot" in records
    assert [f.severity for f in findings if f.severity == "error"] == []
    result = CliRunner().invoke(submissions, ["lint", "--dir", str(REPO / "submissions")])
    assert result.exit_code == 0, result.output


def test_a_registry_file_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    """A record read through a link is whatever it points at: another entrant's record (its
    organisation, links and description on this entrant's rows), or a file of the machine that
    builds the board. Lint and the board refuse it, as the PR guard does (git mode 120000)."""
    real = _write(tmp_path / "submissions", "acme.yaml", GOOD)
    link = tmp_path / "submissions" / "mallory.yaml"
    link.symlink_to(real.name)
    with pytest.raises(RegistryError) as info:
        read_entrant(link)
    assert info.value.code == "ENTRANT_FILE_INVALID" and "link" in info.value.message
    records, findings = lint_directory(tmp_path / "submissions")
    assert "mallory" not in records
    assert any(f.code == "ENTRANT_FILE_INVALID" and "mallory" in f.path for f in findings)


def test_the_board_does_not_read_a_symlinked_registry_file(tmp_path: Path) -> None:
    from bench.board.registry import load_registry

    real = _write(tmp_path / "submissions", "acme.yaml", GOOD)
    (tmp_path / "submissions" / "mallory.yaml").symlink_to(real.name)
    records, warnings = load_registry(tmp_path / "submissions", ["acme", "mallory"])
    assert set(records) == {"acme"}
    assert len(warnings) == 1 and "mallory" in warnings[0] and "link" in warnings[0]
