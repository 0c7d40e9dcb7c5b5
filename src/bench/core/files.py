"""Reading structured input strictly: YAML (safe, no duplicate keys, no anchors) and JSON.

Every failure is an ``InputError`` naming the file (and line, where the parser knows it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

MAX_INPUT_BYTES = 32 * 1024 * 1024


# libyaml's parser when PyYAML was built with it (14x faster on task files); same semantics.
_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeBase):  # type: ignore[misc]
    """SafeLoader that refuses duplicate keys and anchors/aliases."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (line {mark.line + 1})", mark
            )
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
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
                        "anchors and aliases are not allowed", code="YAML_INVALID", path=path
                    )
            finally:
                loader.dispose()
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(
            f"{where}malformed YAML: {problem}", code="YAML_INVALID", path=path
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


def read_structured(path: Path) -> Any:
    """YAML for ``.yaml``/``.yml``, JSON for ``.json``."""
    if path.suffix in {".yaml", ".yml"}:
        return read_yaml(path)
    if path.suffix == ".json":
        return read_json(path)
    raise InputError("expected a .yaml, .yml or .json file", code="FILE_TYPE", path=path)


__all__ = ["parse_json", "read_json", "read_structured", "read_yaml"]
