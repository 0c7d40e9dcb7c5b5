"""A server that refuses one field of the harness's request, in words (docs/TARGETS.md, "A server
that refuses a field").

Two kinds of change answer such a refusal, and only one is the harness's to make:

- **Neutral** (``NEUTRAL``): the request means the same without the field, or under the name
  the server gives. The call is sent again once so, and so is every later call of the target
  (the run), with a warning in the exchange's ``raw``. ``stream_options`` dropped
  (``STREAM_OPTIONS_REFUSED``); the token cap renamed ``max_tokens`` ↔
  ``max_completion_tokens`` when the server names the other or says it does not take the one
  sent (``CAP_RENAMED``: OpenAI's reasoning models, "Unsupported parameter: 'max_tokens' is not
  supported with this model. Use 'max_completion_tokens' instead."; Mistral's
  ``extra_forbidden`` on ``max_completion_tokens``); ``tool_choice: auto``, the default,
  dropped when refused by that name (``TOOL_CHOICE_DROPPED``). ``bench verify``'s wire check
  takes exactly these variants of the built body (``variants``) and no other.
- **Of meaning** (a sampling setting, ``seed``, a forced ``tool_choice``, system messages): never
  made. The refusal is ``FieldRefused`` (``REQUEST_REFUSED``, a harness fault: the request's
  configuration, not the model's answer) naming the field and the setting of the target file
  that fixes it; every later call of the run that carries the same field, same value, fails
  at once with it, not sent (the server refuses it the same way; no more load, no tokens),
  and a run stops at the first (``runner.refusal_stop``). The run's recorded config stays what
  was sent: nothing was changed to get an answer. A field is blamed only where the words refuse
  it (``subject``), not where they suggest it, list what the server takes, or echo the request.

The reasoning a server asks for back (``openai.REASONING_ASKED``) goes back by the same loop
(``Refusals.send``), for both protocols.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bench.core.errors import EntrantError, HarnessFault

from .base import REQUEST_REFUSED, ModelResponse
from .http import Reply

T = TypeVar("T")
Body = dict[str, Any]
Posted = tuple[Reply, Body, list[str], ModelResponse]
"""What ``HttpEndpoint.post_parsed`` gives: the reply, the body sent, its warnings, the answer."""

STREAM_OPTIONS_REFUSED = "stream_options_refused"
"""A warning in an exchange's ``raw``: the server refused the request for its
``stream_options`` (Mistral: HTTP 422; Azure AI Foundry, Bedrock behind Databricks, some
gateways: HTTP 400), so it was sent again without them, as every later request of the run is.
Usage is then whatever the server's stream reports by itself."""

CAP_RENAMED = "token_cap_renamed"
"""A warning in an exchange's ``raw``: the server refused the token cap under the name it was
sent (``max_tokens`` or ``max_completion_tokens``), so it was sent again under the other, the
same number, as every later request of the run is."""

TOOL_CHOICE_DROPPED = "tool_choice_dropped"
"""A warning in an exchange's ``raw``: the server refused ``tool_choice`` when it was the
default (``auto``), so the request was sent again without it, as every later request of the
run is."""

REASONING_ASKED = "reasoning_asked"
"""A warning in an exchange's ``raw``: the server refused the request because an assistant
message that called tools came without its reasoning (DeepSeek's thinking mode: "Missing
`reasoning_content` field in the assistant message at message index 2"; Kimi K2 thinking:
"thinking is enabled but reasoning_content is missing in assistant tool call message"), so it
was sent again with it (``request_body(..., reasoning=True)``), as every later request of the
run is. Not sent before a server asks: servers that do not know the keys refuse them (Groq:
"property 'reasoning_content' is unsupported"; Mistral: ``extra_forbidden``; older
``deepseek-reasoner``: HTTP 400), and each later request would repeat it in the trace."""

NEUTRAL = (STREAM_OPTIONS_REFUSED, CAP_RENAMED, TOOL_CHOICE_DROPPED)

CAPS = ("max_tokens", "max_completion_tokens")
AUTO_CHOICES: tuple[Any, ...] = ("auto", {"type": "auto"})
"""``tool_choice`` as the default, in OpenAI's and Anthropic's words."""

REFUSED_CODES = (REQUEST_REFUSED, "ENDPOINT_REJECTED")

