"""The judge file: strict fields named with file and field, the prompt, the parse rule, the
fingerprint that decides whether a calibration still applies, and the key kept out of it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench.core.errors import InputError
from bench.scorers.judge.config import (
    DEFAULT_PROMPT_TEMPLATE,
    JudgeConfig,
    load_judge_config,
    parse_verdict,
)
from bench.scorers.judge.errors import JudgeConfigError, JudgeKeyMissing

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, **fields: object) -> Path:
    data = {"format_version": 1, "base_url": "http://127.0.0.1:8000/v1", "model": "m"}
    data.update(fields)
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_the_example_judge_file_loads() -> None:
    config = load_judge_config(REPO / "examples" / "judge.yaml")
    assert config.endpoint == "http://127.0.0.1:8000/v1/chat/completions"
    assert config.temperature == 0.0
    # A local server as in the file needs no key: a key named there would be demanded.
    assert config.api_key_env is None and config.api_key() is None
    assert config.pricing is not None and config.pricing.prompt_per_mtok == 0.10
    assert config.prompt_template == DEFAULT_PROMPT_TEMPLATE


def test_defaults() -> None:
    config = JudgeConfig(base_url="http://localhost:8000/v1/", model="m")
    assert config.base_url == "http://localhost:8000/v1"
    assert (config.temperature, config.timeout_s, config.pricing, config.api_key_env) == (
        0.0,
        60.0,
        None,
        None,
    )
    assert config.api_key() is None


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"modle": "x"}, "modle", "unknown field"),
        ({"temperature": "0"}, "temperature", "valid number"),
        ({"temperature": 3}, "temperature", "less than or equal to 2"),
        ({"base_url": "127.0.0.1:8000"}, "base_url", "http:// or https://"),
        ({"prompt_template": "Grade {answer} by {rubric}"}, "prompt_template", "{question}"),
        ({"alternate_rubric_template": "reworded"}, "alternate_rubric_template", "{rubric}"),
        ({"timeout_s": 0}, "timeout_s", "greater than 0"),
        ({"pricing": {"prompt_per_mtok": 1}}, "pricing.completion_per_mtok", "required"),
        ({"format_version": 2}, "format_version", "1"),
    ],
)
def test_a_bad_field_is_named_with_the_file(
    tmp_path: Path, fields: dict[str, object], field: str, words: str
) -> None:
    path = write(tmp_path, **fields)
    with pytest.raises(JudgeConfigError) as info:
        load_judge_config(path)
    assert info.value.code == "JUDGE_CONFIG_INVALID"
    assert info.value.exit_code == 3
    assert info.value.field == field
    assert info.value.path == str(path)
    assert words in info.value.message
    assert str(path) in str(info.value)


def test_a_missing_field_and_a_non_mapping_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text("format_version: 1\nbase_url: http://x/v1\n")
    with pytest.raises(JudgeConfigError, match="model: Field required"):
        load_judge_config(path)
    path.write_text("- just a list\n")
    with pytest.raises(JudgeConfigError, match="a judge file is a mapping"):
        load_judge_config(path)


@pytest.mark.parametrize("secret", ["sk-live-0123456789abcdef", "a3f09c2e51d7b8e4f6a1c0d9e2b7"])
def test_a_key_pasted_where_its_variable_name_belongs_is_refused_without_echoing_it(
    tmp_path: Path, secret: str
) -> None:
    path = write(tmp_path, api_key_env=secret)
    with pytest.raises(JudgeConfigError) as info:
        load_judge_config(path)
    assert info.value.field == "api_key_env"
    assert secret not in str(info.value)


def test_an_unset_key_variable_is_named_never_valued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_JUDGE_KEY", raising=False)
    config = load_judge_config(write(tmp_path, api_key_env="NO_SUCH_JUDGE_KEY"))
    with pytest.raises(JudgeKeyMissing) as info:
        config.api_key()
    assert info.value.code == "JUDGE_API_KEY_MISSING"
    assert isinstance(info.value, InputError)
    assert "NO_SUCH_JUDGE_KEY is not set" in str(info.value)
    assert info.value.field == "api_key_env"
    monkeypatch.setenv("NO_SUCH_JUDGE_KEY", "  sk-abc  ")
    assert config.api_key() == "sk-abc"


def test_the_prompt_fills_each_placeholder_once() -> None:
    config = JudgeConfig(base_url="http://x/v1", model="m")
    messages = config.messages(
        "R {answer}", "Q?", "the answer says {rubric} literally {fence}", fence="f00d"
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "Rubric:\nR {answer}\n" in user
    assert "Question:\nQ?\n" in user
    assert "[ANSWER f00d]\nthe answer says {rubric} literally {fence}\n[END OF ANSWER f00d]" in user
    assert config.alternate_rubric("says 7 days") == (
        "Accept the answer if, and only if, this holds: says 7 days"
    )
    assert (
        JudgeConfig(base_url="http://x/v1", model="m", system_prompt="").messages("r", "q", "a")[0][
            "role"
        ]
        == "user"
    )


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("PASS", (True, "(no reason given)")),
        ("FAIL: cites nothing", (False, "cites nothing")),
        ("pass - fine", (True, "fine")),
        ("Pass.\nIt gives 7 business days.", (True, "It gives 7 business days.")),
        ("**FAIL** — wrong unit", (False, "wrong unit")),
        ('  "FAIL"\n\n  The answer   hedges.', (False, "The answer hedges.")),
        ("PASSED", None),
        ("PASS/FAIL", None),
        ("Verdict: PASS", None),
        ("I think it passes.", None),
        ("", None),
    ],
)
def test_the_parse_rule(reply: str, expected: tuple[bool, str] | None) -> None:
    assert parse_verdict(reply) == expected


def test_the_fingerprint_moves_with_what_can_change_a_verdict() -> None:
    base = JudgeConfig(base_url="http://x/v1", model="m")
    same = [
        base.model_copy(update={"base_url": "https://elsewhere.example/v1"}),
        base.model_copy(update={"timeout_s": 5.0}),
        base.model_copy(update={"api_key_env": "OTHER"}),
        base.model_copy(update={"alternate_rubric_template": "Other: {rubric}"}),
    ]
    moved = [
        base.model_copy(update={"model": "m2"}),
        base.model_copy(update={"temperature": 0.7}),
        base.model_copy(update={"prompt_template": DEFAULT_PROMPT_TEMPLATE + "\nBe brief."}),
        base.model_copy(update={"system_prompt": "You are lenient."}),
        base.model_copy(update={"max_tokens": 16}),
    ]
    assert {config.fingerprint() for config in same} == {base.fingerprint()}
    assert len({config.fingerprint() for config in moved} | {base.fingerprint()}) == 6
