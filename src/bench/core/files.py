"""Reading structured input strictly: YAML (safe, no duplicate keys, no anchors) and JSON.

Every failure is an ``InputError`` naming the file (and line, where the parser knows it).
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import stat
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

MAX_INPUT_BYTES = 32 * 1024 * 1024
MERGE_TAG = "tag:yaml.org,2002:merge"
# Collections nested deeper are refused: PyYAML's own parser recurses (RecursionError near 300
# levels), libyaml stops at 1000; a task file nests about 8.
MAX_YAML_DEPTH = 100


# libyaml's parser when PyYAML was built with it (8x faster on task files). The two parsers
# differ (tabs, a '?' in a flow collection, escapes of surrogates, depth): what either refuses
# is refused on every machine (``_refuse_unportable``), so whether a task set is valid, and its
# content hash, never depend on which one this machine has (docs/ERRORS.md, YAML_INVALID).
_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeBase):  # type: ignore[misc]
    """SafeLoader that refuses duplicate keys and anchors/aliases."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG:  # ``<<:``, which no JSON reader knows either
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, "a merge key '<<' is not allowed: write the keys out", mark
            )
        key = loader.construct_object(key_node)
        if not isinstance(key, Hashable):  # ``? [a]`` or ``? {a: 1}``: no JSON object has one
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"a mapping key must be a scalar (line {mark.line + 1})", mark
            )
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (line {mark.line + 1})", mark
            )
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

# What follows builds the same values as ``yaml.load(text, Loader=_StrictLoader)`` in about
# 0.6x its CPU time (parsing the shipped tasks: 80 -> 47 ms; issue 19, bench_task_load.py).
# It is only ever used for a document it builds without any exception; for anything else the
# strict loader reads the text again, so every refusal keeps its words and line.

_STR, _MAP, _SEQ = (f"tag:yaml.org,2002:{name}" for name in ("str", "map", "seq"))


# _StrictLoader's resolver: its tables are Resolver's, and it has no path resolvers, so a node's
# tag is a pure function of (kind, value, implicit) (tests/core/test_files_yaml.py checks).
_RESOLVER = yaml.resolver.Resolver()


@functools.lru_cache(maxsize=4096)
def _resolve(kind: type[yaml.Node], value: str | None, implicit: Any) -> str:
    # Cached because libyaml calls back into Python for every node, and keys such as "type" or
    # "id" repeat throughout a task set.
    tag: str = _RESOLVER.resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
    return tag


