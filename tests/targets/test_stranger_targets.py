"""What a stranger met bringing their own agent (docs/BRING-YOUR-OWN.md), on the target side:
an http-agent on a wrong port, a module beside them named as a module, the words of a reply
the harness cannot use, and target fields an http-agent never sends."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError, InputError
from bench.records.run import RunConfig
from bench.runner import RunRequest, start_run
from bench.targets import ModelRequest, TargetSpec, load_target
from bench.targets.agent import AgentReplyError, agent_reply
from bench.targets.probe import server_identity
from bench.targets.scripted import ScriptedTarget
from bench.verify.failure import VerifyFailure
from bench.verify.targetfields import check_target_fields

REPO = Path(__file__).resolve().parents[2]
BASE_CONFIG = next((REPO / "tests/fixtures/bundles/_base/results").glob("*/*/config.json"))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _agent_file(where: Path, url: str, extra: str = "") -> Path:
    path = where / "agent.yaml"
    path.write_text(
        "format_version: 1\nkind: http-agent\nentrant: acme-agent\ndisplay_name: Acme agent\n"
        f"model: acme-agent-v1\nbase_url: {url}\n{extra}",
        encoding="utf-8",
    )
    return path


def test_an_http_agent_nothing_listens_on_is_refused_before_anything_is_written(
    mini: Path,
) -> None:
    """It was a run left ``started`` (five tasks or more) or one *complete* with every attempt
    errored, the entrant's latest run on the local board."""
    url = f"http://127.0.0.1:{_closed_port()}/agent"
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=_agent_file(mini, url),
        split="public",
        runs_dir=mini / "runs",
        wait_ready_s=0,
    )
    with pytest.raises(EntrantError) as info:
        start_run(request)
    assert info.value.code == "ENDPOINT_UNREACHABLE"
    assert info.value.message == (
        f"nothing accepts connections at {url} (refused); start the server or fix the port, or "
        "wait longer for it with --wait-ready SECONDS; the run is not started"
    )
    assert not (mini / "runs").exists() or not any((mini / "runs").iterdir())


def test_an_http_agent_is_waited_for_and_sent_nothing_but_a_connection() -> None:
    """The wait of --wait-ready, as for an openai server; no HTTP, which would run a turn."""
    port = _closed_port()
    spec = TargetSpec(
        kind="http-agent",
        entrant="acme-agent",
        display_name="Acme agent",
        model="acme-agent-v1",
        base_url=f"http://127.0.0.1:{port}/agent?key=secret",
    )
    told: list[str] = []
    listener = socket.socket()

    def started(notice: str) -> None:  # the agent comes up once the run says it waits
        told.append(notice)
        listener.bind(("127.0.0.1", port))
        listener.listen()

    try:
        found = asyncio.run(server_identity(spec, wait_s=60, poll_s=0.01, on_wait=started))
        assert found is None  # an agent declares nothing for the fingerprint
        assert told == [
            f"waiting up to 60 s for the server at http://127.0.0.1:{port}/agent to accept "
            "connections (refused: not started yet?)"
        ]
        connection, _ = listener.accept()
        with connection:
            connection.settimeout(5)
            assert connection.recv(1024) == b""  # connected, closed, not a byte sent
    finally:
        listener.close()


def test_the_live_verifier_checks_no_http_agent_connection() -> None:
    spec = TargetSpec(
        kind="http-agent",
        entrant="acme-agent",
        display_name="Acme agent",
        model="acme-agent-v1",
        base_url=f"http://127.0.0.1:{_closed_port()}/agent",
    )
    assert asyncio.run(server_identity(spec, refuse_unreachable=False)) is None


def _scripted(home: Path, reference: str) -> Path:
    (home / "targets").mkdir(exist_ok=True)
    path = home / "targets" / "bot.yaml"
    path.write_text(
        "format_version: 1\nkind: scripted\nentrant: mybot\ndisplay_name: My bot\n"
        f"model: mybot-v1\ncallable: {reference}\n",
        encoding="utf-8",
    )
    return path


