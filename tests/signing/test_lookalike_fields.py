"""A name that ``bench verify`` refuses is said early, on every name the board shows.

Before: ``bench run`` said nothing of a display name or model that mixes scripts, ``bench
bundle`` signed it, and only ``bench verify`` (after a possibly hours-long run) refused it;
verify and the lint looked at the display name only, so a run's model, a registered
organisation or model, or a link host with a Cyrillic ``о`` passed everywhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.board.registry import field_problems
from bench.cli.main import cli
from bench.records import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import bundle as bundle_module
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.signing.registry import lint_directory, read_entrant
from bench.verify import VerifyOptions, verify_bundle

MINI = Path(__file__).resolve().parent.parent / "fixtures" / "mini"
CYRILLIC_O = "U+043E CYRILLIC SMALL LETTER O (Cyrillic) among Latin letters"


def _target(tmp: Path, display_name: str, model: str) -> Path:
    entrant = tmp / "entrant"
    if not entrant.exists():
        shutil.copytree(MINI, entrant)
    target = entrant / "targets" / "good.yaml"
    data = yaml.safe_load(target.read_text(encoding="utf-8"))
    data.update(display_name=display_name, model=model)
    target.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return target


def _key(tmp: Path) -> tuple[Path, Path]:
    key = Ed25519PrivateKey.generate()
    key_file = tmp / "id_ed25519"
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    signers = tmp / "allowed_signers"
    signers.write_text(signer_line("mini-good", public_line(key.public_key())) + "\n")
    return key_file, signers


BAD = [
    ("b\u043eb's agent", "gpt-4o-mini", "display_name", "NAME_LOOKALIKE", CYRILLIC_O),
    ("mini good", "gpt-4\u043e-mini", "comparable.model", "NAME_LOOKALIKE", CYRILLIC_O),
    ("mini\u200dgood", "gpt-4o-mini", "display_name", "TEXT_INVALID", "ZERO WIDTH JOINER"),
]


@pytest.mark.parametrize(("name", "model", "field", "code", "said"), BAD)
def test_bench_run_warns_at_the_start(
    tmp_path: Path, name: str, model: str, field: str, code: str, said: str
) -> None:
    target = _target(tmp_path, name, model)
    runs = tmp_path / "runs"
    result = CliRunner().invoke(
        cli,
        ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--runs-dir", str(runs),
         "--progress", "none"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output  # a warning: the run is made
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning: the ")]
    shown = "display_name" if field == "display_name" else "model"
    value = name if field == "display_name" else model
    assert len(warned) == 1, result.stderr
    assert warned[0].startswith(f"warning: the {shown} {ascii(value)} ")
    assert said in warned[0] and f"bench verify refuses it ({code})" in warned[0]
    assert "bench bundle will not sign this run" in warned[0]


def test_bench_run_says_nothing_of_a_name_in_one_script(tmp_path: Path) -> None:
    target = _target(tmp_path, "Яндекс агент", "meta-llama/Llama-3.1-8B-Instruct:Q4_K_M")
    result = CliRunner().invoke(
        cli,
        ["run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--runs-dir",
         str(tmp_path / "runs"), "--progress", "none"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warning: the " not in result.stderr


def _run(tmp: Path, name: str, model: str) -> Path:
    run, _ = start_run(
        RunRequest(
            tasks=MINI / "tasks",
            target_file=_target(tmp, name, model),
            runs_dir=tmp / "runs",
        )
    )
    return run.path


@pytest.mark.parametrize(("name", "model", "field", "code", "said"), BAD)
def test_bench_bundle_refuses_to_sign_what_verify_refuses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    model: str,
    field: str,
    code: str,
    said: str,
) -> None:
    run = _run(tmp_path, name, model)
    key, signers = _key(tmp_path)
    out = tmp_path / "results"
    with pytest.raises(bundle_module.InputError) as caught:
        build_bundle(
            RunDir(run), entrant="mini-good", key_file=key, out_root=out, allowed_signers=signers
        )
    error = caught.value
    assert (error.code, error.field) == ("BUNDLE_NAME_INVALID", field)
    assert str(error.path) == str(run / "config.json")
    assert said in error.message and f"bench verify refuses it ({code})" in error.message
    assert not out.exists()  # nothing half-written
    # ...and it is what verify refuses: signed as before (the pre-check off), the bundle fails.
    monkeypatch.setattr(bundle_module, "_refuse_shown_names", lambda run, config: None)
    bundle = build_bundle(
        RunDir(run), entrant="mini-good", key_file=key, out_root=out, allowed_signers=signers
    )
    verdict = verify_bundle(
        bundle,
        VerifyOptions(
            results_root=out, allowed_signers=signers, tasks=MINI / "tasks", replay_sample=1
        ),
    )
    assert (verdict.code, verdict.field) == (code, field), verdict


def test_the_cli_says_the_bundle_refusal_in_one_line(tmp_path: Path) -> None:
    run = _run(tmp_path, "mini good", "gpt-4\u043e-mini")
    key, signers = _key(tmp_path)
    result = CliRunner().invoke(
        cli,
        ["bundle", str(run), "--entrant", "mini-good", "--key", str(key), "--allowed-signers",
         str(signers), "--out", str(tmp_path / "results")],
    )  # fmt: skip
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error[BUNDLE_NAME_INVALID]: {run / 'config.json'}: ")
    assert "comparable.model: " in result.stderr and "Traceback" not in result.stderr


def test_a_clean_run_bundles_and_verifies(tmp_path: Path) -> None:
    run = _run(tmp_path, "通义千问 agent", "Qwen/Qwen2.5-7B-Instruct")
    key, signers = _key(tmp_path)
    out = tmp_path / "results"
    bundle = build_bundle(
        RunDir(run), entrant="mini-good", key_file=key, out_root=out, allowed_signers=signers
    )
    verdict = verify_bundle(
        bundle,
        VerifyOptions(
            results_root=out, allowed_signers=signers, tasks=MINI / "tasks", replay_sample=1
        ),
    )
    assert verdict.code is None, verdict


RECORD = {
    "display_name": "Acme Support",
    "organisation": "Acme Ltd",
    "model": "acme-7b",
    "links": ["https://acme.example/paper"],
    "contact": "bench@acme.example",
    "license": "Apache-2.0",
}


def _registry(directory: Path, **changes: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    record = {**RECORD, **changes}
    (directory / "acme.yaml").write_text(yaml.safe_dump(record, allow_unicode=True))
    key = public_line(Ed25519PrivateKey.generate().public_key())
    (directory / "allowed_signers").write_text(signer_line("acme", key) + "\n")
    return directory


@pytest.mark.parametrize(
    ("field", "change", "shown"),
    [
        ("organisation", {"organisation": "\u041epenAI"}, "\u041epenAI"),
        ("model", {"model": "gpt-4\u043e"}, "gpt-4\u043e"),
        ("model", {"model": "acme\u3164 7b"}, "acme\u3164 7b"),
        (
            "links[1]",
            {"links": ["https://a.example/", "https://\u043epenai.com/x"]},
            "\u043epenai.com",
        ),
    ],  # fmt: skip
)
def test_a_registered_name_beside_the_display_name_is_linted_and_refused_by_the_board(
    tmp_path: Path, field: str, change: dict[str, object], shown: str
) -> None:
    directory = _registry(tmp_path / "submissions", **change)
    _, findings = lint_directory(directory)
    [finding] = findings
    assert (finding.severity, finding.code, finding.field) == (
        "error",
        "ENTRANT_NAME_LOOKALIKE",
        field,
    )
    assert ascii(shown) in finding.message
    # the board build (--strict) refuses the same record
    record = read_entrant(directory / "acme.yaml")
    [problem] = field_problems({"acme": record}, {})
    assert f"the {field} of entrant 'acme' ({ascii(shown)})" in problem
    assert "submissions/acme.yaml" in problem


def test_the_board_refuses_a_run_model_that_mixes_scripts() -> None:
    [problem] = field_problems({}, {"acme": ["gpt-4\u043e", "gpt-4o"]})
    assert "a run of entrant 'acme' names its model 'gpt-4\\u043e'" in problem
    assert CYRILLIC_O in problem


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4o-2024-08-06",
        "Qwen/Qwen2.5-7B-Instruct",
        "meta-llama/Llama-3.1-8B-Instruct:Q4_K_M",
        "models/gemini-1.5-pro",
        "none: bench.baselines:echo (no language model)",
        "通义千问-7B",
    ],
)
def test_real_model_names_pass(tmp_path: Path, model: str) -> None:
    directory = _registry(tmp_path / "submissions", model=model, links=["https://яндекс.рф/"])
    _, findings = lint_directory(directory)
    assert findings == []
    assert field_problems({"acme": read_entrant(directory / "acme.yaml")}, {"acme": [model]}) == []


def test_every_shipped_name_passes() -> None:
    repo = MINI.parent.parent.parent
    _, findings = lint_directory(repo / "submissions")
    assert [f for f in findings if f.severity == "error"] == []
    records = {p.stem: read_entrant(p) for p in (repo / "submissions").glob("*.yaml")}
    assert records and field_problems(records, {}) == []
