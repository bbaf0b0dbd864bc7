"""Start-up imports only what the command line names: `--version` no command and not typer, `run`
neither the other commands nor the model gateway's HTTP stack, numpy or the study package."""

import json
import subprocess
import sys

import pytest

from reqbench.cli.main import COMMANDS


def loaded_after(code: str) -> set[str]:
    """Module names loaded by a fresh interpreter after running `code`."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_version_imports_no_command_and_not_typer() -> None:
    mods = loaded_after("import sys\nfrom reqbench.cli.main import main\nsys.argv = ['reqbench', '--version']\n"
                        "main()")
    assert not {m for m in mods if m.split(".")[0] in ("typer", "pydantic", "numpy", "yaml")}
    assert not {m for m in mods if m.startswith(("reqbench.cli.", "reqbench.core.", "reqbench.protocols."))
                and m not in ("reqbench.cli.main", "reqbench.cli.consoles")}


def test_the_run_command_imports_neither_other_commands_nor_unused_machinery() -> None:
    mods = loaded_after("from reqbench.cli.main import make_app\nmake_app('run')\n"
                        "from reqbench.protocols.specpath.suite import PROTOCOL\n"
                        "import reqbench.core.execute.runner, reqbench.core.execute.preflight")
    assert "reqbench.cli.generic_run" in mods
    others = {module for name, (module, _) in COMMANDS.items() if module != "reqbench.cli.generic_run"}
    assert not others & mods
    assert not {m for m in mods if m.split(".")[0] in ("httpx", "numpy", "http")}
    assert not {m for m in mods if m.startswith(("reqbench.study", "reqbench.core.llm.gateway.server", "rich.progress"))}


@pytest.mark.parametrize("command", ["run", "agents", "specpath"])
def test_a_named_command_is_the_one_registered(command: str) -> None:
    from typer.main import get_command

    from reqbench.cli.main import make_app

    assert list(get_command(make_app(command)).commands) == [command]  # type: ignore[attr-defined]


def test_the_full_app_lists_every_command() -> None:
    from typer.main import get_command

    from reqbench.cli.main import app

    names = set(get_command(app).commands)  # type: ignore[attr-defined]
    assert set(COMMANDS) | {"agents", "specpath", "takeover", "journey", "pace", "study"} <= names
