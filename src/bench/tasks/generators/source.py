"""Reading generator data: strict YAML, and the line each datum starts on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bench.core.files import read_yaml

from .errors import GeneratorError

DATA_DIR = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Datum:
    """One item of a data file: its mapping, the file and the line it starts on."""

    data: dict[str, Any]
    path: Path
    line: int

    @property
    def id(self) -> str:
        value = self.data.get("id")
        return value if isinstance(value, str) else "?"

    def fail(self, message: str, code: str = "GEN_DATA_INVALID") -> GeneratorError:
        return GeneratorError(message, code=code, path=self.path, line=self.line, datum=self.id)

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        """``data[key]`` checked against ``kind``; missing without a default is refused."""
        if key not in self.data:
            if default is ...:
                raise self.fail(f"missing field '{key}'")
            return default
        value = self.data[key]
        if not isinstance(value, kind):
            raise self.fail(f"field '{key}' has the wrong type ({type(value).__name__})")
        return value

    def child(self, key: str) -> Datum:
        """A nested mapping as its own datum (same line: the datum's start)."""
        value = self.get(key, dict)
        merged = {"id": self.id, **value}
        return Datum(merged, self.path, self.line)


def _node_lines(text: str, key: str, subkey: str | None) -> list[int]:
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(root, yaml.MappingNode):
        return []
    for key_node, value_node in root.value:
        if key_node.value != key:
            continue
        if subkey is not None and isinstance(value_node, yaml.MappingNode):
            for inner_key, inner_value in value_node.value:
                if inner_key.value == subkey:
                    value_node = inner_value
                    break
        if isinstance(value_node, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value_node.value]
    return []


def load_list(path: Path, key: str, subkey: str | None = None) -> list[Datum]:
    """The items of the list at ``key`` (or ``key.subkey``), each with its line."""
    raw = read_yaml(path)
    container = raw.get(key) if isinstance(raw, dict) else None
    if subkey is not None:
        container = container.get(subkey) if isinstance(container, dict) else None
    if not isinstance(container, list):
        where = f"{key}.{subkey}" if subkey else key
        raise GeneratorError(f"expected a list at '{where}'", code="GEN_DATA_INVALID", path=path)
    lines = _node_lines(path.read_text(encoding="utf-8"), key, subkey)
    data: list[Datum] = []
    for index, item in enumerate(container):
        line = lines[index] if index < len(lines) else 1
        if not isinstance(item, dict):
            raise GeneratorError(
                "each datum is a mapping", code="GEN_DATA_INVALID", path=path, line=line
            )
        datum = Datum(item, path, line)
        if not isinstance(item.get("id"), str) and subkey is None:
            raise datum.fail("missing field 'id'")
        data.append(datum)
    return data


def load_mapping(path: Path, key: str) -> Datum:
    raw = read_yaml(path)
    value = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(value, dict):
        raise GeneratorError(f"expected a mapping at '{key}'", code="GEN_DATA_INVALID", path=path)
    text = path.read_text(encoding="utf-8")
    line = 1
    for number, row in enumerate(text.splitlines(), start=1):
        if row.startswith(f"{key}:"):
            line = number
            break
    return Datum(value, path, line)


__all__ = ["DATA_DIR", "Datum", "load_list", "load_mapping"]
