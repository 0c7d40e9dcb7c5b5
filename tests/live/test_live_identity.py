"""Engine identification enters the config fingerprint: what a server declares (engine,
version, context window, quantisation) is recorded with the run and changes its fingerprint,
never its cohort; a replay keeps it; ``--system-prompt`` changes the fingerprint too."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.runner import RunRequest, start_run
from bench.targets import declared
from bench.targets.probe import declared as names_engine
from bench.targets.probe import probe
from bench.testing.mock_server import MockServer


def _run(mini: Path, target: Path, **changes: Any) -> Any:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": target,
        "runs_dir": mini / "runs",
        "split": "public",
        "task_ids": ("qa-0001",),
    }
    values.update(changes)
    run_dir, status = start_run(RunRequest(**values))
    assert status.status == "complete"
    return run_dir.config()


def test_a_run_records_what_the_server_declares(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    with MockServer(max_seconds=60, context_window=8192, quantisation="Q4_K_M") as server:
        config = _run(mini, target_file("ident", server.url + "/v1"))
    assert config.server == {
        "engine": "bench-mock",
        "version": "1",
        "context_window": 8192,
        "quantisation": "Q4_K_M",
    }


def test_a_declared_change_changes_the_fingerprint_not_the_cohort(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    configs = []
    for server_args in (
        {},
        {"version": "2"},
        {"context_window": 4096},
        {"quantisation": "AWQ"},
        {"declare": False},
    ):
        with MockServer(max_seconds=60, **server_args) as server:
            configs.append(_run(mini, target_file("ident", server.url + "/v1")))
    assert len({c.fingerprint() for c in configs}) == len(configs)
    assert len({c.cohort_key() for c in configs}) == 1
    assert configs[-1].server == {
        "engine": "unknown",
        "version": None,
        "context_window": None,
        "quantisation": None,
    }
    # The same declarations again: the same fingerprint (the port is not part of it).
    with MockServer(max_seconds=60) as server:
        again = _run(mini, target_file("ident", server.url + "/v1"))
    assert again.fingerprint() == configs[0].fingerprint()


def test_the_system_prompt_changes_the_fingerprint(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    plain = _run(mini, target_file("ident", server.url + "/v1"))
    prompted = _run(
        mini,
        target_file("ident", server.url + "/v1"),
        target_overrides={"system_prompt": "Answer briefly."},
    )
    assert prompted.comparable["system_prompt"] == "Answer briefly."
    assert plain.fingerprint() != prompted.fingerprint()
    assert plain.cohort_key() == prompted.cohort_key()


def test_a_replay_keeps_the_recorded_declarations(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    with MockServer(max_seconds=60, context_window=2048) as server:
        live = _run(mini, target_file("ident", server.url + "/v1"))
    replayed = _run(mini, None, target_file=None, replay=live.run_id)
    assert replayed.server == live.server
    assert replayed.server["context_window"] == 2048


def test_an_unreachable_server_is_unknown(mini: Path, target_file: Callable[..., Path]) -> None:
    with MockServer(max_seconds=5) as server:
        url = server.url
    report = asyncio.run(probe(url, timeout_s=0.5))
    assert not report.reachable
    assert report.identity().model_dump() == {
        "engine": "unknown",
        "version": None,
        "context_window": None,
        "quantisation": None,
    }


def _json(body: object, **headers: str) -> httpx.Response:
    return httpx.Response(200, json=body, headers=headers)


@pytest.mark.parametrize(
    ("found", "model", "expected"),
    [
        (  # vLLM: /version and max_model_len
            {
                "/version": _json({"version": "0.6.3.post1"}),
                "/v1/models": _json(
                    {"data": [{"id": "m", "owned_by": "vllm", "max_model_len": 32768}]}
                ),
            },
            "m",
            ("0.6.3.post1", 32768, None),
        ),
        (  # llama.cpp: /props
            {
                "/props": _json(
                    {
                        "build_info": "b4127-1f1e0d3",
                        "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
                        "default_generation_settings": {"n_ctx": 8192},
                    }
                )
            },
            None,
            ("b4127-1f1e0d3", 8192, "Q4_K_M"),
        ),
        (  # TGI: /info
            {
                "/info": _json(
                    {"version": "2.4.0", "max_total_tokens": 4096, "quantize": "awq"},
                    server="text-generation-router",
                )
            },
            None,
            ("2.4.0", 4096, "awq"),
        ),
        (  # Ollama: /api/version and /api/tags
            {
                "/api/version": _json({"version": "0.4.1"}),
                "/api/tags": _json(
                    {
                        "models": [
                            {"name": "other:1b", "details": {"quantization_level": "F16"}},
                            {"name": "llama3:8b", "details": {"quantization_level": "Q4_0"}},
                        ]
                    }
                ),
            },
            "llama3:8b",
            ("0.4.1", None, "Q4_0"),
        ),
        (  # a proxy's Server header is not the engine's version
            {"/v1/models": _json({"data": [{"id": "m"}]}, server="nginx/1.25.3")},
            "m",
            (None, None, None),
        ),
        (  # a Server header that names the engine carries its version
            {"/health": _json({"status": "ok"}, server="bench-mock/7")},
            None,
            ("7", None, None),
        ),
        (  # another model's declarations are not this model's
            {"/v1/models": _json({"data": [{"id": "a", "max_model_len": 1}, {"id": "b"}]})},
            "b",
            (None, None, None),
        ),
    ],
)
def test_declarations_are_read_per_engine(
    found: dict[str, httpx.Response], model: str | None, expected: tuple[Any, ...]
) -> None:
    got = (
        declared.version(found, names_engine),
        declared.context_window(found, model),
        declared.quantisation(found, model),
    )
    assert got == expected


def test_probe_reports_the_declarations_once() -> None:
    with MockServer(max_seconds=30, context_window=8192, quantisation="Q8_0") as server:
        report = asyncio.run(probe(server.url))
    assert (report.version, report.context_window, report.quantisation) == ("1", 8192, "Q8_0")
    assert len(report.evidence) == len(set(report.evidence)) == 3
