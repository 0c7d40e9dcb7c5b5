"""`bench --help` is fast (it imports neither numpy nor scipy, nor the verbs), and every option
says what it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def _modules_after(args: list[str]) -> set[str]:
    code = (
        "import sys, json\n"
        "from bench.cli.main import main\n"
        f"sys.argv = ['bench', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "Commands:" in result.stdout or "Usage:" in result.stdout
    return set(json.loads(result.stderr))


def test_help_imports_nothing_heavy() -> None:
    loaded = _modules_after(["--help"])
    heavy = {m for m in loaded if m.split(".")[0] in {"numpy", "scipy", "rich"}}
    assert heavy == set()
    verbs = {
        m
        for m in loaded
        if m.startswith("bench.cli.") and m not in {"bench.cli.main", "bench.cli.common"}
    }
    assert verbs == set()
    assert not any(m.startswith("bench.runner") for m in loaded)


def test_run_help_imports_nothing_heavy() -> None:
    loaded = _modules_after(["run", "--help"])
    assert not {m for m in loaded if m.split(".")[0] in {"numpy", "scipy"}}


def test_help_lists_every_verb() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.cli", "--help"], capture_output=True, text=True
    )
    for verb in ("run", "show", "compare", "task", "schema"):
        assert f"  {verb} " in result.stdout


def test_help_imports_no_pydantic_and_no_numeric_library() -> None:
    """``bench --help`` loads click and the command table only (issue 19): the heavy modules
    come with the verb that needs them."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from bench.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'pydantic', 'numpy', 'scipy', 'httpx', 'yaml', 'jinja2', 'rich'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_python_dash_m_keeps_the_exit_status(tmp_path: Path) -> None:
    """``python -m bench.cli`` exits as the console script does: a verb that ends with a
    status (``ctx.exit``, which click hands back under ``standalone_mode=False``) keeps it."""
    missing = tmp_path / "no-such-bundle"
    result = subprocess.run(
        [sys.executable, "-m", "bench.cli", "verify", str(missing)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def _commands() -> list[tuple[str, Any]]:
    import click

    from bench.cli.main import cli

    found: list[tuple[str, Any]] = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, f"{path} {name}")
        else:
            found.append((path, command))

    walk(cli, "bench")
    return found


def test_every_option_of_every_command_says_what_it_is() -> None:
    """A stranger reads `--help`: `bench bundle --out`, `bench run --repeats` and eight others
    used to show only a type and a default."""
    import click

    bare = [
        f"{path} {param.opts[0]}"
        for path, command in _commands()
        for param in command.params
        if isinstance(param, click.Option) and param.name != "help" and not param.help
    ]
    assert bare == []


def test_run_help_opens_with_what_a_run_needs() -> None:
    """`bench run --help` used to list eight budget options before --tasks and --target."""
    from bench.cli.run_cmd import run

    names = [param.name for param in run.params]
    assert names[:2] == ["tasks_path", "target_file"]
    assert names.index("task_budget_tokens") > names.index("timeout")


def test_the_cli_reference_names_every_exit_code() -> None:
    """docs/CLI.md's list of exit codes left out 1 (an invalid bundle, lint findings) and 130
    (Ctrl-C), the two a first run through the docs meets."""
    import re

    from bench.cli.reference import HEADER
    from bench.core import errors

    def classes(root: type) -> list[type]:
        return [root, *(c for sub in root.__subclasses__() for c in classes(sub))]

    codes = {cls.exit_code for cls in classes(errors.BenchError)} | {0, 130, 143}  # 143: SIGTERM
    line = " ".join(HEADER.split("Exit codes:")[1].split("Errors print")[0].split())
    named = {int(n) for n in re.findall(r"(?:^|· )(\d+) ", line)}
    assert named == codes, line
