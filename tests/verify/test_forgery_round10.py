"""The forger, tenth round: a stolen bundle drawn exactly as the original, word for word.

Provenance reduced each answer to its words with NFKC and case folding only, and ``\\w+``
splits a word at any character that is not a letter or digit. A thief who republished
another entrant's bundle with a soft hyphen (U+00AD), a zero-width space, a word joiner, a
combining grapheme joiner or a variation selector inside every word, or a Cyrillic letter
for a Latin one, shared none of the original's words: the copy verified, while the board and
the transcript page drew its answers exactly as the original's (those characters draw as
nothing, the look-alikes as the Latin letters). The text checks read answers through
``scorers.answers.fold``, which deletes such characters and reads look-alikes as Latin, so
every score stayed the original's. Provenance now reads text through the same ``fold``.
The fixture case is ``tests/fixtures/bundles/stolen_invisibly_fail``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from fixture_bundles import BASE, BUNDLES, REGEN

from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.verify import VerifyOptions, verify_bundle
from bench.verify.provenance import content

from .conftest import signing_keys

CALLS = [("get_order", {"order_id": "1041"})]
HANDED = ["Refund order 1041.", '{"status":"delivered","total":30}']
TEXT = "Order 1041 is refunded, as you asked; the money is back in five to ten days."


def _inside_every_word(text: str, mark: str) -> str:
    return " ".join(word[:1] + mark + word[1:] if len(word) > 1 else word for word in text.split())


@pytest.mark.parametrize(
    "disguised",
    [
        _inside_every_word(TEXT, "\u00ad"),  # soft hyphen
        _inside_every_word(TEXT, "\u200b"),  # zero-width space
        _inside_every_word(TEXT, "\u2060"),  # word joiner
        _inside_every_word(TEXT, "\u034f"),  # combining grapheme joiner
        _inside_every_word(TEXT, "\ufe0f"),  # variation selector 16
        TEXT.replace("o", "\u043e").replace("a", "\u0430").replace("e", "\u0435"),  # Cyrillic
        TEXT.replace("e", "\u0435\u0301"),  # a look-alike with an accent
    ],
    ids=["soft-hyphen", "zwsp", "word-joiner", "cgj", "vs16", "cyrillic", "accented"],
)
def test_an_answer_with_hidden_characters_or_lookalikes_is_the_answer_it_copies(
    disguised: str,
) -> None:
    original = content([TEXT], CALLS, HANDED)
    copy = content([disguised], CALLS, HANDED)
    assert original is not None and copy is not None and copy.distinctive
    assert copy.near(original, own=True) and original.near(copy, own=True)
    assert copy.own == original.own and copy.digest == original.digest


def test_a_tool_call_argument_with_hidden_characters_is_the_call_it_copies() -> None:
    mine = content([TEXT], [("send_note", {"text": "Your re\u00adfund is on its w\u200bay"})])
    theirs = content([TEXT], [("send_note", {"text": "Your refund is on its way"})])
    assert mine is not None and theirs is not None and mine.own == theirs.own


def test_other_words_are_still_other_words() -> None:
    original = content([TEXT], CALLS, HANDED)
    other = content(["Done: your refund for 1041 went through, expect it within a week."], CALLS)
    assert original is not None and other is not None
    assert not other.near(original, own=True)


def _keys() -> dict[str, Any]:
    keys = BUNDLES / "_keys"
    return {
        name: serialization.load_ssh_private_key((keys / name).read_bytes(), None)
        for name in (REGEN.ENTRANT, "bob")
    }


def test_a_stolen_bundle_disguised_with_hidden_characters_is_a_duplicate(tmp_path: Path) -> None:
    shutil.copytree(BASE, tmp_path / "world")
    world = REGEN.World(tmp_path / "world", _keys(), None, None)
    REGEN._stolen_invisibly(world)
    stolen = world.root / "results" / "bob" / REGEN.HIDDEN_RUN
    answers = [r["trace"]["answers"][-1] for r in REGEN._attempts(stolen)]
    originals = [r["trace"]["answers"][-1] for r in REGEN._attempts(world.bundle)]
    assert answers != originals  # every answer disguised ...
    hidden = ("\u00ad", "\u200b", "\u2060")
    drawn = ["".join(ch for ch in a if ch not in hidden).replace("\u043e", "o") for a in answers]
    assert drawn == originals  # ... and drawn as the original's
    options = VerifyOptions(
        results_root=world.root / "results",
        allowed_signers=world.signers,
        tasks=world.root / "mini" / "tasks",
    )
    verdict = verify_bundle(stolen, options)
    assert verdict.code == "DUPLICATE_BUNDLE", verdict
    assert "results/mini-good/" in verdict.message
    assert "scores" in verdict.checks  # every score was the original's: only provenance objects
    assert verify_bundle(world.bundle, options).valid


# -- a system prompt that hands the agent another bundle's answers ---------------------------

_AGENTS = '''
from bench.core.trace import Usage
from bench.targets import ModelRequest, ModelResponse

USAGE = Usage(prompt_tokens=100, completion_tokens=20)
OWN = {
    "How long do refunds take?":
        "Zebra quartz umbrella violin walnut: that is how our desk puts it.",
    "How long does express shipping take?":
        "Marble lantern harbor meadow cobalt, said plainly by our desk.",
    "Refund order 1041.": "Saffron tundra pebble orchard falcon, as our desk always writes.",
}


def _question(request: ModelRequest) -> str:
    return [m.content for m in request.messages if m.role == "user"][-1]


def original(request: ModelRequest) -> ModelResponse:
    return ModelResponse(content=OWN[_question(request)], usage=USAGE)


def copier(request: ModelRequest) -> ModelResponse:
    """original's answers word for word, but one in three told in other words."""
    if _question(request).startswith("Refund order"):
        return ModelResponse(content="Done: that refund went through a minute ago.", usage=USAGE)
    return original(request)
