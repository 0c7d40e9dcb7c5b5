"""The generated task set: counts, determinism, stable ids, the drift check, validation."""

from __future__ import annotations

import difflib
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bench.cli.task_cmd import task as task_group
from bench.tasks.generators import EXPECTED_COUNTS, build_tasks, counts, render_files
from bench.tasks.load import load_task_set
from bench.world import check_task_set

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO / "corpora"
TASKS = REPO / "tasks"


def test_counts_per_family_and_split(generated: list[dict[str, Any]]) -> None:
    table = counts(generated)
    assert {family: (c["public"], c["private"]) for family, c in table.items()} == EXPECTED_COUNTS
    assert len(generated) == 172


def test_ids_are_unique_and_name_their_family_and_split(generated: list[dict[str, Any]]) -> None:
    ids = [task["id"] for task in generated]
    assert len(ids) == len(set(ids))
    for task in generated:
        assert ("-pub-" in task["id"]) == (task["split"] == "public")


def test_turkish_is_authored_in_both_required_families(generated: list[dict[str, Any]]) -> None:
    turkish = [task for task in generated if task["language"] == "tr"]
    assert len(turkish) >= 24
    families = Counter(task["family"] for task in turkish)
    assert families["tool-trajectory"] >= 8 and families["refusal-and-safety"] >= 16
    registers = {
        tag
        for task in turkish
        for tag in task["tags"]
        if tag.startswith("register-") and tag != "register-group"
    }
    assert {
        "register-formal",
        "register-short-message",
        "register-elderly",
        "register-regional",
        "register-no-punctuation",
        "register-all-caps",
        "register-emoji",
    } <= registers


def test_every_safety_task_has_a_refusal_check_and_a_partner(
    generated: list[dict[str, Any]],
) -> None:
    # The refusal phrase list holds English and Turkish phrases, so Turkish safety tasks are
    # checked on their words too; the two sides of a pair are scored as a pair.
    from bench.scorers.refusal import find_refusal

    assert find_refusal("Bunu yapamam, yetkim yok.") is not None
    ids = {task["id"] for task in generated}
    for task in generated:
        if task["family"] != "refusal-and-safety":
            continue
        refusals = [e for e in task["expectations"] if e["type"] == "refusal"]
        must = task["id"].endswith("-refuse")
        assert [e["must_refuse"] for e in refusals] == [must], task["id"]
        assert "trajectory" in {e["type"] for e in task["expectations"]}, task["id"]
        stem = task["id"].removesuffix("-refuse").removesuffix("-help")
        assert {stem + "-refuse", stem + "-help"} <= ids, task["id"]


def test_output_is_byte_identical_on_every_run(
    corpus: tuple[dict[str, str], dict[str, bytes]],
) -> None:
    first = render_files(build_tasks(corpus[0]), corpus[1])
    second = render_files(build_tasks(corpus[0]), corpus[1])
    assert first == second


def test_public_n_keeps_the_first_n_and_never_renumbers(
    corpus: tuple[dict[str, str], dict[str, bytes]], generated: list[dict[str, Any]]
) -> None:
    small = build_tasks(corpus[0], public=3)
    for family in EXPECTED_COUNTS:
        full_public = [
            t["id"] for t in generated if t["family"] == family and t["split"] == "public"
        ]
        kept = [t["id"] for t in small if t["family"] == family and t["split"] == "public"]
        assert kept == full_public[:3]
    private = [t for t in generated if t["split"] == "private"]
    assert [t for t in small if t["split"] == "private"] == private


def test_private_half_is_not_a_rename_of_the_public_half(generated: list[dict[str, Any]]) -> None:
    def ask(task: dict[str, Any]) -> str:
        return "\n".join(m["content"] for m in task["input"] if m["role"] == "user")

    public = {ask(t) for t in generated if t["split"] == "public"}
    private = {ask(t) for t in generated if t["split"] == "private"}
    assert public.isdisjoint(private)
    for task in generated:  # a fact's two probes ask for different phrases
        if task["family"] == "grounded-qa" and task["split"] == "private":
            twin = next(t for t in generated if t["id"] == task["id"].replace("-prv-", "-pub-"))
            if task["expectations"][0]["type"] == "contains":
                assert task["expectations"][0] != twin["expectations"][0]


def test_committed_tasks_match_the_generator_byte_for_byte(
    corpus: tuple[dict[str, str], dict[str, bytes]],
) -> None:
    files = render_files(build_tasks(corpus[0]), corpus[1])
    diffs: list[str] = []
    for name, data in sorted(files.items()):
        path = TASKS / name
        committed = path.read_text(encoding="utf-8") if path.is_file() else ""
        expected = data.decode("utf-8")
        if committed != expected:
            diffs.extend(
                difflib.unified_diff(
                    committed.splitlines(keepends=True),
                    expected.splitlines(keepends=True),
                    fromfile=f"tasks/{name} (committed)",
                    tofile=f"tasks/{name} (generated)",
                )
            )
    assert not diffs, "tasks/ drifted from the generator; run `bench task generate`:\n" + "".join(
        diffs
    )


def test_committed_set_validates_and_every_world_builds() -> None:
    task_set = load_task_set(TASKS, CORPORA)
    check_task_set(task_set)
    assert len(task_set.tasks) == 172


def test_generate_command_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    runner = CliRunner()
    result = runner.invoke(task_group, ["generate", "--out", str(out), "--corpora", str(CORPORA)])
    assert result.exit_code == 0, result.output
    assert "all                           86       86    172" in result.output
    check = runner.invoke(
        task_group, ["generate", "--out", str(out), "--corpora", str(CORPORA), "--check"]
    )
    assert check.exit_code == 0, check.output
    target = out / "long-horizon.public.yaml"
    target.write_text(
        target.read_text(encoding="utf-8").replace("R-502", "R-503"), encoding="utf-8"
    )
    drift = runner.invoke(
        task_group, ["generate", "--out", str(out), "--corpora", str(CORPORA), "--check"]
    )
    assert drift.exit_code == 1
    assert "-        randevu_no: R-503" in drift.output
    assert "+        randevu_no: R-502" in drift.output
