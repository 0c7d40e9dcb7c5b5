"""``bench mock-server``: the loopback-only mock inference server, in the foreground."""

from __future__ import annotations

import click

from .common import CONTEXT


@click.command("mock-server", context_settings=CONTEXT)
@click.option(
    "--host",
    type=click.Choice(["127.0.0.1", "::1"]),
    default="127.0.0.1",
    show_default=True,
    help="Loopback only; nothing else can be bound.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="0 picks a free port.")  # fmt: skip
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="PLAN",
    help="A server-wide fault plan, e.g. '429,retry-after=1,times=2' or '503,times=3+drip' "
    "(repeatable; see docs/TARGETS.md).",
)
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="Require the key held by this environment variable.",
)
@click.option(
    "--latency",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Seconds added to every model answer.",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(min=0.1),
    default=600.0,
    show_default=True,
    help="Stop after this long.",
)
@click.option("--no-declare", is_flag=True, help="Do not say what it is (probe sees 'unknown').")
@click.option("--declared-version", default="1", show_default=True,
              help="The version it declares (Server header, /health).")  # fmt: skip
@click.option("--context-window", type=click.IntRange(min=1),
              help="Declare this context window (max_model_len in /v1/models).")  # fmt: skip
@click.option("--quantisation", help="Declare this quantisation (/health).")
@click.option("--serial", is_flag=True,
              help="Answer model requests one at a time, working a plain answer out to the end "
              "even when the client has gone (as llama-cpp-python does).")  # fmt: skip
@click.option("--loading", type=click.FloatRange(min=0), default=0.0, metavar="SECONDS",
              help="Answer every request with HTTP 503 'Loading model' for this long after "
              "starting (as llama.cpp's server does while it loads a model).")  # fmt: skip
def mock_server(
    host: str,
    port: int,
    faults: tuple[str, ...],
    api_key_env: str | None,
    latency: float,
    max_seconds: float,
    no_declare: bool,
    declared_version: str,
    context_window: int | None,
    quantisation: str | None,
    serial: bool,
    loading: float,
) -> None:
    """Serve a mock OpenAI-compatible (/v1/chat/completions, /v1/models, /health) and Anthropic
    (/v1/messages) endpoint on loopback, with a deterministic tool-calling policy and faults on
    demand. Prints the URL, then serves until Ctrl-C or --max-seconds."""
    from bench.core.errors import UsageError
    from bench.testing.mock_server import run

    try:
        run(
            host=host,
            port=port,
            faults=faults,
            api_key_env=api_key_env,
            latency=latency,
            max_seconds=max_seconds,
            declare=not no_declare,
            announce=lambda url: click.echo(url),
            version=declared_version,
            context_window=context_window,
            quantisation=quantisation,
            serial=serial,
            loading_s=loading,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # the port is taken, or the address cannot be bound
        import errno

        in_use = exc.errno == errno.EADDRINUSE
        reason = "another process is listening there" if in_use else exc.strerror or str(exc)
        raise UsageError(
            f"cannot listen on {host} port {port}: {reason} (--port 0 picks a free port)"
        ) from None