NOT_TAKEN = re.compile(
    r"unsupported|not supported|does not support|doesn't support|not permitted|extra_forbidden"
    r"|not allowed|unrecognized|unrecognised|unknown (?:field|parameter|argument|key|name)"
    r"|unexpected (?:keyword|field|argument)|cannot both be|only the default|may only be set"
    r"|invalid message role|not available for this model",
    re.IGNORECASE,
)
"""Words that say the server does not take a field (or its value) at all, whatever the request
around it: what makes a refusal the same on every later request."""

PER_REQUEST = re.compile(
    r"too large|too long|context length|context window|maximum context|exceed", re.IGNORECASE
)
"""Words of a refusal of this request's size (a token cap too large for the conversation so
far: vLLM's "'max_tokens' or 'max_completion_tokens' is too large"): not a field the server
never takes."""


TOGETHER = re.compile(
    r"cannot both|can't both|not both|together|at the same time|only one|mutually exclusive",
    re.IGNORECASE,
)
"""Words of a refusal of two settings side by side (Claude 4.x: "`temperature` and `top_p`
cannot both be specified"), which one of them alone would not get."""


def refused(exc: EntrantError | HarnessFault) -> bool:
    """A refused request: ``REQUEST_REFUSED`` or a 4xx (``ENDPOINT_REJECTED``)."""
    return exc.code in REFUSED_CODES


