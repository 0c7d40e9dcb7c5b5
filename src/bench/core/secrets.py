"""What a run or a bundle must never publish: credentials and local paths. One rule of each,
used everywhere (docs/TARGETS.md "Secrets", docs/SUBMISSIONS.md "Secrets and local paths"):

* ``bench run`` refuses a target that carries a secret (``TARGET_SECRET``,
  ``bench.targets.config.check_target_secrets``), so a secret never enters a run;
* ``bench bundle`` refuses a run that holds one, rewrites the local paths the harness wrote
  and refuses a run whose other records still name one (``bench.signing.bundle``);
* ``bench verify`` fails a bundle that holds either (``bench.verify.privacy``).

**The secret rule** (``secret_problem``). A value is a secret when

* its *name* is a credential's: split into words at ``_ - .`` and camelCase, the name has one
  of ``apikey secret password passwd passphrase authorization cookie bearer credential(s)``;
  or ends in ``key``/``keys`` (``key``, ``api_key``, ``x-api-key``, ``private_key`` — not
  ``cache_key``, ``prompt_cache_key``, ``idempotency_key`` …); or ends in ``token``
  (``token``, ``access_token``, ``auth_token`` — not a vocabulary token such as ``eos_token``;
  the plural ``tokens`` is a count: ``max_tokens``, ``max_completion_tokens``); or ends in
  ``auth`` — and it holds a non-empty string or a number; or
* its *text* has a known key's shape: ``sk-`` and 20+ characters, ``Bearer`` and a token,
  ``ghp_``/``gho_``/``github_pat_``, ``xox?-`` (Slack), ``AKIA``/``ASIA`` (AWS), ``AIza``
  (Google), ``hf_`` (Hugging Face), a JSON Web Token, a PEM private key, a URL with a password
  or with a credential in its query.

**The path rule** (``local_path_problem``). Text names a local path when it holds, at the start
of a path (not inside a URL or a relative path), ``/home/<user>``, ``/Users/<user>``, ``/root``,
``/tmp/``, ``/var/tmp/``, ``/var/folders/``, ``/private/tmp/``, ``/private/var/``,
``/run/user/``, ``/mnt/``, ``/media/``, ``/Volumes/``, ``C:\\Users\\<user>`` (any drive) or
``file:/``. A field that *is* a path (the task set, the target file, a callable, a cassette) must
also not be absolute at all (``/``, ``\\``, ``~``, ``C:``, ``file:``).

Only harness-written text is held to the path rule: config, status, target and the attempts'
``reason``, ``fault``, verdict sentences and safety notes — never model or tool text in traces
and cassettes, which may legitimately say ``/api/v1`` or ``/tmp``. The model-facing settings
(``params``, ``system_prompt``) are sent verbatim in every request; they are held to the
secret rule, not the path rule.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

MIN_SECRET_CHARS = 8
"""A key shorter than this is not searched for by value (it would match ordinary words)."""

# -- the secret rule ---------------------------------------------------------------------------

_ALWAYS = frozenset(
    {
        "apikey",
        "apikeys",
        "accesstoken",
        "authtoken",
        "secret",
        "secrets",
        "password",
        "passwd",
        "passphrase",
        "authorization",
        "cookie",
        "cookies",
        "bearer",
        "credential",
        "credentials",
    }
)
# ``<word>_key`` that names no credential.
_PLAIN_KEYS = frozenset(
    {
        "cache",
        "idempotency",
        "partition",
        "sort",
        "routing",
        "dedup",
        "dedupe",
        "group",
        "lookup",
        "hash",
        "primary",
        "foreign",
        "shard",
        "bucket",
        "index",
        "order",
        "join",
        "map",
        "dict",
        "seed",
        "sticky",
    }
)
# ``<word>_token`` that is a token of a model's vocabulary, not a credential.
_VOCABULARY_TOKENS = frozenset(
    {
        "bos",
        "eos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "stop",
        "start",
        "end",
        "eot",
        "special",
        "image",
        "audio",
        "video",
        "think",
        "thinking",
    }
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")

_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an API key (sk-…)", re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}")),
    (
        "a bearer token",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])bearer\s+(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}"
        ),
    ),
    (
        "a GitHub token",
        re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ),
    ("a Slack token", re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "an AWS access key id",
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    ),
    ("a Google API key", re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}")),
    ("a Hugging Face token", re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}")),
    ("a private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")),
    (
        "a URL with a credential in its query",
        re.compile(
            r"(?i)[?&](?:api[-_]?key|key|token|access[-_]?token|auth|secret|password)=[^&#\s]"
        ),
    ),
)


def name_words(name: str) -> list[str]:
    """``"x-api-key"`` → ``["x", "api", "key"]``; ``"apiKey"`` → ``["api", "key"]``."""
    return [word.lower() for chunk in _SPLIT.split(name) for word in _WORD.findall(chunk)]


def credential_name(name: str) -> bool:
    """Whether a setting called ``name`` holds a credential (the module's secret rule)."""
    words = name_words(name)
    if not words:
        return False
    if any(word in _ALWAYS for word in words):
        return True
    last = words[-1]
    before = words[-2] if len(words) > 1 else None
    if last in ("key", "keys"):
        return before not in _PLAIN_KEYS
    if last == "token":
        return before not in _VOCABULARY_TOKENS
    return last == "auth"


# Two shapes are found in two steps, so that the time is linear in the text. As one regex each
# (``eyJ[A-Za-z0-9_-]{8,}\.eyJ…`` and ``[a-z][a-z0-9+.-]*://…``), every position inside a long
# run of token characters started a scan to the run's end: 200,000 characters of ``eyJ-`` or
# of letters took minutes (a target's params, an agent's answer in a bundle under verify).
# Each regex below starts only where a run starts and never backtracks into it; what the
# old pattern asked of a start inside the run is then checked on the run, once.
_TOKEN_RUN = re.compile(
    r"(?<![A-Za-z0-9_-])([A-Za-z0-9_-]++)(?=\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8})"
)
_JWT_START = re.compile(r"(?:^|(?<=[_-]))eyJ")
_SCHEME_RUN = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z0-9+.-]++)://[^/\s:@]++:[^/\s@]++@")
_LETTER = re.compile(r"[A-Za-z]")


