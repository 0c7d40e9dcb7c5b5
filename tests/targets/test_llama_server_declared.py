"""What llama.cpp's own ``llama-server`` declares, read as it says it: the bytes below are what
``llama-server`` b1-0c1e570 (the llama.cpp vendored in llama-cpp-python 0.3.36, built by
tests/real/llama_server.py) sent for ``--ctx-size 2048 --parallel 1`` serving SmolLM2-135M,
replayed on 127.0.0.1 as it wrote them."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import pytest

from bench.targets.probe import probe

HEAD = (
    b"HTTP/1.1 200 OK\r\nServer: llama.cpp\r\nAccess-Control-Allow-Origin: \r\n"
    b"Content-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n"
    b"Connection: close\r\n\r\n"
)
MODELS = (
    b'{"models":[{"name":"smollm2","model":"smollm2","modified_at":"","size":"","digest":"",'
    b'"type":"model","description":"","tags":[""],"capabilities":["completion"],'
    b'"parameters":"","details":{"parent_model":"","format":"gguf","family":"","families":'
    b'[""],"parameter_size":"","quantization_level":""}}],"object":"list","data":[{"id":'
    b'"smollm2","aliases":["smollm2"],"tags":[],"object":"model","created":1796614131,'
    b'"owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":49152,"n_ctx":2048,'
    b'"n_ctx_train":8192,"n_embd":576,"n_params":134515008,"size":96576768,"ftype":"Q4_1"}}]}'
)
HEALTH = b'{"status":"ok"}'
RECORDED = {"/v1/models": HEAD % len(MODELS) + MODELS, "/health": HEAD % len(HEALTH) + HEALTH}
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@pytest.fixture
def llama_server() -> Iterator[str]:
    """Answers each request with the recorded bytes of its path, then closes."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)  # so the loop sees ``stop``: a closed socket does not wake accept()
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    request += chunk
                parts = request.split(b" ", 2)
                path = parts[1].decode() if len(parts) > 1 else ""
                conn.sendall(RECORDED.get(path, NOT_FOUND))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()


def test_the_context_window_is_the_one_llama_server_serves(llama_server: str) -> None:
    """``meta.n_ctx`` (2048, what each request gets) is the window, not ``meta.n_ctx_train``
    (8192, what the model was trained for): a run's fingerprint and its board row said 8192."""
    report = asyncio.run(probe(llama_server + "/v1", model="smollm2"))
    assert report.engine == "llama.cpp"
    assert report.models == ["smollm2"]
    assert report.context_window == 2048
    unnamed = asyncio.run(probe(llama_server + "/v1"))
    assert unnamed.context_window == 2048


def test_an_older_llama_server_declares_only_the_trained_window() -> None:
    """Builds before ``meta.n_ctx`` existed: the trained window is all there is."""
    from bench.targets.declared import Answered, context_window

    older = MODELS.replace(b'"n_ctx":2048,', b"")
    found = {"/v1/models": Answered(200, {}, older)}
    assert context_window(found, "smollm2") == 8192


# /props as llama-server writes it (tools/server/server-context.cpp: ``chat_template_caps`` is
# ``common_chat_templates_get_caps``), trimmed to the fields read here
PROPS_NO_TOOLS = (
    b'{"default_generation_settings":{"n_ctx":2048},"total_slots":1,"model_path":'
    b'"/x/SmolLM2-135M-Instruct.Q4_1.gguf","chat_template_caps":{"supports_object_arguments":'
    b'false,"supports_parallel_tool_calls":false,"supports_preserve_reasoning":false,'
    b'"supports_string_content":true,"supports_system_role":true,"supports_tool_calls":false,'
    b'"supports_tools":false,"supports_typed_content":false},"build_info":"b1-0c1e570"}'
)


def test_a_chat_template_without_tools_is_named_by_the_probe(
    llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SmolLM2's own template has no tools: ``llama-server --jinja`` drops every tool a request
    offers, silently, even under ``tool_choice: "required"``. It says so in ``/props``; the
    probe reports it and ``bench probe`` warns. A server that says nothing is not warned of."""
    from click.testing import CliRunner

    from bench.cli.main import cli

    report = asyncio.run(probe(llama_server + "/v1"))
    assert report.renders_tools is None  # /props not recorded: nothing declared
    monkeypatch.setitem(RECORDED, "/props", HEAD % len(PROPS_NO_TOOLS) + PROPS_NO_TOOLS)
    report = asyncio.run(probe(llama_server + "/v1"))
    assert report.renders_tools is False
    said = CliRunner().invoke(cli, ["probe", "--base-url", llama_server + "/v1"])
    assert said.exit_code == 0, said.output
    assert "declares a chat template without tools" in said.output
    with_tools = PROPS_NO_TOOLS.replace(b'"supports_tools":false', b'"supports_tools":true')
    monkeypatch.setitem(RECORDED, "/props", HEAD % len(with_tools) + with_tools)
    assert asyncio.run(probe(llama_server + "/v1")).renders_tools is True
    said = CliRunner().invoke(cli, ["probe", "--base-url", llama_server + "/v1"])
    assert "warning" not in said.output


def test_a_run_is_told_its_server_drops_the_tools(
    llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At run start the server's identity is read: a template without tools is a notice (the
    run goes on; its tool tasks will fail for the server, not the harness)."""
    from bench.targets import TargetSpec
    from bench.targets.probe import server_identity

    spec = TargetSpec.model_validate(
        {"kind": "openai", "entrant": "e", "display_name": "e", "model": "smollm2",
         "base_url": llama_server + "/v1"}
    )  # fmt: skip
    notes: list[str] = []
    asyncio.run(server_identity(spec, on_wait=notes.append))
    assert notes == []
    monkeypatch.setitem(RECORDED, "/props", HEAD % len(PROPS_NO_TOOLS) + PROPS_NO_TOOLS)
    identity = asyncio.run(server_identity(spec, on_wait=notes.append))
    assert identity is not None and identity.engine == "llama.cpp"
    [note] = notes
    assert "declares a chat template without tools" in note and llama_server in note