def names(said: str, key: str) -> bool:
    """Whether the server's words name ``key`` as a word of its own (not inside another)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", said) is not None


ASIDES = re.compile(
    r"(?:did you mean|perhaps you meant|maybe you meant|you may have meant)\b[^?!;]*[?!;]?"
    r"|\buse\s+[`'\"]?[A-Za-z_][\w.]*[`'\"]?\s+instead\b"
    r"|\b(?:expected|supported|allowed|valid|known|available|accepted)\s+(?:one of|any of"
    r"|(?:fields|parameters|params|properties|keys|arguments|names|values)(?:\s+are|\s+is)?)"
    r"\s*:?[^.;!?]*",
    re.IGNORECASE,
)
"""Parts of a refusal that name fields without refusing them: a suggestion ("property 'store'
is unsupported, did you mean 'stop'?": Groq; "Use 'max_completion_tokens' instead": OpenAI)
and a list of what the server takes ("unknown field `store`, expected one of `model`,
`messages`, `temperature`, …": serde, behind Rust servers)."""

ECHO = re.compile(r"input_value=.*?(?:input_type=\w+|$)", re.IGNORECASE)
"""pydantic's echo of the value it refused (``input_value={'model': …, 'temperature': 0}``): a
model-level error quotes the whole request, naming every field of it."""

ECHO_KEY = re.compile(r"[\"']input[\"']\s*:\s*(?=[\[{])")


def _drop_echoes(said: str) -> str:
    said = ECHO.sub("", said)
    out, at = [], 0
    for found in ECHO_KEY.finditer(said):
        if found.start() < at:
            continue
        out.append(said[at : found.start()])
        depth, end = 0, found.end()
        for end in range(found.end(), len(said)):  # FastAPI's detail: "input": {the body}
            depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(said[end], 0)
            if depth == 0:
                break
        at = end + 1
    return "".join(out) + said[at:]


def subject(said: str) -> str:
    """The words of a refusal that say what it refuses: without suggestions, lists of what the
    server takes, or echoes of the request (``ASIDES``, ``ECHO``), each of which names fields
    the server does not refuse."""
    return ASIDES.sub(" ", _drop_echoes(said))


def refuses_stream_options(exc: EntrantError | HarnessFault) -> bool:
    """Whether a call failed because the server does not take ``stream_options``: a refused
    request whose words name them (not as a suggestion or in a list of what it takes)."""
    said = subject(str(exc))
    return refused(exc) and ("stream_options" in said or "include_usage" in said)


def _not_taken(said: str) -> bool:
    return NOT_TAKEN.search(said) is not None and PER_REQUEST.search(said) is None


def neutral(
    exc: EntrantError | HarnessFault, body: Body, caps: tuple[str, ...] = CAPS
) -> tuple[str, Body] | None:
    """The neutral change a refusal asks of ``body`` (a warning of ``NEUTRAL`` and the body
    changed), or None when it asks none. ``caps``: the token cap's names the protocol has
    (none for Anthropic's, whose ``max_tokens`` is its only name)."""
    if not refused(exc):
        return None
    said = str(exc)
    refuses = subject(said)  # names a field only where the words refuse it
    if "stream_options" in body and refuses_stream_options(exc):
        return STREAM_OPTIONS_REFUSED, {k: v for k, v in body.items() if k != "stream_options"}
    sent = [cap for cap in caps if cap in body]
    if len(sent) == 1 and names(refuses, sent[0]):
        (cap,) = sent
        other = CAPS[1 - CAPS.index(cap)]
        if PER_REQUEST.search(said) is None and (names(said, other) or _not_taken(refuses)):
            return CAP_RENAMED, {(other if k == cap else k): v for k, v in body.items()}
    if (
        body.get("tool_choice") in AUTO_CHOICES
        and names(refuses, "tool_choice")
        and _not_taken(refuses)
    ):
        return TOOL_CHOICE_DROPPED, {k: v for k, v in body.items() if k != "tool_choice"}
    return None


class FieldRefused(HarnessFault):
    """The server refused a field whose every change would change what the request means
    (``REQUEST_REFUSED``): named, with the target file's setting that fixes it. ``key`` is the
    field and its value as sent, for the run's later calls (``Refusals.check``); ``setting``
    the target file's setting that fixes it (``params.temperature``, ``tool_choice``,
    ``system_prompt``). ``first``: for a call not sent (``Refusals.check``), the refusal that
    stopped its field; None for the refusal itself. A run stops at the first one
    (``runner.refusal_stop``)."""

    default_code = REQUEST_REFUSED

    def __init__(
        self,
        message: str,
        *,
        key: tuple[str, str],
        setting: str = "",
        first: FieldRefused | None = None,
    ) -> None:
        super().__init__(message, code=REQUEST_REFUSED)
        self.key = key
        self.setting = setting or key[0]
        self.first = first

    @property
    def origin(self) -> FieldRefused:
        """The refusal the server sent: this one, or the one that stopped its field."""
        return self.first if self.first is not None else self


def _value(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _has_system(body: Body) -> bool:
    messages = body.get("messages")
    in_list = isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "system" for m in messages
    )
    return in_list or "system" in body


def of_meaning(
    exc: EntrantError | HarnessFault, body: Body, settings: dict[str, Any]
) -> FieldRefused | None:
    """The refusal of a field the harness may not change, as ``FieldRefused``; None for any
    other refusal. ``settings``: the request's own sampling parameters (the target file's
    ``params``, and ``tool_choice`` when it forces one), each a field the words may name."""
    if not refused(exc):
        return None
    said = str(exc)
    refuses = subject(said)  # "did you mean 'stop'?" does not refuse the target's stop
    if not _not_taken(refuses):
        return None
    fields = [key for key in settings if key in body and key not in CAPS and names(refuses, key)]
    if "tool_choice" in fields and body.get("tool_choice") in AUTO_CHOICES:
        fields.remove("tool_choice")  # the default: neutral, not a setting
    if fields:
        shown = " and ".join(f"params.{key} = {_value(body[key])}" for key in fields)
        if fields == ["tool_choice"]:
            fix = "set tool_choice: auto in the target file (or serve a model that takes it)"
            shown = f"tool_choice {_value(body['tool_choice'])}"
        elif len(fields) > 1 and TOGETHER.search(refuses) is not None:
            fix = "keep one of them in the target file's params and remove the other"
        elif len(fields) > 1:  # each refused on its own (Gemini: 'Unknown name "seed"' twice)
            each = " and ".join(f"params.{k}" for k in fields)
            fix = f"change or remove {each} in the target file"
        else:
            fix = f"change or remove params.{fields[0]} in the target file"
        key = (fields[0], _value([body[k] for k in fields]))
        return FieldRefused(
            f"the server refuses the target's {shown} ({said}); the harness does not change "
            f"what a request means to get an answer: {fix}",
            key=key,
            setting="tool_choice" if fields == ["tool_choice"] else f"params.{fields[0]}",
        )
    if _has_system(body) and names(refuses, "system") and "role" in refuses.lower():
        return FieldRefused(
            f"the server refuses the request's system message ({said}); the harness does not "
            "fold a system prompt into a user message for it: remove system_prompt from the "
            "target file, or serve a model whose template takes a system message",
            key=("system", "true"),
            setting="system_prompt",
        )
    return None


class Refusals:
    """What a target learned from its server's refusals, for the rest of the run: the neutral
    changes it makes to every body, whether the reasoning goes back, and the fields of meaning
    the server refused. One per target (``OpenAITarget``, ``AnthropicTarget``); ``caps``: the
    token cap's names its protocol has (``CAPS``, or none)."""

    def __init__(self, caps: tuple[str, ...] = CAPS) -> None:
        self.caps = caps
        self.reasoning = False  # until the server asks for it (openai.REASONING_ASKED)
        self.changes: list[str] = []  # the NEUTRAL changes made, in order
        self.stopped: dict[str, tuple[str, FieldRefused]] = {}  # field -> (value, refusal)

    def shape(self, body: Body) -> Body:
        """A body as built, with the neutral changes the run has made since."""
        for change in self.changes:
            if change == STREAM_OPTIONS_REFUSED:
                body = {k: v for k, v in body.items() if k != "stream_options"}
            elif change == CAP_RENAMED:
                sent = [cap for cap in self.caps if cap in body]
                if len(sent) == 1:
                    other = CAPS[1 - CAPS.index(sent[0])]
                    body = {(other if k == sent[0] else k): v for k, v in body.items()}
            elif change == TOOL_CHOICE_DROPPED and body.get("tool_choice") in AUTO_CHOICES:
                body = {k: v for k, v in body.items() if k != "tool_choice"}
        return body

    def check(self, body: Body) -> None:
        """``FieldRefused``, not sent, when ``body`` carries a field the server refused earlier
        in the run, as it was then."""
        for field, (value, refusal) in self.stopped.items():
            if field == "system":
                carried = _has_system(body)
            else:
                carried = field in body and _first(value) == _value(body[field])
            if carried:
                raise FieldRefused(
                    f"not sent: {refusal.message} (refused on an earlier call of this run)",
                    key=refusal.key,
                    setting=refusal.setting,
                    first=refusal,
                )

    async def send(
        self,
        build: Callable[[bool], Body],
        post: Callable[[Body], Awaitable[T]],
        asks: Callable[[EntrantError | HarnessFault], bool],
        settings: dict[str, Any],
    ) -> tuple[T, Body, list[str]]:
        """``post`` the body ``build(reasoning)`` makes, sent again once for each neutral change
        a refusal asks and once with the reasoning when the server asks for it (``asks``):
        what ``post`` returned, the body it was given, and the warnings of the changes made."""
        body = self.shape(build(self.reasoning))
        self.check(body)
        told: list[str] = []
        while True:
            try:
                return await post(body), body, told
            except (EntrantError, HarnessFault) as exc:
                change = neutral(exc, body, self.caps)
                if change is not None and change[0] not in self.changes:
                    warning, body = change
                    self.changes.append(warning)
                    told.append(warning)
                    continue
                if not self.reasoning and asks(exc):
                    whole = self.shape(build(True))
                    if whole["messages"] != body["messages"]:
                        self.reasoning = True
                        body = {**body, "messages": whole["messages"]}
                        told.append(REASONING_ASKED)
                        continue
                stop = of_meaning(exc, body, settings)
                if stop is None:
                    raise
                self.stopped.setdefault(stop.key[0], (stop.key[1], stop))
                raise stop from None


def _first(value: str) -> str:
    """The first of the values a ``FieldRefused`` key holds (a JSON list), as ``_value``."""
    return _value(json.loads(value)[0])


def variants(body: Body, caps: tuple[str, ...] = CAPS) -> list[Body]:
    """Every body the harness may have sent for one built ``body`` after neutral changes
    (``NEUTRAL``): each subset of them, as ``Refusals.shape`` makes it (``caps``: as the
    protocol's target has them); the wire check takes these and no other
    (``bench.verify.wire``)."""
    out: list[Body] = []
    for mask in range(1 << len(NEUTRAL)):
        shaper = Refusals(caps)
        shaper.changes = [change for bit, change in enumerate(NEUTRAL) if mask >> bit & 1]
        shaped = shaper.shape(body)
        if shaped not in out:
            out.append(shaped)
    return out


__all__ = [
    "AUTO_CHOICES",
    "CAPS",
    "CAP_RENAMED",
    "FieldRefused",
    "NEUTRAL",
    "Posted",
    "REASONING_ASKED",
    "Refusals",
    "STREAM_OPTIONS_REFUSED",
    "TOOL_CHOICE_DROPPED",
    "names",
    "neutral",
    "of_meaning",
    "refused",
    "refuses_stream_options",
    "subject",
    "variants",
]
