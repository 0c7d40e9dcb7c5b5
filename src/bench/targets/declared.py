"""What an inference server declares about the model it serves: version, context window and
quantisation, read from the answers ``bench probe`` collects. Declarations only: nothing is
guessed from a port, a model name or timing, and what is not declared stays ``None``.

Where each engine says it (first declaration found wins, in this order):

* version — ``/version`` (vLLM), ``/api/version`` (Ollama), ``/info`` (TGI), ``/health``,
  ``/props`` ``build_info`` (llama.cpp), then a ``Server`` header naming the engine
  (``bench-mock/1``, not a proxy's ``nginx/1.25``);
* context window — the served model's ``/v1/models`` entry (``max_model_len`` in vLLM,
  ``context_length``/``max_context_length``, llama.cpp's ``meta.n_ctx_train``), ``/props``
  ``default_generation_settings.n_ctx``, ``/info`` ``max_total_tokens`` (TGI);
* quantisation — the model entry's ``quantization``, ``/api/tags`` ``details.quantization_level``
  (Ollama), ``/info`` ``quantize`` (TGI), ``/health`` ``quantization``, and the GGUF type in
  ``/props`` ``model_path`` (llama.cpp, e.g. ``Q4_K_M``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from bench.core.text import FORBIDDEN_CATEGORIES


class Answer(Protocol):
    """What a probe keeps of one answer (an httpx response has the same three)."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def content(self) -> bytes: ...


@dataclass(frozen=True)
class Answered:
    """One answer to a probe's GET: its status, its headers (names case-insensitive) and the
    first bytes of its body."""

    status_code: int
    headers: Mapping[str, str]
    content: bytes


GGUF_TYPE = re.compile(
    r"(?<![A-Za-z0-9])(I?Q[1-8](?:_[0-9A-Z]+)*|BF16|F16|F32)(?![A-Za-z0-9])", re.IGNORECASE
)
SERVER_VERSION = re.compile(r"^[A-Za-z][\w.\-]*/([\w.\-+]+)")


def body(found: dict[str, Answer], path: str) -> Any:
    """The JSON body of a 200 answer at ``path``, else ``None``."""
    answer = found.get(path)
    if answer is None or answer.status_code != 200:
        return None
    try:
        return json.loads(answer.content)
    except ValueError:
        return None


MAX_DECLARED = 80
"""The most characters of a declared text (a version, a quantisation) a run records."""


def _text(value: Any) -> str | None:
    """Declared text as a run records it (``RunConfig.server``, shown on the board's card):
    a number as its digits; stripped, at most ``MAX_DECLARED`` characters, without a character
    the board cannot draw as it is (a control, a bidirectional or other format character);
    None when nothing is left. ``bench verify`` refuses a server record with any other text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    kept = "".join(ch for ch in value if unicodedata.category(ch) not in FORBIDDEN_CATEGORIES)
    return kept.strip()[:MAX_DECLARED].strip() or None


MAX_COUNT = 2**53 - 1
"""The largest declared count (a context window) a run records: config.json holds it as a JSON
integer, and ``bench verify`` reads none past 2**53 - 1 (I-JSON), so a larger one made the
honest run's bundle unverifiable."""


