"""Strict YAML reading (bench.core.files): the fast builder gives what the strict loader gives,
and every refusal keeps its code, words and line (issue 19)."""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core import files
from bench.core.errors import InputError

REPO = Path(__file__).resolve().parents[2]


def typed(value: Any) -> Any:
    """``value`` with every type spelled out, so that 1, 1.0 and True differ, and NaN equals NaN."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def strict(text: str) -> Any:
    """The reference: PyYAML's own construction with the strict loader."""
    return yaml.load(text, Loader=files._StrictLoader)  # noqa: S506 - a SafeLoader subclass


REFUSED = [
    ("a: 1\nb: 2\na: 3\n", "line 3: malformed YAML: duplicate key 'a' (line 3)"),
    ("a:\n  b:\n    c: 1\n    c: 2\n", "line 4: malformed YAML: duplicate key 'c' (line 4)"),
    (
        "tasks:\n  - id: x\n    tools:\n      - name: t\n        name: u\n",
        "line 5: malformed YAML: duplicate key 'name' (line 5)",
    ),
    # the keys of a mapping are checked before its values are built, as before
    ("a: {x: 1, x: 2}\na: 3\n", "line 2: malformed YAML: duplicate key 'a' (line 2)"),
    ("1: a\n1.0: b\n", "line 2: malformed YAML: duplicate key '1.0' (line 2)"),
    ("true: a\n1: b\n", "line 2: malformed YAML: duplicate key '1' (line 2)"),
    ("a: '*x* & y'\nb: 1\nb: 2\n", "line 3: malformed YAML: duplicate key 'b' (line 3)"),
    (
        "a: &x 1\nb: *x\n",
        "anchors and aliases are not allowed (nor a merge key '<<: *name'): write the values out",
    ),
    (
        "a: &x 1\n",
        "anchors and aliases are not allowed (nor a merge key '<<: *name'): write the values out",
    ),
    # a merge key said in words (it was "could not determine a constructor for the tag
    # 'tag:yaml.org,2002:merge'")
    (
        "a: 1\n<<: {b: 2}\n",
        "line 2: malformed YAML: a merge key '<<' is not allowed: write the keys out",
    ),
    ("a: [unclosed\n", "line 2: malformed YAML: did not find expected ',' or ']'"),
    # a key no JSON object can have: a clear error, not a TypeError's traceback
    ("? [a]\n: 1\n", "line 1: malformed YAML: a mapping key must be a scalar (line 1)"),
    ("x:\n  ? {a: 1}\n  : 2\n", "line 2: malformed YAML: a mapping key must be a scalar (line 2)"),
    ("a: 1\n---\nb: 2\n", "line 2: malformed YAML: but found another document"),
    ("a: !!str {b: 1}\n", "line 1: malformed YAML: expected a scalar node, but found mapping"),
    (
        "a: !!python/object:os.system x\n",
        "line 1: malformed YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object:os.system'",
    ),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_refusals_keep_code_words_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        files.read_yaml(path)
    assert info.value.code == "YAML_INVALID"
    assert info.value.message == message
    assert str(info.value).startswith(f"{path}: ")


ACCEPTED = [
    "",
    "hello\n",
    "- 1\n- 1\n",
    "a: 1\nb: 1.5\nc: true\nd: null\ne: 2026-07-14\nf: '1'\ng: !!str 2\nh: .nan\n"
    "i: [1, [2, {m: ~}]]\nj: 0x1F\nk: 1_000\nl: !!binary aGk=\nm: ''\n",
    "a: !!set {x, y}\nb: !!omap [{k: 1}]\nc: !!pairs [{k: 1}, {k: 2}]\n",
    "? !!int '3'\n: three\n'3': string three\nnull: n\n",
    "a: !!map {b: !!seq [c]}\n",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_values_are_those_of_the_strict_loader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    assert typed(files.read_yaml(path)) == typed(strict(text))


def test_shipped_task_files_read_as_the_strict_loader_reads_them() -> None:
    paths = sorted((REPO / "tasks").glob("*.yaml"))
    assert paths
    for path in paths:
        assert typed(files.read_yaml(path)) == typed(strict(path.read_text())), path


def test_a_date_is_still_a_date() -> None:
    assert files._load("d: 2026-07-14\n") == {"d": datetime.date(2026, 7, 14)}


def test_the_cached_resolver_is_the_strict_loaders() -> None:
    # _resolve assumes a node's tag depends on (kind, value, implicit) alone
    assert files._StrictLoader.yaml_path_resolvers == {}
    assert (
        files._StrictLoader.yaml_implicit_resolvers
        is yaml.resolver.Resolver.yaml_implicit_resolvers
    )


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["1", "true", "null", "~", "2026-07-14", "1e3", "0x10", ".inf", "=", "<<"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans())
def test_any_dumped_value_reads_back_as_the_strict_loader_reads_it(value: Any, flow: bool) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True)
    assert typed(files._load(text)) == typed(strict(text))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab:{}[], -\n'\"&*!?#=<1.", max_size=40))
def test_any_text_gives_the_strict_loaders_value_or_error(text: str) -> None:
    try:
        expected: Any = ("value", typed(strict(text)))
    except Exception as exc:
        expected = ("error", type(exc), str(exc))
    try:
        got: Any = ("value", typed(files._load(text)))
    except files._Unportable:
        return  # refused on every machine: PyYAML's other parser refuses or reads it otherwise
    except Exception as exc:
        got = ("error", type(exc), str(exc))
    assert got == expected


@pytest.mark.parametrize("text", ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000])
def test_json_nested_past_the_decoders_depth_is_json_invalid(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        files.read_json(path)
    assert info.value.code == "JSON_INVALID"
    assert info.value.path == str(path)
    assert "nested too deeply" in info.value.message


def test_yaml_nested_past_the_parsers_depth_is_yaml_invalid(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(InputError) as info:
        files.read_yaml(path)
    assert info.value.code == "YAML_INVALID"
    assert info.value.path == str(path)
