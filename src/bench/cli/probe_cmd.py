"""``bench probe``: is an inference server there, and what does it declare itself to be."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from .common import CONTEXT, format_option


def _serves(endpoints: dict[str, int | str]) -> bool:
    """Whether any probed path was served (2xx, or 401/403: there, behind a key), not merely
    answered with an error status."""
    return any(
        isinstance(said, int) and (200 <= said < 300 or said in (401, 403))
        for said in endpoints.values()
    )


def _check_url(url: str) -> None:
    """``--base-url`` is an http(s) URL with a host and a port in range, said as a usage error
    before any request (a port of 99999 or an unclosed ``[`` was a traceback)."""
    from urllib.parse import urlsplit

    from bench.core.errors import UsageError

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port out of range or not a number)
    except ValueError as exc:
        raise UsageError(f"--base-url {url!r} is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError("--base-url must start with http:// or https:// and name a host")
    if any(c.isspace() for c in url):
        raise UsageError(f"--base-url {url!r} holds a space")


def _target_request(
    target_file: Path, base_url: str | None, api_key_env: str | None
) -> tuple[str, str | None, dict[str, str]]:
    """The URL, model and headers a probe of ``target_file``'s server sends: read and resolved
    as ``bench run`` reads it (overrides, environment, ``.env``), so a gateway that routes by
    the target's ``headers`` is probed as the run reaches it."""
    from bench.core.errors import UsageError
    from bench.targets.base import HTTP_KINDS
    from bench.targets.config import check_base_url, resolve_spec
    from bench.targets.load import MODEL_UNSET, read_target_spec
    from bench.targets.probe import probe_headers

    from .common import require_exists

    require_exists(target_file)
    spec = read_target_spec(target_file)
    if spec.kind not in HTTP_KINDS:
        raise UsageError(
            f"a {spec.kind} target: only an openai or anthropic target has a server to probe",
            path=target_file,
        )
    dotenv = Path(".env")
    spec = resolve_spec(
        spec,
        dotenv_path=dotenv if dotenv.is_file() else None,
        overrides={"base_url": base_url, "api_key_env": api_key_env},
        source=target_file,
    )
    if spec.base_url is None:
        raise UsageError(
            "names no base_url (nor does its provider's environment): give --base-url",
            path=target_file,
        )
    check_base_url(spec.base_url, target_file)
    model = None if spec.model == MODEL_UNSET else spec.model
    return spec.base_url, model, probe_headers(spec)


@click.command(context_settings=CONTEXT)
@click.option(
    "--base-url",
    metavar="URL",
    help="The server to probe (its root or its /v1). Without it, scan the usual local ports.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The host to scan when no --base-url is given.",
)
@click.option(
    "--port",
    "ports",
    type=click.IntRange(1, 65535),
    multiple=True,
    help="Scan this port instead of the usual ones (repeatable).",
)
@click.option(
    "--target",
    "target_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Probe this openai or anthropic target's server as 'bench run' reaches it: its "
    "base URL (or --base-url), its key (or --api-key-env, .env) and its headers (a gateway "
    "that routes by them).",
)
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="Send the key held by this environment variable (for servers that want one).",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0.05),
    default=None,
    help="Seconds per request [default: 3 for --base-url, 0.5 when scanning].",
)
@format_option
def probe(
    base_url: str | None,
    host: str,
    ports: tuple[int, ...],
    target_file: Path | None,
    api_key_env: str | None,
    timeout_s: float | None,
    fmt: str,
) -> None:
    """Check that an inference server answers (/v1/models, /health) and name its engine from
    what it declares (Server header, model owned_by, /health, /info, /props, /metrics names) —
    never from its port; a server that declares nothing is 'unknown'. Without --base-url or
    --target, scan the usual local ports (vLLM 8000, llama.cpp/TGI 8080, SGLang 30000, Ollama
    11434, LiteLLM 4000, TGI 3000, LM Studio 1234, TabbyAPI 5000) with short timeouts."""
    import asyncio

    from bench.core.errors import EntrantError, UsageError
    from bench.targets.probe import (
        DEFAULT_PORTS,
        NO_SUCH_HOST,
        REFUSED,
        TLS_FAILED,
        TOOLS_DROPPED,
        scan,
    )
    from bench.targets.probe import probe as probe_one

    key = None
    if api_key_env and target_file is None:
        key = os.environ.get(api_key_env)
        if not key:
            raise UsageError(f"the environment variable {api_key_env} is not set")
    if ports and (base_url is not None or target_file is not None):
        raise UsageError(f"give {'--target' if target_file else '--base-url'} or --port, not both")
    if base_url is not None:
        _check_url(base_url)
    if target_file is not None:
        base_url, model, headers = _target_request(target_file, base_url, api_key_env)
        probed = probe_one(base_url, timeout_s=timeout_s or 3.0, model=model, headers=headers)
        reports = [asyncio.run(probed)]
        where = reports[0].url
    elif base_url is not None:
        reports = [asyncio.run(probe_one(base_url, api_key=key, timeout_s=timeout_s or 3.0))]
        where = reports[0].url
    else:
        chosen = ports or DEFAULT_PORTS
        reports = asyncio.run(scan(host, chosen, timeout_s=timeout_s or 0.5, api_key=key))
        where = f"{host} ports {', '.join(str(p) for p in chosen)}"
    found = [report for report in reports if report.reachable]
    if fmt == "json":
        shown = reports if base_url is not None else found
        click.echo(json.dumps([r.model_dump(mode="json") for r in shown], indent=2))
    else:
        for report in found:
            looked = ", ".join(f"{path} {said}" for path, said in report.endpoints.items())
            if not _serves(report.endpoints):
                # An http-agent endpoint (POST only) answers 501 or 405 to every GET here.
                click.echo(
                    f"{report.url}  answered, but no OpenAI or Anthropic endpoint there "
                    f"(looked at: {looked}); an http-agent URL answers POST only, which "
                    "bench run checks"
                )
                continue
            click.echo(f"{report.url}  reachable  engine: {report.engine}")
            if report.models:
                click.echo(f"  models: {', '.join(report.models)}")
            if report.needs_key:
                click.echo("  /v1/models wants an API key (--api-key-env)")
            for line in report.evidence:
                click.echo(f"  declared: {line}")
            if not report.evidence:
                click.echo(f"  declared: nothing (engine unknown); looked at: {looked}")
            details = [
                f"{name} {value}"
                for name, value in (
                    ("version", report.version),
                    ("context window", report.context_window),
                    ("quantisation", report.quantisation),
                )
                if value is not None
            ]
            if details:
                click.echo(f"  {', '.join(details)}")
            if report.renders_tools is False:
                click.echo(f"  warning: {TOOLS_DROPPED.format(url=report.url)}")
    if not found:
        why = reports[0].not_connected() if base_url is not None else None
        words = {
            REFUSED: "connection refused: nothing listens there",
            NO_SUCH_HOST: "the host name does not resolve",
            TLS_FAILED: "the TLS handshake failed: a plain http:// server?",
        }
        raise EntrantError(
            f"nothing answered at {where}" + (f" ({words[why]})" if why else ""),
            code="ENDPOINT_UNREACHABLE",
        )