def _count(value: Any) -> int | None:
    """A positive whole number as declared (a number, or ASCII digits), at most ``MAX_COUNT``.
    ``str.isdigit`` is true of "²", which ``int`` refuses: that declaration, or one of more
    digits than ``int`` converts, ended ``bench probe`` and ``bench run`` in a traceback."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 16:
        value = int(value)
    if isinstance(value, int) and 0 < value <= MAX_COUNT:
        return value
    return None


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def model_entry(found: dict[str, Answer], model: str | None) -> dict[str, Any] | None:
    """The ``/v1/models`` entry of ``model``; the only entry when ``model`` is not given."""
    data = _get(body(found, "/v1/models"), "data")
    items = [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
    if model is not None:
        return next((item for item in items if item.get("id") == model), None)
    return items[0] if len(items) == 1 else None


def version(found: dict[str, Answer], names_engine: Callable[[str], object]) -> str | None:
    """The declared version; a ``Server`` header's only when that header names the engine
    (``names_engine``), so a proxy's ``nginx/1.25`` never reads as the engine's version."""
    for path, key in (
        ("/version", "version"),
        ("/api/version", "version"),
        ("/info", "version"),
        ("/health", "version"),
        ("/props", "build_info"),
    ):
        said = _text(_get(body(found, path), key))
        if said is not None:
            return said
    title = _text(_get(body(found, "/openapi.json"), "info", "title"))
    if title is not None and names_engine(title):  # the API's version is the engine's there
        said = _text(_get(body(found, "/openapi.json"), "info", "version"))
        if said is not None:
            return said
    for answer in found.values():
        server = answer.headers.get("server")
        if server and names_engine(server) and (match := SERVER_VERSION.match(server.strip())):
            return match.group(1)[:MAX_DECLARED]
    return None


# llama-server's entry says both the context it serves each request (``meta.n_ctx``, per slot)
# and the one the model was trained for (``meta.n_ctx_train``, older builds say only that)
ENTRY_WINDOW_KEYS = (("max_model_len",), ("context_length",), ("max_context_length",),
                     ("meta", "n_ctx"), ("meta", "n_ctx_train"))  # fmt: skip


def _entry_window(entry: dict[str, Any] | None) -> int | None:
    found = (_count(_get(entry, *keys)) for keys in ENTRY_WINDOW_KEYS)
    return next((n for n in found if n is not None), None)


def context_window(found: dict[str, Answer], model: str | None) -> int | None:
    """The model's context window; with no ``model``, the one every model that declares
    one agrees on."""
    window = _entry_window(model_entry(found, model))
    if window is None and model is None:
        data = _get(body(found, "/v1/models"), "data")
        items = data if isinstance(data, list) else []
        windows = {_entry_window(item) for item in items if isinstance(item, dict)} - {None}
        window = windows.pop() if len(windows) == 1 else None
    if window is not None:
        return window
    candidates = [
        _get(body(found, "/props"), "default_generation_settings", "n_ctx"),
        _get(body(found, "/props"), "n_ctx"),
        _get(body(found, "/info"), "max_total_tokens"),
    ]
    return next((n for n in map(_count, candidates) if n is not None), None)


def _ollama_level(found: dict[str, Answer], model: str | None) -> Any:
    models = _get(body(found, "/api/tags"), "models")
    if not isinstance(models, list):
        return None
    for item in models:
        if isinstance(item, dict) and (
            model is None or model in (item.get("name"), item.get("model"))
        ):
            return _get(item, "details", "quantization_level")
    return None


def quantisation(found: dict[str, Answer], model: str | None) -> str | None:
    candidates = [
        _get(model_entry(found, model), "quantization"),
        _ollama_level(found, model),
        _get(body(found, "/info"), "quantize"),
        _get(body(found, "/health"), "quantization"),
    ]
    for candidate in candidates:
        said = _text(candidate)
        if said is not None:
            return said
    path = _get(body(found, "/props"), "model_path")
    if isinstance(path, str) and (match := GGUF_TYPE.search(path.rsplit("/", 1)[-1])):
        return match.group(1).upper()
    return None


def renders_tools(found: dict[str, Answer]) -> bool | None:
    """Whether the server's chat template renders the tools a request offers, as llama.cpp's
    ``llama-server`` declares it (``/props`` ``chat_template_caps.supports_tools``); None when
    the server does not say. Serving a template without tools, ``llama-server --jinja`` drops
    a request's tools from the prompt without a word, even under ``tool_choice: "required"``."""
    said = _get(body(found, "/props"), "chat_template_caps", "supports_tools")
    return said if isinstance(said, bool) else None


__all__ = [
    "MAX_DECLARED",
    "body",
    "context_window",
    "model_entry",
    "quantisation",
    "renders_tools",
    "version",
]