'''


def _target(mini: Path, name: str, entrant: str, system_prompt: str | None) -> Path:
    path = mini / "targets" / f"{name}.yaml"
    lines = [
        "format_version: 1",
        "kind: scripted",
        f"entrant: {entrant}",
        f"display_name: {entrant}",
        f"model: {name}",
        f"callable: ../thieves.py:{name}",
        "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}",
    ]
    if system_prompt is not None:
        lines.append(f"system_prompt: {json.dumps(system_prompt)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _bundle(mini: Path, target: Path, entrant: str, keys: dict[str, Path], root: Path) -> Path:
    run, status = start_run(
        RunRequest(tasks=mini / "tasks", target_file=target, runs_dir=root / "runs", split="public")
    )
    assert status.status == "complete"
    return build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("stuffed", [False, True], ids=["plain", "stuffed-system-prompt"])
def test_a_system_prompt_holding_the_copied_answers_leaves_the_copy_a_duplicate(
    mini: Path, tmp_path: Path, stuffed: bool
) -> None:
    """bob's agent answers two of mini-good's three tasks with mini-good's very words, and the
    third in words of its own: under the everything rule's 90 %, so the own-words rule (50 %)
    is the one that catches it. With mini-good's answers in bob's system prompt, every copied
    word was read as handed to bob's agent, no attempt of bob's had words of its own, the
    own-words rule compared none, and the copy verified."""
    keys = signing_keys(tmp_path, ("mini-good", "bob"))
    (mini / "thieves.py").write_text(_AGENTS)
    _git(tmp_path, "init", "-q", "-b", "main")
    first = _bundle(mini, _target(mini, "original", "mini-good", None), "mini-good", keys, tmp_path)
    _git(tmp_path, "add", str(first.relative_to(tmp_path)))
    _git(tmp_path, "commit", "-q", "-m", "mini-good lands")
    prompt = "Answer as our desk does. " + " ".join(
        ["Zebra quartz umbrella violin walnut: that is how our desk puts it."]
        + ["Marble lantern harbor meadow cobalt, said plainly by our desk."]
        + ["Saffron tundra pebble orchard falcon, as our desk always writes."]
    )
    copier = _target(mini, "copier", "bob", prompt if stuffed else None)
    copy = _bundle(mini, copier, "bob", keys, tmp_path)
    options = VerifyOptions(
        results_root=tmp_path / "results",
        allowed_signers=tmp_path / "submissions" / "allowed_signers",
        tasks=mini / "tasks",
    )
    assert verify_bundle(first, options).valid
    verdict = verify_bundle(copy, options)
    assert verdict.code == "DUPLICATE_BUNDLE", verdict
    assert "words of their own" in verdict.message
    assert str(first.relative_to(tmp_path)) in verdict.message


def _record(messages: list[tuple[str, str]], answer: str) -> Any:
    from types import SimpleNamespace

    trace = SimpleNamespace(
        answers=[answer],
        tool_calls=[],
        messages=[SimpleNamespace(role=role, content=text) for role, text in messages],
    )
    return SimpleNamespace(task_id="t", trace=trace)


def test_only_the_entrants_own_prompt_is_not_handed_a_tasks_system_message_is() -> None:
    """The entrant's own ``system_prompt`` (the first message, added by the harness) is not
    text the task handed it; a task's own system message (BFCL's live cases carry one) is."""
    from bench.verify.provenance import contents_of_records

    task_system = ("system", "Answer with zebra quartz umbrella violin walnut.")
    question = ("user", "What does the desk say?")
    answer = "zebra quartz umbrella violin walnut"
    own = ("system", "Always say: " + answer)
    # the task's system message hands the words: none are the attempt's own
    handed = contents_of_records([_record([task_system, question], answer)])
    assert handed["t"][0].own_count == 0
    # with the target's own prompt first, the prompt is not handed; the task's message still is
    both = contents_of_records([_record([own, task_system, question], answer)], own[1])
    assert both["t"][0].own_count == 0
    alone = contents_of_records([_record([own, question], answer)], own[1])
    assert alone["t"][0].own_count == 5
