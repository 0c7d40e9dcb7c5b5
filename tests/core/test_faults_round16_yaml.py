"""A task file's validity may not depend on the machine (helper F16): PyYAML reads YAML with
libyaml's parser where it was built with it, and with its own parser elsewhere, and the two
differ (a '?' in a flow collection, tabs, escaped surrogates, a bare '!' tag, a comment glued
to a block scalar's '|', deep nesting). What either refuses is refused on both, with one code;
what both accept reads as the same value. PyYAML's constructors' own errors (a date such as
2001-02-30) were tracebacks on both."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core import files
from bench.core.errors import InputError

REPO = Path(__file__).resolve().parents[2]
HAS_LIBYAML = hasattr(yaml, "CSafeLoader")


def _pure_files() -> ModuleType:
    """``bench.core.files`` as a machine without libyaml imports it."""
    saved = getattr(yaml, "CSafeLoader", None)
    if saved is not None:
        del yaml.CSafeLoader
    try:
        spec = importlib.util.spec_from_file_location("bench.core._files_pure", files.__file__)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is not None:
            yaml.CSafeLoader = saved
    assert module._SafeBase is yaml.SafeLoader
    return module


PURE = _pure_files()
LOADERS = [
    pytest.param(PURE, id="pyyaml"),
    pytest.param(
        files,
        id="libyaml",
        marks=pytest.mark.skipif(not HAS_LIBYAML, reason="PyYAML without libyaml here"),
    ),
]
REFUSED = "refused"

# (text, what both read: a value, or REFUSED). The comment says which parser read it before.
CASES: list[tuple[str, Any]] = [
    ("{a: x?}\n", REFUSED),  # libyaml: {'a': 'x?'}; PyYAML: refused
    ("q: {text: Where is it?, n: 1}\n", REFUSED),  # the same, as a task would write it
    ("[a, x?]\n", REFUSED),  # libyaml: ['a', 'x?']
    ("[?, a]\n", REFUSED),  # PyYAML: [{None: None}, 'a']; libyaml: refused
    ("[? : 1]\n", REFUSED),  # PyYAML: [{None: 1}]
    ("a: {x: '?', y: \"z?\"}\n", {"a": {"x": "?", "y": "z?"}}),  # quoted: read alike
    ("{? '' : 1, ? b : 2}\n", {"": 1, "b": 2}),  # explicit keys, as PyYAML writes them
    ("a: where? here\n", {"a": "where? here"}),  # block context: no question
    ("a:\t1\n", REFUSED),  # libyaml: {'a': 1}
    ("a: b\tc\n", REFUSED),  # libyaml: {'a': 'b\tc'}
    ("a: 1\t# note\n", REFUSED),  # libyaml: {'a': 1}
    ("{a:\t1}\n", REFUSED),  # libyaml: {'a': 1}
    ("a: |\n  \tx\n", REFUSED),  # PyYAML: {'a': '\tx\n'}; libyaml: refused
    ("a: |\t\n  x\n", REFUSED),  # libyaml: {'a': 'x\n'}
    ('a: "x\ty"\n', {"a": "x\ty"}),  # a tab in a quoted string: read alike
    ("a: |\n  x\ty\n", {"a": "x\ty\n"}),  # and in a block scalar's content
    ('a: "\\ud800"\n', REFUSED),  # PyYAML: a lone surrogate (no UTF-8 for the hash)
    ('a: "\\ud83d\\ude00"\n', REFUSED),  # PyYAML: two lone surrogates
    ('a: "\\U0001F600"\n', {"a": "\U0001f600"}),
    ('a: "\\U00110000"\n', REFUSED),  # PyYAML: ValueError (a traceback)
    ("a: !\nb: 1\n", REFUSED),  # PyYAML: {'a': None}; libyaml: {'a': ''}
    ("[!, b]\n", REFUSED),  # PyYAML: the tag '!,' on 'b'; libyaml: ['', 'b']
    ("a: Hello! there\n", {"a": "Hello! there"}),
    ("a: |#c\n  x\n", REFUSED),  # libyaml: {'a': 'x\n'}
    ("a: !!str >#c\n  x\n", REFUSED),  # libyaml: {'a': 'x\n'}, the tag before it
    ("a: | #c\n  x\n", {"a": "x\n"}),
    ("a: !!set {x?}\n", REFUSED),  # a collection a constructor builds is looked into too
    ("[" * 101 + "]" * 101 + "\n", REFUSED),  # deeper than MAX_YAML_DEPTH
    ("[" * 100 + "]" * 100 + "\n", "nested 100"),  # MAX_YAML_DEPTH itself is read
    ("[" * 400 + "]" * 400 + "\n", REFUSED),  # PyYAML: RecursionError (a traceback)
    ("{a: " * 1200 + "1" + "}" * 1200 + "\n", REFUSED),  # libyaml's own limit
    ("a: 2001-02-30\n", REFUSED),  # both: ValueError (a traceback)
    ("a: !!timestamp x\n", REFUSED),  # both: AttributeError
    ("a: !!bool maybe\n", REFUSED),  # both: KeyError
    ("a: !!int 0x\n", REFUSED),  # both: ValueError
    ("a: !!python/object/apply:os.system [true]\n", REFUSED),
    ("a: !!python/name:os.system\n", REFUSED),
    ("a: !<tag:yaml.org,2002:python/none> x\n", REFUSED),
    ("a: {x: 1}\nb:\n  <<: {x: 2}\n", REFUSED),
    ("a: 1\na: 2\n", REFUSED),
    ("{a:}\n", REFUSED),  # PyYAML: {'a': None}; libyaml: refused
    ("[? a:, b]\n", REFUSED),  # PyYAML: [{'a': None}, 'b']
    ("{a: 1, b: [c: ]}\n", {"a": 1, "b": [{"c": None}]}),
    ("{url: 'http://x:80'}\n", {"url": "http://x:80"}),
]


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


CASES = [(text, _nested(100) if want == "nested 100" else want) for text, want in CASES]


def _outcome(module: ModuleType, path: Path, text: str) -> Any:
    path.write_text(text, encoding="utf-8")
    try:
        return module.read_yaml(path)
    except InputError as exc:
        assert exc.code == "YAML_INVALID", exc
        assert str(path) in str(exc)
        return REFUSED


@pytest.mark.parametrize("module", LOADERS)
@pytest.mark.parametrize(("text", "expected"), CASES, ids=[repr(c[0])[:30] for c in CASES])
def test_either_parser_reads_the_same_or_refuses_alike(
    module: ModuleType, text: str, expected: Any, tmp_path: Path
) -> None:
    assert _outcome(module, tmp_path / "t.yaml", text) == expected


@pytest.mark.parametrize("module", LOADERS)
def test_a_refusal_names_the_line_and_what_to_write(module: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text("tasks:\n  - id: a\n    ask: {text: Where is it?}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        module.read_yaml(path)
    assert info.value.code == "YAML_INVALID"
    # the same line and code on both; in words of its own where the parser itself refused
    assert info.value.message.startswith("line 3: malformed YAML: ")
    if module is files and HAS_LIBYAML:
        assert "a '?' in a flow collection" in info.value.message
    path.write_text("a: 1\nb:\t2\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        module.read_yaml(path)
    assert info.value.message.startswith("line 2: malformed YAML: ")
    if module is files and HAS_LIBYAML:
        assert "a tab outside a quoted string" in info.value.message


@pytest.mark.skipif(not HAS_LIBYAML, reason="PyYAML without libyaml here")
def test_the_shipped_task_set_reads_alike_with_either_parser() -> None:
    paths = sorted((REPO / "tasks").glob("*.yaml"))
    assert paths
    for path in paths:
        assert PURE.read_yaml(path) == files.read_yaml(path), path


def test_task_validate_says_a_bad_date_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.cli.main import main

    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "t.yaml").write_text("tasks:\n  - id: a\n    when: 2001-02-30\n", encoding="utf-8")
    try:
        status = main(["task", "validate", str(tasks)])
    except SystemExit as stop:
        status = stop.code
    err = capsys.readouterr().err
    assert status == 3
    assert err.startswith("error[YAML_INVALID]: ") and "Traceback" not in err
    assert str(tasks / "t.yaml") in err and "day is out of range for month" in err


PIECES = ["\n", "\n  ", "\n- ", "a: ", "? ", "?", ": ", ":", ",", "[", "]", "{", "}", "- ",
          "#", "\t", " ", "a", "1", "'", '"', "|", ">", "!", "!!str ", "\\u", "\\ud800",
          "é"]  # fmt: skip


@pytest.mark.skipif(not HAS_LIBYAML, reason="PyYAML without libyaml here")
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_any_text_reads_alike_with_either_parser(text: str) -> None:
    outcomes = []
    for module in (PURE, files):
        try:
            outcomes.append(("value", module._load(text)))
        except yaml.YAMLError:
            outcomes.append(("refused", None))
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
            outcomes.append(("refused", None))  # read_yaml says these as YAML_INVALID too
    assert outcomes[0] == outcomes[1], text
