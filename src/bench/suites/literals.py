"""Reading Java and JavaScript argument strings the way BFCL's checker reads them.

In BFCL's Java and JavaScript categories every argument is sent as a string in the language's
own syntax (``"5L"``, ``"new int[]{1, 2}"``, ``"{key: 'v'}"``) and the checker turns it into a
Python value before comparing. These are ports of ``java_type_converter`` and
``js_type_converter`` from ``bfcl_eval/eval_checker/ast_eval/type_convertor/`` (bfcl-eval
2026.3.23, Apache-2.0, Berkeley Function Calling Leaderboard), quirks included, because
agreeing with that checker is the point (docs/SUITES.md): a string that does not parse stays a
string, and ``new String[]{"a"}`` keeps its quotes while ``Arrays.asList("a")`` drops them.
"""

from __future__ import annotations

import re
from typing import Any

JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}

JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

_JAVA_FLOAT = r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$"


class Unsupported(ValueError):
    """BFCL's checker has no conversion for this declared type (it would raise too)."""


def java_value(value: str, declared: str, nested: str | None = None) -> Any:
    """``value`` read as a Java literal of ``declared`` type (``java_type_converter``)."""
    if declared not in JAVA_TYPES:
        raise Unsupported(f"unsupported Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(value) if re.match(r"^-?\d+$", value) else value
    if declared == "float":
        return float(re.sub(r"[fF]$", "", value)) if re.match(_JAVA_FLOAT, value) else value
    if declared == "double":
        return float(value) if re.match(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$", value) else value
    if declared == "long":
        return int(re.sub(r"[lL]$", "", value)) if re.match(r"^-?\d+[lL]$", value) else value
    if declared == "boolean":
        return value == "true" if value in ("true", "false") else value
    if declared in ("char", "String", "any"):
        return value
    if declared == "ArrayList":
        return _java_arraylist(value, nested)
    if declared == "Array":
        return _java_array(value, nested)
    if declared == "HashMap":
        return _java_hashmap(value)
    raise Unsupported(f"BFCL does not convert Java {declared}")


def _java_element(text: str, nested: str | None) -> Any:
    if nested in ("char", "String"):
        return text[1:-1]
    return java_value(text, nested) if nested else java_literal(text)


def _java_arraylist(text: str, nested: str | None) -> Any:
    found = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if found:
        return [_java_element(part.strip(), nested) for part in found.group(1).split(",")]
    found = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.DOTALL)
    if found:
        adds = re.findall(r"add\((.+?)\)", found.group(1))
        return [_java_element(part.strip(), nested) for part in adds]
    if re.search(r"new\s+ArrayList<\w*>\(\)", text):
        return []
    return text


def _java_array(text: str, nested: str | None) -> Any:
    found = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not found:
        return text
    parts = [part.strip() for part in found.group(1).split(",") if part.strip()]
    if nested:
        return [java_value(part, nested) for part in parts]
    return [java_literal(part) for part in parts]


def _java_hashmap(text: str) -> Any:
    found = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.DOTALL)
    if found:
        entries: dict[str, Any] = {}
        if found.group(1).strip():
            for key, item in re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", found.group(1)):
                entries[key] = java_literal(item.strip())
        return entries
    if re.search(r"new\s+HashMap<.*?>\s*\(\)", text):
        return {}
    return text


def java_literal(text: str) -> Any:
    """An untyped Java literal (``parse_java_value``)."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if re.match(r"^-?\d+[lL]$", text):
        return int(text[:-1])
    if re.match(_JAVA_FLOAT, text):
        return float(re.sub(r"[fF]$", "", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(value: str, declared: str, nested: str | None = None) -> Any:
    """``value`` read as a JavaScript literal of ``declared`` type (``js_type_converter``)."""
    if declared not in JS_TYPES:
        raise Unsupported(f"unsupported JavaScript type {declared!r}")
    if declared == "String":
        quoted = (value.startswith('"') and value.endswith('"')) or (
            value.startswith("'") and value.endswith("'")
        )
        return value[1:-1] if quoted else value
    if declared == "integer":
        return int(value) if re.match(r"^-?\d+$", value) else value
    if declared == "float":
        return float(value) if re.match(r"^-?\d+(\.\d+)?$", value) else value
    if declared == "Bigint":
        return int(value[:-1]) if re.match(r"^-?\d+n$", value) else value
    if declared == "Boolean":
        return value == "true" if value in ("true", "false") else value
    if declared == "dict":
        return _js_dict(value.strip())
    if declared == "array":
        try:
            return _js_array(value.strip(), nested)
        except Exception:  # BFCL's converter returns the text on any failure here
            return value.strip()
    return value


_JS_2D = r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"


def _js_array(code: str, nested: str | None) -> Any:
    if re.match(_JS_2D, code):
        inner = re.findall(r"\[(.*?)\]", re.match(_JS_2D, code).group(0))  # type: ignore[union-attr]
        rows: list[Any] = []
        for index, row in enumerate(inner):
            row = row.strip()
            if index == 0 and row.startswith("["):
                row = row[1:]
            rows.append([js_literal(part.strip()) for part in row.split(",")])
        return rows
    found = re.match(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)", code)
    if not found:
        return code
    body = found.group(1) if found.group(1) is not None else found.group(2)
    body = (body or "").strip()
    parts = body.split(",") if body else []
    if nested:
        return [
            js_value(part.strip(), nested, "String")
            if part.strip().startswith(("'", '"'))
            else js_value(part.strip(), nested)
            for part in parts
        ]
    return [js_literal(part.strip()) for part in parts]


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    found = re.match(r"\{(.*?)\}", code)
    if not found:
        return code
    try:
        entries: dict[str, Any] = {}
        for key, item in re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", found.group(1)):
            key, item = key.strip().strip("'\""), item.strip()
            if item.startswith("[") and item.endswith("]"):
                entries[key] = _js_array_or_text(item)
            elif item.startswith("{") and item.endswith("}"):
                entries[key] = _js_dict(item)
            else:
                entries[key] = js_literal(item.strip("'\""))
        return entries
    except Exception:  # as BFCL: an unparseable object stays text
        return code


def _js_array_or_text(code: str) -> Any:
    try:
        return _js_array(code.strip(), None)
    except Exception:
        return code.strip()


def js_literal(text: str) -> Any:
    """An untyped JavaScript literal (``parse_js_value``)."""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return _number_or_text(text)


__all__ = [
    "JAVA_TYPES",
    "JS_TYPES",
    "Unsupported",
    "java_literal",
    "java_value",
    "js_literal",
    "js_value",
]