class _CachedLoader(_StrictLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.resolve = _resolve
        # the flow collections (and any collection a constructor builds) ``_build`` met: what
        # ``_refuse_unportable`` looks into for a '?', without walking the whole document
        self.flows: list[yaml.Node] = []


class _Duplicate(Exception):
    """A mapping with fewer keys than key nodes: let the strict loader name the duplicate."""


class _Unportable(yaml.MarkedYAMLError):
    """What one of PyYAML's two parsers refuses or reads otherwise (``_refuse_unportable``)."""


class _TooDeep(Exception):
    """Collections nested deeper than ``MAX_YAML_DEPTH``."""


def _build(loader: _CachedLoader, node: yaml.Node, depth: int = 0) -> Any:
    # Strings, mappings and sequences directly (most of a task file); any other node through
    # the loader's own constructors. A tree: the text has no anchors (read_yaml checks first).
    kind, tag = node.__class__, node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
    elif depth >= MAX_YAML_DEPTH:
        raise _TooDeep
    elif node.flow_style or (tag != _MAP and tag != _SEQ):  # type: ignore[attr-defined]
        loader.flows.append(node)
    if kind is yaml.MappingNode:
        if tag == _MAP:
            depth += 1
            mapping = {
                _build(loader, key, depth): _build(loader, value, depth)
                for key, value in node.value
            }
            if len(mapping) != len(node.value):
                raise _Duplicate
            return mapping
    elif tag == _SEQ:
        depth += 1
        return [_build(loader, item, depth) for item in node.value]
    return loader.construct_object(node, deep=True)


_QUOTED = frozenset("\"'|>")  # a tab inside these is content, read alike by both parsers
_BARE_TAG = re.compile(r"(?<![^\s\[{,])!(?![^\s,\]}])")
_HEADER_COMMENT = re.compile(r"[|>][1-9+-]{0,2}#")
_TAB_PROBLEM = "a tab outside a quoted string or block scalar (indent and separate with spaces)"
_FLOW_PROBLEM = (
    "{} in a flow collection ([...] or {{...}}) outside a quoted string (quote the string, "
    "or write the collection in block style)"
)
_FLOW_MARK = re.compile(r"\?|:(?=[,\]}])")  # a '?', or a ':' glued to what ends a value
_TAB = re.compile("\t")


def _refuse_unportable(text: str, node: yaml.Node | None, flows: list[yaml.Node] | None) -> None:
    """Raise ``_Unportable`` for what one of PyYAML's two parsers (libyaml's, its own)
    refuses or reads otherwise (tests/core/test_faults_round16_yaml.py holds the cases). The
    rule, the same on every machine: a tab only inside a quoted string or a block scalar, and
    never in a line's indentation; no '?' (but a key's ``? ``) nor ':' right before ',', ']'
    or '}' in a flow collection outside a quoted string; no
    escaped surrogate (``"\\ud800"``); no bare ``!`` tag on an empty value; no comment
    glued to a block scalar's ``|`` or ``>``. ``flows``: the flow collections ``_build`` met
    (``None``: not known); the whole document is walked only for a text that holds a tab, a
    ``\\u`` escape, a bare ``!`` or such a comment (no shipped task file does)."""
    tabs = "\t" in text
    flowy = "[" in text or "{" in text
    questions = flowy and ("?" in text or ":," in text or ":]" in text or ":}" in text)
    rare = tabs or "\\u" in text or "\\U" in text
    rare = rare or ("!" in text and _BARE_TAG.search(text) is not None)
    rare = rare or _glued_comment(text)
    if node is None or not (rare or questions):
        return
    roots = [node] if rare or flows is None else flows
    quoted: list[tuple[int, int]] = []
    spans: list[tuple[int, int]] = []
    problems: list[tuple[int, str]] = []
    stack: list[tuple[yaml.Node, bool]] = [(root, False) for root in roots]
    while stack:
        item, in_flow = stack.pop()
        if isinstance(item, yaml.ScalarNode):
            _scalar_problems(text, item, quoted, problems)
            continue
        flow = bool(item.flow_style)  # type: ignore[attr-defined]
        if flow and not in_flow:
            spans.append((item.start_mark.index, item.end_mark.index))
        children = (
            item.value
            if isinstance(item, yaml.SequenceNode)
            else (child for pair in item.value for child in pair)
        )
        stack.extend((child, in_flow or flow) for child in children)

    def unquoted(at: int) -> bool:
        return not any(a <= at < b for a, b in quoted)

    def indentation(at: int) -> bool:  # even inside a block scalar
        return not text[text.rfind("\n", 0, at) + 1 : at].strip(" \t")

    if tabs:
        for match in _TAB.finditer(text):
            if indentation(match.start()) or unquoted(match.start()):
                problems.append((match.start(), _TAB_PROBLEM))
                break
    for start, end in spans if questions else ():
        for match in _FLOW_MARK.finditer(text, start, end):
            at = match.start()
            if unquoted(at) and (match.group() == ":" or not _key_indicator(text, at)):
                what = "a '?'" if match.group() == "?" else "a ':' right before ',', ']' or '}'"
                problems.append((at, _FLOW_PROBLEM.format(what)))
                break
    if problems:
        at, problem = min(problems)
        line = text.count("\n", 0, at)
        mark = yaml.Mark("<text>", at, line, at - text.rfind("\n", 0, at) - 1, None, 0)
        raise _Unportable(problem=problem, problem_mark=mark)


def _glued_comment(text: str) -> bool:
    """Whether a '#' follows a ``|`` or ``>`` (and its indicators) with no space: looked for
    from each '#', a few in a task file (a search for ``[|>]`` scans every character)."""
    at = text.find("#")
    while at >= 0:
        if _HEADER_COMMENT.search(text, max(0, at - 3), at + 1):
            return True
        at = text.find("#", at + 1)
    return False


def _key_indicator(text: str, at: int) -> bool:
    """The '?' at ``at`` starts an explicit key that is not empty (``{? '' : 1}``, as PyYAML
    writes an empty or a long key): both parsers read that alike."""
    before = text[max(0, at - 200) : at].rstrip(" \n")
    after = text[at + 1 : at + 2]
    return (
        before.endswith(("{", "[", ","))
        and after in (" ", "\n")
        and text[at + 1 :].lstrip(" \n")[:1] not in ("", ":", ",", "]", "}")
    )


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _scalar_problems(
    text: str, item: yaml.ScalarNode, quoted: list[tuple[int, int]], problems: list[tuple[int, str]]
) -> None:
    at = item.start_mark.index
    if item.style in _QUOTED:
        # a block scalar's content starts on the line after its header (``|-``)
        inner = text.find("\n", at) + 1 if item.style in "|>" else at
        quoted.append((inner or item.end_mark.index, item.end_mark.index))
    if item.style == '"' and any("\ud800" <= c <= "\udfff" for c in item.value):
        problems.append((at, "an escaped surrogate (\\ud800-\\udfff) is not a character"))
    elif not item.value and not item.style and text.startswith("!", at):
        problems.append((at, "a bare '!' tag on an empty value (write '' or null)"))
    elif item.style in ("|", ">") and _HEADER_COMMENT.search(text, at, _line_end(text, at)):
        problems.append(
            (at, "a comment right after a block scalar's indicator (a space before '#')")
        )


def _load(text: str) -> Any:
    """What ``yaml.load(text, Loader=_StrictLoader)`` returns, or the exception it raises,
    and refused where the other parser would read it otherwise (``_refuse_unportable``)."""
    loader = _CachedLoader(text)
    try:
        node = loader.get_single_node()
        value = None if node is None else _build(loader, node)
    except _TooDeep:
        raise
    except Exception:
        pass  # the strict loader, below, says what is wrong in its own words
    else:
        _refuse_unportable(text, node, loader.flows)
        return value
    finally:
        loader.dispose()
    value = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    loader = _StrictLoader(text)
    try:
        _refuse_unportable(text, loader.get_single_node(), None)
    finally:
        loader.dispose()
    return value


def _read_bounded(path: Path) -> bytes:
    """A regular file's bytes, refused unread when larger than ``MAX_INPUT_BYTES``. A FIFO is
    opened without waiting for a writer and refused, as is a device or a socket: reading one
    would block for ever (a FIFO) or never end (``/dev/zero``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                "not a regular file (a FIFO, socket or device): give a file",
                code="FILE_TYPE",
                path=path,
            )
        if info.st_size > MAX_INPUT_BYTES:
            raise InputError(
                f"larger than {MAX_INPUT_BYTES} bytes", code="FILE_TOO_LARGE", path=path
            )
        with open(fd, "rb", closefd=False) as stream:
            return stream.read(MAX_INPUT_BYTES + 1)
    finally:
        os.close(fd)


def _read_text(path: Path) -> str:
    try:
        data = _read_bounded(path)
    except FileNotFoundError:
        raise InputError("file not found", code="FILE_MISSING", path=path) from None
    except IsADirectoryError:
        raise InputError(
            "is a directory, expected a file", code="FILE_MISSING", path=path
        ) from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"larger than {MAX_INPUT_BYTES} bytes", code="FILE_TOO_LARGE", path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", code="FILE_ENCODING", path=path) from None


def read_yaml(path: Path) -> Any:
    text = _read_text(path)
    try:
        # An anchor is spelled '&name' and an alias '*name': text with neither has none, and
        # skips the event scan (a second parse of the whole file).
        if "&" in text or "*" in text:
            loader = _StrictLoader(text)
            try:
                if _has_alias(loader):
                    raise InputError(
                        "anchors and aliases are not allowed (nor a merge key '<<: *name'): "
                        "write the values out",
                        code="YAML_INVALID",
                        path=path,
                    )
            finally:
                loader.dispose()
        return _load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "nesting depth" in problem:  # libyaml's limit, said as PyYAML's parser's is
            where, problem = "", f"nested deeper than {MAX_YAML_DEPTH} levels"
        raise InputError(
            f"{where}malformed YAML: {problem}", code="YAML_INVALID", path=path
        ) from None
    except (_TooDeep, RecursionError):
        raise InputError(
            f"malformed YAML: nested deeper than {MAX_YAML_DEPTH} levels",
            code="YAML_INVALID",
            path=path,
        ) from None
    except (ValueError, TypeError, AttributeError, KeyError, OverflowError) as exc:
        # A value PyYAML's constructors fail on with a Python error, not a YAMLError:
        # ``2001-02-30`` (a date), ``!!timestamp x``, ``!!int 0x``, ``"\U00110000"``.
        raise InputError(
            f"malformed YAML: a value that cannot be read ({exc})",
            code="YAML_INVALID",
            path=path,
        ) from None


def _has_alias(loader: _StrictLoader) -> bool:
    while loader.check_event():
        event = loader.get_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return True
    return False


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key '{key}'")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} is not allowed")


def read_json(path: Path) -> Any:
    text = _read_text(path)
    return parse_json(text, path)


def parse_json(text: str, path: Path | str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"line {exc.lineno} column {exc.colno}: malformed JSON: {exc.msg}",
            code="JSON_INVALID",
            path=path,
        ) from None
    except ValueError as exc:
        raise InputError(f"malformed JSON: {exc}", code="JSON_INVALID", path=path) from None
    except RecursionError:
        # json's decoder recurses once per nested array or object (``[[[[...``); libyaml
        # refuses the same input as "exceeded maximum nesting depth".
        raise InputError(
            "malformed JSON: nested too deeply", code="JSON_INVALID", path=path
        ) from None


def read_structured(path: Path) -> Any:
    """YAML for ``.yaml``/``.yml``, JSON for ``.json``."""
    if path.suffix in {".yaml", ".yml"}:
        return read_yaml(path)
    if path.suffix == ".json":
        return read_json(path)
    raise InputError("expected a .yaml, .yml or .json file", code="FILE_TYPE", path=path)


__all__ = ["parse_json", "read_json", "read_structured", "read_yaml"]
