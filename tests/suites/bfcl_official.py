"""BFCL's own checker over cases read from stdin; run by the pinned bfcl-eval venv, not pytest.

One JSON object per input line: ``key``, ``category``, ``functions`` (BFCL's function docs as
the data file has them), ``answer`` (the possible answer, None for (ir)relevance) and
``output`` (the decoded calls, ``[{name: arguments}, ...]``, names as an OpenAI-style model
sends them: ``.`` → ``_``), or instead ``raw``: a real model's response as BFCL's OpenAI
function-calling handler records it (``[{name: arguments string}, ...]``, or the message
content when no tool was called), decoded here as that handler and the evaluator do (a decode
failure: no call for (ir)relevance, ``ast_decoder:decoder_failed`` otherwise). One line out per
case: ``{"key", "valid", "error"}``.

The checker module imports ``bfcl_eval.constants.model_config`` only for
``MODEL_CONFIG_MAPPING[name].underscore_to_dot``; that module imports every model handler (and
their SDKs), so it is replaced by one entry saying what BFCL says of its OpenAI FC models:
``underscore_to_dot=True``. Nothing else is stubbed. Relevance and irrelevance use
``bfcl_eval.utils.is_empty_output``, as ``_evaluate_single_relevance_entry`` does.
"""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass

MODEL = "bench-fc"


@dataclass
class _Config:
    underscore_to_dot: bool = True


stub = types.ModuleType("bfcl_eval.constants.model_config")
stub.MODEL_CONFIG_MAPPING = {MODEL: _Config()}  # type: ignore[attr-defined]
sys.modules["bfcl_eval.constants.model_config"] = stub

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output  # noqa: E402


def _language(category: str) -> Language:
    if "java" in category and "javascript" not in category:
        return Language.JAVA
    if "javascript" in category:
        return Language.JAVASCRIPT
    return Language.PYTHON


def decode_fc(result: object) -> list:
    """``OpenAICompletionsHandler.decode_ast`` for a function-calling model (bfcl_eval/
    model_handler/api_inference/openai_completion.py), copied because importing the handler
    needs the openai SDK: ``result`` is what the handler recorded, ``[{name: arguments
    string}, ...]`` when the model called tools, else the message content; it raises when that
    is not a list of calls with JSON arguments."""
    decoded = []
    for invoked_function in result:  # type: ignore[attr-defined]
        name = list(invoked_function.keys())[0]
        params = json.loads(invoked_function[name])
        decoded.append({name: params})
    return decoded


def check(case: dict) -> dict:
    category = case["category"]
    if "raw" in case:  # a model's response as BFCL's handler records it: decode it first
        try:
            output = decode_fc(case["raw"])
        except Exception as exc:  # the evaluator's own except: not a valid call format
            if "relevance" in category:
                valid = "irrelevance" in category
                return {"valid": valid, "error": None if valid else "relevance rule"}
            return {"valid": False, "error": f"ast_decoder:decoder_failed ({exc})"}
    else:
        output = case["output"]
    if "relevance" in category:  # irrelevance and live_relevance
        called = not is_empty_output(output)
        valid = not called if "irrelevance" in category else called
        return {"valid": valid, "error": None if valid else "relevance rule"}
    if not is_function_calling_format_output(output):
        return {"valid": False, "error": "ast_decoder:decoder_wrong_output_format"}
    try:
        result = ast_checker(
            case["functions"], output, case["answer"], _language(category), category, MODEL
        )
    except Exception as exc:  # the official checker crashed: the case is not passed
        return {"valid": False, "error": f"checker raised {type(exc).__name__}: {exc}"}
    return {"valid": bool(result["valid"]), "error": result.get("error_type")}


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            case = json.loads(line)
            sys.stdout.write(json.dumps({"key": case["key"], **check(case)}) + "\n")


if __name__ == "__main__":
    main()
