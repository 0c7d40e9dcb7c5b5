"""BFCL function docs as the JSON Schemas BFCL's own OpenAI handler sends.

Ports of ``convert_to_tool`` / ``_cast_to_openai_type`` (``bfcl_eval/model_handler/utils.py``)
and ``_func_doc_language_specific_pre_processing`` (``bfcl_eval/utils.py``), bfcl-eval
2026.3.23, Apache-2.0: ``.`` in names → ``_``; ``dict`` → object, ``float`` → number with
``format: float``, ``tuple`` → array, ``any`` → string; Java and JavaScript parameters become
strings with their type in the description. BFCL's own type is kept beside the JSON Schema type
(``x-bfcl-type``, ``x-bfcl-items``) for the ``calls`` check.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from .astmatch import ORIGINAL_ITEMS, ORIGINAL_TYPE

GORILLA_TO_OPENAPI: dict[str, str] = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "double": "number",
    "char": "string",
    "ArrayList": "array",
    "Array": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "Queue": "array",
    "Stack": "array",
    "Any": "string",
    "String": "string",
    "Bigint": "integer",
}
"""``bfcl_eval/constants/type_mappings.py``, as BFCL's OpenAI handler uses it."""

NO_RESULT = {
    "note": "a BFCL single-turn case: the call is recorded and scored, no result is simulated"
}
_HINTS = {
    "python": " Note that the provided function is in Python 3 syntax.",
    "java": " Note that the provided function is in Java 8 SDK syntax.",
    "javascript": " Note that the provided function is in JavaScript syntax.",
}
_LANGUAGE_NAMES = {"java": "Java", "javascript": "JavaScript"}


def tool_name(name: str) -> str:
    """BFCL's OpenAI handler: ``.`` in a function name becomes ``_``."""
    return name.replace(".", "_")


def tool_spec(function: Mapping[str, Any], language: str) -> dict[str, Any]:
    """One BFCL function doc as a task tool: BFCL's language pre-processing, then the schema
    its OpenAI handler sends, with BFCL's own types kept for the checker."""
    item = copy.deepcopy(dict(function))
    parameters = item.get("parameters") or {}
    properties = parameters.get("properties") or {}
    originals = {
        key: (value.get("type"), (value.get("items") or {}).get("type"))
        for key, value in properties.items()
    }
    item["description"] = str(item.get("description", "")) + _HINTS[language]
    if language != "python":
        _as_strings(properties, language)
    parameters["type"] = "object"
    parameters["properties"] = _cast(properties)
    for key, (kind, items) in originals.items():
        if isinstance(kind, str):
            parameters["properties"][key][ORIGINAL_TYPE] = kind
        if isinstance(items, str):
            parameters["properties"][key][ORIGINAL_ITEMS] = items
    return {
        "name": tool_name(str(item["name"])),
        "description": item["description"],
        "parameters": parameters,
        "kind": "read",
        "default": NO_RESULT,
    }


def _as_strings(properties: dict[str, Any], language: str) -> None:
    """``_func_doc_language_specific_pre_processing``: every argument a string literal."""
    name = _LANGUAGE_NAMES[language]
    for value in properties.values():
        value.setdefault("description", "")
        if value.get("type") == "any":
            value["description"] += (
                f" This parameter can be of any type of {name} object in string representation."
            )
        else:
            value["description"] += (
                f" This is {name} {value.get('type')} type parameter in string representation."
            )
        list_types = ("ArrayList", "Array") if language == "java" else ("array",)
        if value.get("type") in list_types and "items" in value:
            value["description"] += (
                f" The list elements are of type {value['items'].get('type')}; "
                "they are not in string representation."
            )
            del value["items"]
        if language == "javascript" and value.get("type") == "dict" and "properties" in value:
            value["description"] += (
                " The dictionary entries have the following schema; they are not in string "
                f"representation. {json.dumps(value['properties'])}"
            )
            del value["properties"]
        value["type"] = "string"


def _cast(properties: dict[str, Any]) -> dict[str, Any]:
    """``_cast_to_openai_type`` with ``GORILLA_TO_OPENAPI``."""
    for value in properties.values():
        kind = value.get("type")
        if kind == "float":
            value["format"] = "float"
            value["description"] = value.get("description", "") + " This is a float type value."
        value["type"] = (
            GORILLA_TO_OPENAPI.get(kind, "string") if isinstance(kind, str) else "string"
        )
        if value["type"] in ("array", "object"):
            if "properties" in value:
                value["properties"] = _cast(value["properties"])
            elif isinstance(value.get("items"), dict):
                items = value["items"]
                items["type"] = GORILLA_TO_OPENAPI.get(str(items.get("type")), "string")
                inner = items.get("items")
                if items["type"] == "array" and isinstance(inner, dict):
                    inner["type"] = GORILLA_TO_OPENAPI.get(str(inner.get("type")), "string")
                elif items["type"] == "object" and isinstance(items.get("properties"), dict):
                    items["properties"] = _cast(items["properties"])
    return properties


__all__ = ["GORILLA_TO_OPENAPI", "NO_RESULT", "tool_name", "tool_spec"]