def test_a_module_beside_you_is_named_as_the_file_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "u15_mybot.py").write_text("def answer(request):\n    return {}\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as info:
        load_target(_scripted(tmp_path, "u15_mybot:answer"))
    assert info.value.code == "TARGET_CALLABLE"
    assert str(info.value.message).endswith(
        "cannot import module 'u15_mybot': No module named 'u15_mybot'; modules come from "
        "sys.path, which does not hold the current directory where u15_mybot.py is: name the "
        "file, relative to the target file, as '../u15_mybot.py:answer'"
    )


def test_a_module_found_nowhere_says_where_modules_come_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as info:
        load_target(_scripted(tmp_path, "u15_nowhere.bots:answer"))
    assert str(info.value.message).endswith(
        "No module named 'u15_nowhere'; modules come from sys.path (installed packages, "
        "PYTHONPATH), not the current directory: a file is named relative to the target file, "
        "as 'u15_nowhere/bots.py:answer'"
    )


def test_a_module_whose_own_import_fails_gets_no_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "u15_broken.py").write_text("import u15_not_installed\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InputError) as info:
        load_target(_scripted(tmp_path, "u15_broken:answer"))
    assert str(info.value.message) == (
        "cannot import module 'u15_broken': No module named 'u15_not_installed'"
    )


@pytest.mark.parametrize(
    ("returned", "said"),
    [
        ({"text": "hi"}, "text: Extra inputs are not permitted"),
        (
            {"tool_calls": [{"id": "a", "name": "f", "arguments": {}, "args": {}}]},
            "tool_calls[0].args: Extra inputs are not permitted",
        ),
        ("hi", "Input should be a valid dictionary or instance of ModelResponse"),
    ],
)
def test_a_scripted_reply_the_harness_cannot_use_names_its_field(returned: Any, said: str) -> None:
    spec = TargetSpec(
        kind="scripted", entrant="mybot", display_name="My bot", model="m", callable="x.py:f"
    )
    target = ScriptedTarget(spec, lambda request: returned)
    with pytest.raises(EntrantError) as info:
        asyncio.run(target.complete(ModelRequest(model="m", messages=[])))
    assert info.value.code == "ENTRANT_BAD_RESPONSE"
    assert info.value.message == (
        f"the scripted entrant returned something that is not a ModelResponse: {said}"
    )


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (None, "null"),
        (7, "a number"),
        (1.5, "a number"),
        (True, "a boolean"),
        (["yes"], "an array"),
        ({"text": "yes"}, "an object"),
    ],
)
def test_an_agents_answer_is_named_by_its_json_type(answer: Any, said: str) -> None:
    with pytest.raises(AgentReplyError) as info:
        agent_reply({}, {"answer": answer})
    assert info.value.code == "AGENT_BAD_ANSWER"
    assert info.value.message == f"the agent's 'answer' is {said}, not a string"


@pytest.mark.parametrize(
    "extra", ["params: {temperature: 0}\n", "tool_choice: required\n", "params: {}\n"]
)
def test_an_http_agent_refuses_what_it_never_sends(tmp_path: Path, extra: str) -> None:
    """A turn carries no sampling parameters and no tool-choice policy: the file's were
    accepted, recorded in the fingerprint, and never sent."""
    field = extra.split(":")[0]
    with pytest.raises(InputError) as info:
        load_target(_agent_file(tmp_path, "http://127.0.0.1:9/agent", extra))
    assert (info.value.code, info.value.field) == ("TARGET_INVALID", field)
    assert info.value.message == (
        "unknown field for an http-agent target (it is for scripted, cassette, openai and "
        "anthropic)"
    )


def test_verify_refuses_a_recorded_http_agent_that_sets_them(tmp_path: Path) -> None:
    """verify reads the same table: no run records an http-agent's params."""
    config: dict[str, Any] = json.loads(BASE_CONFIG.read_text(encoding="utf-8"))
    config["target_kind"] = "http-agent"
    config["target"].update(
        {"kind": "http-agent", "callable": None, "base_url": "http://127.0.0.1:9"}
    )
    honest = RunConfig.model_validate(config)
    check_target_fields(
        tmp_path, honest.model_copy(update={"target": {**honest.target, "params": {}}})
    )
    with pytest.raises(VerifyFailure) as info:
        check_target_fields(tmp_path, honest)
    assert info.value.field == "target.params"
