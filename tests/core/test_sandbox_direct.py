"""Shell strings that need no shell start directly; anything the shell would interpret keeps the shell, and
what the process sees (argv, environment, exit status) is the same either way."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reqbench.core.sandbox import available_isolation, run_sandboxed
from reqbench.core.sandbox.direct import direct_argv
from reqbench.core.sandbox.launch import LaunchPlan, plan, scrubbed_env
from reqbench.core.sandbox.result import SandboxOptions
from reqbench.core.sandbox.view import host_part

pytestmark = pytest.mark.skipif(available_isolation() != "bwrap", reason="bubblewrap not usable here")
PY = sys.executable


def _direct(command: str, cwd: Path, env: dict[str, str] | None = None, own: list[Path] | None = None,
            ) -> list[str] | None:
    env = env or scrubbed_env(None, cwd, cwd, "m")
    return direct_argv(command, env, cwd, host_part(env["PATH"]), own or [cwd])


def test_plain_words_naming_a_toolchain_program_start_directly(tmp_path: Path) -> None:
    assert _direct(f"{PY} -P -m pytest -q --rootdir=/x/y tests/a.py::t_1 -k a+b,c@d%e", tmp_path) == [
        PY, "-P", "-m", "pytest", "-q", "--rootdir=/x/y", "tests/a.py::t_1", "-k", "a+b,c@d%e"]
    assert _direct("  env   -u X  ", tmp_path) == ["env", "-u", "X"]


@pytest.mark.parametrize("command", [
    f"{PY} -c 'pass'", f'{PY} -c "pass"', f"{PY} a\\ b", "ls $HOME", "ls ${HOME}", "ls *.py", "ls a?", "ls [ab]",
    "ls ~", "ls; ls", "ls | cat", "ls > out", "ls < in", "ls && ls", "ls &", "ls\nls", "ls\tx", "ls # x",
    "ls `pwd`", "ls $(pwd)", "(ls)", "{ ls; }", "ls !x",
    "echo -e a", "true", "false", "test -f x", "cd /", "exit 3", "export A=1", "set -e", "exec ls", "time ls",
    "pwd", "kill -9 1", "printf %s x", "A=1 env", "./run.sh x", "bin/tool", "", "   ",
    "no-such-program-xyz", f"{Path(PY).parent}/../bin/{Path(PY).name} -c pass",
])
def test_anything_the_shell_would_interpret_keeps_the_shell(tmp_path: Path, command: str) -> None:
    assert _direct(command, tmp_path) is None


def test_a_program_the_sandbox_would_not_show_unchanged_keeps_the_shell(tmp_path: Path) -> None:
    tools = tmp_path / "ws" / "bin"
    tools.mkdir(parents=True)
    (tools / "tool").write_text("#!/bin/sh\necho hi\n")
    (tools / "tool").chmod(0o755)
    env = scrubbed_env({"PATH": f"{tools}:/usr/bin:/bin"}, tmp_path, tmp_path, "m")
    assert _direct("tool", tmp_path, env, own=[tmp_path / "other"]) == ["tool"]  # a toolchain bin folder
    assert _direct("tool", tmp_path, env, own=[tmp_path / "ws"]) is None  # a launch's own bind covers it
    dotted = scrubbed_env({"PATH": f"{tools}/../bin:/usr/bin:/bin"}, tmp_path, tmp_path, "m")
    assert _direct("tool", tmp_path, dotted, own=[tmp_path / "other"]) is None  # ".." in the PATH entry
    assert _direct("env", tmp_path, {**env, "PWD": "/elsewhere"}) is None  # the shell would reset PWD
    assert _direct("env", tmp_path, {**env, "BASH_FUNC_env%%": "() { :; }"}) is None  # bash would import it
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "ws")
    assert _direct("env", link, env) is None  # the shell's PWD would be the physical path


def test_plan_starts_the_program_itself_and_exports_pwd_as_the_shell_would(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    launch = plan(f"{PY} -c pass", tmp_path, SandboxOptions(), scratch)
    assert isinstance(launch, LaunchPlan)
    launch.release()
    assert launch.command == [PY, "-c", "pass"] and launch.env["PWD"] == str(tmp_path)
    assert launch.argv[-4:] == ["--", PY, "-c", "pass"]


def test_direct_and_shell_starts_look_the_same_to_the_process(tmp_path: Path) -> None:
    (tmp_path / "show.py").write_text("import os, sys\nprint(sys.argv[1:], sorted(k for k in os.environ))\n"
                                      "print(os.getcwd(), os.environ['PWD'])\nsys.exit(int(sys.argv[1]))\n")
    (tmp_path / "die.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    for code in ("0", "1", "3"):
        direct = run_sandboxed(f"{PY} show.py {code} --x=y", tmp_path, timeout=60)
        shell = run_sandboxed(f"{PY} show.py {code} --x=y;", tmp_path, timeout=60)
        assert direct.exit_code == shell.exit_code == int(code)
        assert direct.stdout == shell.stdout and direct.stdout.startswith(f"['{code}', '--x=y']".encode())
    killed = run_sandboxed(f"{PY} die.py", tmp_path, timeout=60)
    assert killed.exit_code == run_sandboxed(f"{PY} die.py;", tmp_path, timeout=60).exit_code == 137
    missing = run_sandboxed("no-such-program-xyz --flag", tmp_path, timeout=60)
    assert missing.exit_code == 127 and b"not found" in missing.stderr