def _json_web_token(text: str) -> bool:
    """``eyJ`` + 8 or more token characters, not after a letter or digit, then ``.eyJ`` + 8
    or more, then ``.`` + 8: the earliest such ``eyJ`` in a run is the one furthest from the
    dot, so it alone decides the run."""
    if "eyJ" not in text:
        return False
    for found in _TOKEN_RUN.finditer(text):
        run = found.group(1)
        start = _JWT_START.search(run)
        if start is not None and len(run) - start.end() >= 8:
            return True
    return False


def _url_with_password(text: str) -> bool:
    """A scheme (a letter, then letters, digits, ``+.-``) before ``://user:password@``: some
    letter in the run of scheme characters before ``://`` can start it."""
    if "://" not in text:
        return False
    return any(_LETTER.search(found.group(1)) for found in _SCHEME_RUN.finditer(text))


def _searcher(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.search(text) is not None


_BY_KIND = {kind: _searcher(pattern) for kind, pattern in _SHAPES}
_BY_KIND["a JSON Web Token"] = _json_web_token
_BY_KIND["a URL with a password"] = _url_with_password
# The order of old, which names the first kind found when a text holds several.
_FINDERS: tuple[tuple[str, Callable[[str], bool]], ...] = tuple(
    (kind, _BY_KIND[kind])
    for kind in (
        "an API key (sk-…)",
        "a bearer token",
        "a GitHub token",
        "a Slack token",
        "an AWS access key id",
        "a Google API key",
        "a Hugging Face token",
        "a JSON Web Token",
        "a private key",
        "a URL with a password",
        "a URL with a credential in its query",
    )
)


def secret_shape(text: str) -> str | None:
    """What known kind of credential ``text`` holds, if any."""
    for kind, finds in _FINDERS:
        if finds(text):
            return kind
    return None


def secret_problem(name: str | None, value: Any) -> str | None:
    """Why the setting ``name: value`` is a secret, in words (never quoting it), else None."""
    if name is not None and credential_name(name):
        filled = (isinstance(value, str) and value.strip()) or (
            isinstance(value, int | float) and not isinstance(value, bool)
        )
        if filled:
            return f"'{name}' is named like a credential"
    if isinstance(value, str):
        kind = secret_shape(value)
        if kind is not None:
            return f"the value looks like {kind}"
    return None


def _join(field: str, name: str) -> str:
    return f"{field}.{name}" if field else name


def find_secrets(value: Any, field: str = "", name: str | None = None) -> Iterator[tuple[str, str]]:
    """``(field, problem)`` for every secret in a JSON value: each mapping key is the name of
    its value (a list's items keep their list's name), and every key and string is also held
    to the known shapes."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            key_text = str(key)
            where = _join(field, key_text)
            kind = secret_shape(key_text)
            if kind is not None:
                yield where, f"a key looks like {kind}"
            yield from find_secrets(item, where, key_text)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from find_secrets(item, f"{field}[{index}]", name)
    else:
        problem = secret_problem(name, value)
        if problem is not None:
            yield field, problem


def strings(value: Any, field: str = "") -> Iterator[tuple[str, str]]:
    """``(field, text)`` for every string in a JSON value, mapping keys included."""
    if isinstance(value, str):
        yield field, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            where = _join(field, str(key))
            yield where, str(key)
            yield from strings(item, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from strings(item, f"{field}[{index}]")


def find_value(value: Any, secret: str | None, field: str = "") -> str | None:
    """The first field of a JSON value whose text holds ``secret`` (a key's value), if any;
    a secret shorter than ``MIN_SECRET_CHARS`` is never searched for."""
    if not secret or len(secret) < MIN_SECRET_CHARS:
        return None
    for where, text in strings(value, field):
        if secret in text:
            return where
    return None


# -- the path rule -----------------------------------------------------------------------------

_LEAD = r"(?<![\w.~/\\-])"
_PATH_CHARS = r"[^\s\"'<>|]*"
_SEGMENT = r"[^/\\\s\"'<>|]+"
_LOCAL_PREFIX = (
    _LEAD
    + r"(?:"
    + r"/(?:home|users)/" + _SEGMENT
    + r"|/root(?=[/\\\s\"'<>|),;:]|$)"
    + r"|/(?:tmp|var/tmp|var/folders|private/tmp|private/var|run/user|mnt|media|volumes)(?=/)"
    + r"|[a-z]:[\\/]+(?:users|documents and settings)[\\/]+" + _SEGMENT
    + r"|file:/+"
    + r")"
)  # fmt: skip
_LOCAL = re.compile(_LOCAL_PREFIX, re.IGNORECASE)
_LOCAL_TOKEN = re.compile(f"({_LOCAL_PREFIX})({_PATH_CHARS})", re.IGNORECASE)
_ABSOLUTE = re.compile(r"^(?:[/\\~]|[A-Za-z]:(?:[/\\]|$)|file:)", re.IGNORECASE)
REDACTED_PATH = "<local>"
"""What ``bench bundle`` writes in place of a local directory it cannot make relative."""


def local_path_problem(text: str) -> str | None:
    """Why harness-written ``text`` publishes a local path (naming the kind, not the path)."""
    found = _LOCAL.search(text)
    if found is None:
        return None
    head = found.group(0)
    if head.lower().startswith("file:"):
        return "holds a file: URL"
    if head[1:2] == ":":
        return "holds an absolute Windows user path"
    return f"holds an absolute local path ({'/'.join(head.split('/')[:2])}/…)"


def absolute_path(text: str) -> bool:
    """Whether a field that is a path is absolute (``/``, ``\\``, ``~``, ``C:``, ``file:``)."""
    return bool(_ABSOLUTE.match(text))


def path_field_problem(text: str) -> str | None:
    """Why a field that *is* a path (the task set, the target file) is not publishable."""
    if absolute_path(text):
        return "is an absolute path (bench bundle writes it relative)"
    return local_path_problem(text)


def callable_path(reference: str) -> tuple[str, str]:
    """``"dir/file.py:name"`` → ``("dir/file.py", ":name")``; no ``:name`` → ``(reference, "")``.
    A Windows drive (``C:\\x.py``) is not mistaken for the name."""
    path, sep, name = reference.rpartition(":")
    if sep and name and all(part.isidentifier() for part in name.split(".")) and len(path) > 1:
        return path, sep + name
    return reference, ""


_HOME_DIRS = frozenset({"home", "users", "documents and settings"})


def _parts(text: str) -> list[str]:
    return [part for part in re.split(r"[/\\]+", text) if part and part != "~"]


def _last_component(text: str) -> str:
    """The last name of a path; empty when there is none, or when it is a user's home
    directory (``…/home/alice``, ``…/Users/bob``): that name is the user's."""
    parts = _parts(text)
    if not parts or (len(parts) > 1 and parts[-2].lower() in _HOME_DIRS):
        return ""
    return parts[-1]


@dataclass(frozen=True)
class PortablePaths:
    """Rewrites local paths in harness-written text for a bundle: under the working directory
    a path becomes relative to it, under the home directory ``~/…``, anything else left by
    the path rule ``<local>/<its last name>`` (a directory alone: ``<local>``)."""

    anchors: tuple[tuple[str, str], ...] = ()

    @classmethod
    def here(cls, cwd: Path | None = None, home: Path | None = None) -> PortablePaths:
        """Anchored at the working directory (also as ``$PWD`` spells it, and resolved) and at
        the home directory (``$HOME``, and resolved)."""
        found: dict[str, str] = {}
        work = [cwd] if cwd is not None else [Path.cwd(), *_env_path("PWD")]
        homes = [home] if home is not None else [*_home()]
        for replacement, roots in (("", work), ("~", homes)):
            for root in roots:
                for spelling in {str(root), os.path.realpath(root)}:
                    text = spelling.rstrip("/\\")
                    if len(text) > 1 and text not in found:  # never "/" itself
                        found[text] = replacement
        ordered = sorted(found.items(), key=lambda item: (-len(item[0]), item[1]))
        return cls(tuple(ordered))

    def text(self, text: str) -> str:
        """``text`` with every local path rewritten; unchanged when it holds none."""
        for root, replacement in self.anchors:
            if root in text:
                text = _replace_root(text, root, replacement)
        if _LOCAL.search(text) is None:
            return text
        return _LOCAL_TOKEN.sub(_redact_token, text)

    def path(self, text: str) -> str:
        """A field that is a path: relative when it can be, else its last name."""
        rewritten = self.text(text)
        parts = [part.lower() for part in _parts(rewritten)]
        climbs_home = ".." in parts and any(part in _HOME_DIRS for part in parts[:-1])
        if absolute_path(rewritten) or rewritten.startswith(REDACTED_PATH) or climbs_home:
            return _last_component(rewritten.removeprefix(REDACTED_PATH)) or "."
        return rewritten or "."

    def leftovers(self, config: Mapping[str, Any]) -> Iterator[Finding]:
        """Strings of a config held to the path rule that still name the working or the home
        directory (which the path rule cannot know: ``/srv/alice``)."""
        for field, text in harness_strings(config):
            if any(root in text for root, _ in self.anchors) and self.text(text) != text:
                yield Finding("path", field, "holds the working or the home directory")

    def callable(self, reference: str) -> str:
        """A scripted target's ``path:name`` with its path made portable."""
        path, name = callable_path(reference)
        if "/" not in path and "\\" not in path and not absolute_path(path):
            return reference  # package.module:name
        return self.path(path) + name


def _env_path(name: str) -> list[Path]:
    """``$PWD`` as the shell spells the working directory, when it is still this one."""
    value = os.environ.get(name, "")
    if not os.path.isabs(value) or os.path.realpath(value) != os.path.realpath(os.getcwd()):
        return []
    return [Path(value)]


def _home() -> list[Path]:
    try:
        return [Path.home()]
    except (RuntimeError, KeyError):
        return []


def _replace_root(text: str, root: str, replacement: str) -> str:
    pattern = re.compile(_LEAD + re.escape(root) + r"(?:[/\\]+|(?![\w.-]))")

    def swap(match: re.Match[str]) -> str:
        if match.group(0) != root:  # followed by a separator
            return f"{replacement}/" if replacement else ""
        return replacement or "."

    return pattern.sub(swap, text)


def _redact_token(match: re.Match[str]) -> str:
    rest = _last_component(match.group(2))
    return f"{REDACTED_PATH}/{rest}" if rest else REDACTED_PATH


# -- the records a bundle publishes ------------------------------------------------------------

FindingKind = Literal["secret", "path"]


@dataclass(frozen=True)
class Finding:
    """One thing a bundle must not publish: where (a dotted field) and why, in words."""

    kind: FindingKind
    field: str
    problem: str


MODEL_FACING = frozenset({"params", "system_prompt"})
"""The target settings sent verbatim in every request: held to the secret rule only."""
PATH_FIELDS = (("task_set", "path"), ("target_file",), ("target", "cassette"))
"""Config fields that are paths (``target.callable`` is a path with ``:name``)."""


def target_findings(target: Mapping[str, Any], field: str) -> Iterator[Finding]:
    """Secrets in a (recorded) target's ``params``, ``headers`` and ``system_prompt``."""
    for part in ("params", "headers"):
        value = target.get(part)
        if value is not None:
            for where, problem in find_secrets(value, _join(field, part)):
                yield Finding("secret", where, problem)
    prompt = target.get("system_prompt")
    if isinstance(prompt, str):
        kind = secret_shape(prompt)
        if kind is not None:
            yield Finding("secret", _join(field, "system_prompt"), f"the text holds {kind}")


def _path_findings(value: Any, field: str) -> Iterator[Finding]:
    for where, text in strings(value, field):
        problem = local_path_problem(text)
        if problem is not None:
            yield Finding("path", where, problem)


def config_findings(config: Mapping[str, Any]) -> Iterator[Finding]:
    """Everything in a run's config (its JSON form) that a bundle must not publish."""
    for part in ("target", "comparable"):
        section = config.get(part)
        if isinstance(section, Mapping):
            yield from target_findings(section, part)
    for keys in PATH_FIELDS:
        value: Any = config
        for key in keys:
            value = value.get(key) if isinstance(value, Mapping) else None
        if isinstance(value, str) and absolute_path(value):
            yield Finding("path", ".".join(keys), path_field_problem(value) or "")
    target = config.get("target")
    if isinstance(target, Mapping) and isinstance(target.get("callable"), str):
        path, _ = callable_path(target["callable"])
        if absolute_path(path):
            yield Finding("path", "target.callable", "is an absolute path")
    for field, text in harness_strings(config):
        problem = local_path_problem(text)
        if problem is not None:
            yield Finding("path", field, problem)


def harness_strings(config: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of every string of a config (JSON form) held to the path rule: all
    but the model-facing settings of ``target`` and ``comparable``."""
    for key, value in config.items():
        if key in ("target", "comparable") and isinstance(value, Mapping):
            for inner, item in value.items():
                if inner not in MODEL_FACING:
                    yield from strings(item, f"{key}.{inner}")
        else:
            yield from strings(value, str(key))


def status_findings(status: Mapping[str, Any]) -> Iterator[Finding]:
    """Local paths in a run's status (its JSON form)."""
    yield from _path_findings(status, "")


def harness_texts(record: Any) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of what the harness wrote in an attempt record (``AttemptRecord``):
    the reason and the fault code. Never the trace, nor the verdict sentences and safety notes,
    which the scorers derive from the task and the trace (the verifier recomputes them, so a
    bundle publishes them exactly as scored; they hold a path only if the model wrote one)."""
    where = f"{record.task_id}#{record.repeat}"
    if record.reason:
        yield f"{where}.reason", record.reason
    fault = getattr(record, "fault", None)  # harness faults only
    if fault:
        yield f"{where}.fault", fault


def attempt_findings(records: Iterable[Any]) -> Iterator[Finding]:
    """Local paths in what the harness wrote in attempt records."""
    for record in records:
        for field, text in harness_texts(record):
            problem = local_path_problem(text)
            if problem is not None:
                yield Finding("path", field, problem)


__all__ = [
    "MIN_SECRET_CHARS",
    "MODEL_FACING",
    "PATH_FIELDS",
    "REDACTED_PATH",
    "Finding",
    "PortablePaths",
    "absolute_path",
    "attempt_findings",
    "callable_path",
    "config_findings",
    "credential_name",
    "find_secrets",
    "find_value",
    "harness_strings",
    "harness_texts",
    "local_path_problem",
    "name_words",
    "path_field_problem",
    "secret_problem",
    "secret_shape",
    "status_findings",
    "strings",
    "target_findings",
]
