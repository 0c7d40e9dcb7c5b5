"""`bench check` and `bench task import` through click's CliRunner, on the commands directly."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from bench.cli.check_cmd import check
from bench.cli.task_cmd import task
from bench.core.errors import InputError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cases" / "support-desk.json"
BAD = Path(__file__).parent / "fixtures" / "support-desk-bad.json"

BAD_CASE = f"{BAD}: cases[4] (price-of-bitcoin): steps[0]: "
BAD_OUTPUT = (
    f"{BAD_CASE}evidence '1' is 1 character(s); unrelated answers contain it too (at least 3)"
    " [evidence-short]\n"
    f"{BAD_CASE}forbidden 'web_browse' is not a tool here (gh_search_issues, gh_get_issue, "
    "web_search, web_fetch, calendar_list, calendar_create, memory_save, memory_recall, "
    "calculator, file_read, git_log) [forbidden-unknown]\n"
    f"{BAD_CASE}expected tool 'web_search' is never shown under top-9 (shown: gh_get_issue); "
    "fix or remove the case [unreachable]\n"
    "3 finding(s); 6 case(s) in 1 file(s), policy top-9\n"
)


def _check(*args: object) -> Result:
    return CliRunner().invoke(check, [str(a) for a in args])


def test_the_example_is_clean_under_top_9() -> None:
    result = _check(EXAMPLE, "--policy", "top-k", "--k", "9")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: 5 case(s) in 1 file(s), policy top-9\n"


def test_the_bad_case_is_reported_and_exits_1() -> None:
    result = _check(BAD, "--policy", "top-k", "--k", "9")
    assert result.exit_code == 1
    assert result.stdout == BAD_OUTPUT


def test_a_policy_file_sets_policy_k_and_the_machine(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("policy: top-k\nk: 9\navailable: [gh_search_issues, web_fetch]\n")
    assert _check(BAD, "--policy-file", policy).stdout == BAD_OUTPUT
    assert _check(BAD, "--policy-file", policy, "--policy", "all").exit_code == 1
    policy.write_text("policy: top-k\navailable: [web_fetch]\n")
    result = _check(BAD, "--policy-file", policy)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error[CASES_REQUIRES]: {BAD}: requires: this machine lacks gh_search_issues; "
        "nothing was checked or run\n"
    )
    policy.write_text("policy: top-3\n")
    result = _check(BAD, "--policy-file", policy)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error[POLICY_INVALID]: {policy}: policy: ")


def test_available_tools_on_the_command_line_are_checked_against_requires() -> None:
    result = _check(EXAMPLE, "--available", "web_fetch", "--available", "calculator")
    assert result.exit_code == 2
    assert "this machine lacks gh_search_issues;" in result.stderr
    assert (
        _check(EXAMPLE, "--available", "gh_search_issues", "--available", "web_fetch").exit_code
        == 0
    )


def test_unusable_input_exits_2(tmp_path: Path) -> None:
    result = _check(tmp_path / "nope.json")
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error[FILE_MISSING]: {tmp_path / 'nope.json'}: no such file or directory\n"
    )
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x", "cases": [}', encoding="utf-8")
    assert _check(broken).exit_code == 2
    bare = tmp_path / "bare.json"
    bare.write_text(
        json.dumps(
            {
                "name": "x",
                "cases": [{"name": "a", "category": "irrelevance", "steps": [{"message": "hi"}]}],
            }
        )
    )
    result = _check(bare)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[CASES_INVALID]: {bare}: tools: no tool world: give 'tools' in the file or a "
        "--tools FILE\n"
    )


def test_json_output_lists_the_findings() -> None:
    result = _check(BAD, "--policy", "top-k", "--format", "json")
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["ok"] is False and payload["policy"] == "top-9" and payload["cases"] == 6
    assert [f["rule"] for f in payload["findings"]] == [
        "evidence-short",
        "forbidden-unknown",
        "unreachable",
    ]


def test_import_refuses_a_forbidden_tool_that_is_not_a_tool(tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    result = CliRunner().invoke(task, ["import", str(BAD), "--out", str(out)])
    assert result.exit_code != 0
    assert isinstance(result.exception, InputError)
    assert result.exception.code == "TASK_UNKNOWN_TOOL"
    assert result.exception.field == "cases[4] (price-of-bitcoin).steps[0].forbidden"
    assert "'web_browse' is not a tool in the case's world" in result.exception.message
    assert not out.exists()  # nothing written


def test_import_writes_a_task_file_that_validates_and_checks_the_same(tmp_path: Path) -> None:
    document = json.loads(BAD.read_text(encoding="utf-8"))
    document["cases"][4]["steps"][0]["forbidden"] = ["web_fetch"]
    cases = tmp_path / "support-desk.json"
    cases.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "tasks"
    result = CliRunner().invoke(task, ["import", str(cases), "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = out / "support-desk.yaml"
    assert result.stdout == f"wrote 6 task(s) to {written}\n"
    validated = CliRunner().invoke(task, ["validate", str(out)])
    assert validated.exit_code == 0, validated.output
    assert validated.stdout.startswith("ok: 6 task(s) in 1 file(s); tool-trajectory 6; public 6\n")
    again = _check(out, "--policy", "top-k")
    assert again.exit_code == 1
    lines = again.stdout.splitlines()
    where = f"{written}: tasks[4] (support-desk-price-of-bitcoin): "
    assert lines[0].startswith(f"{where}expectations[1]: evidence '1' is 1 character(s)")
    assert lines[1].startswith(f"{where}expectations[0]: expected tool 'web_search' is never")
    assert lines[2] == "2 finding(s); 6 case(s) in 1 file(s), policy top-9"


def test_validate_refuses_what_import_refuses(tmp_path: Path) -> None:
    document = json.loads(BAD.read_text(encoding="utf-8"))
    document["cases"][4]["steps"][0]["forbidden"] = ["web_fetch"]
    cases = tmp_path / "support-desk.json"
    cases.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "tasks"
    assert CliRunner().invoke(task, ["import", str(cases), "--out", str(out)]).exit_code == 0
    written = out / "support-desk.yaml"
    # the same file with the forbidden tool renamed to one the world does not have
    written.write_text(
        written.read_text(encoding="utf-8").replace("- web_fetch\n", "- web_browse\n", 1),
        encoding="utf-8",
    )
    result = CliRunner().invoke(task, ["validate", str(out)])
    assert result.exit_code != 0
    assert isinstance(result.exception, InputError)
    assert result.exception.code == "TASK_UNKNOWN_TOOL"
    assert result.exception.field is not None
    assert result.exception.field.endswith(".forbidden")
    assert "'web_browse' is not a tool" in result.exception.message


def test_import_with_a_separate_tool_world(tmp_path: Path) -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": document.pop("tools")}), encoding="utf-8")
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        task, ["import", str(cases), "--out", str(out), "--tools", str(tools)]
    )
    assert result.exit_code == 0, result.output
    assert _check(cases, "--tools", tools, "--policy", "top-k").exit_code == 0
    refused = CliRunner().invoke(task, ["import", str(cases), "--out", str(out)])
    assert refused.exit_code != 0
