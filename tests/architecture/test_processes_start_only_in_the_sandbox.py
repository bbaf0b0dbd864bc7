"""Every process reqbench starts goes through `core.sandbox` (DESIGN §10), except a short reviewed list.

The scan (`process_scan`) parses every module of ``src/`` and finds each use of ``subprocess`` (run, Popen,
call, check_call, check_output, getoutput, getstatusoutput), ``os.system``, ``os.popen``, ``os.exec*``,
``os.spawn*``, ``os.posix_spawn*``, ``os.fork*``, ``pty.spawn`` and ``asyncio.create_subprocess_*``, under
any import spelling. Outside ``reqbench.core.sandbox`` (the launcher itself) a use is allowed only in a
function of `ALLOWED`, each with the reason it may run on the host: none of them runs anything a
submission, a delivery or an agent could have written or chosen. A process that runs such content
(a check, an agent step, a delivery's build script) belongs in `core.sandbox.run_sandboxed`.
"""

from __future__ import annotations

from tests.architecture.process_scan import Use, scan_source, scan_src

LAUNCHER = "reqbench.core.sandbox"
"""The package that starts sandboxed processes (bubblewrap and its probes): the one place allowed."""

ALLOWED: dict[tuple[str, str], str] = {
    ("reqbench.core.workspace.git", "run_git"):
        "harness-side git on a private object store, with system and global configuration off, no "
        "repository configuration (GIT_DIR is the harness's own bare skeleton) and fixed -c options: it "
        "reads submitted trees and patches as data; no hook, filter, diff or merge driver is configured, "
        "so nothing a submission wrote is executed",
    ("reqbench.core.agents.versions", "find_python"):
        "tool version probe: runs an interpreter found through the user's PATH, pyenv or "
        "$REQBENCH_PYTHON_X_Y with a fixed -c version check, to install a preset; no suite or agent input",
    ("reqbench.core.agents.versions", "install"):
        "`reqbench agents install`: npm or pip installs the pinned version of a preset's tool into its "
        "cache folder, at the user's request, before any run; no suite, submission or agent input",
    ("reqbench.core.workspace.sources", "_pypi_sdist"):
        "`pip download` of the sdist a suite's repository source names (pypi:NAME==VERSION), recorded "
        "and hash-checked; the suite is the user's trusted input, never a submission's (pip may run the "
        "sdist's build backend to read its metadata)",
    ("reqbench.core.environments.buildbox", "run_in_box"):
        "an environment's set-up commands, run inside the build's own bubblewrap box (the only place the "
        "network is on, DESIGN §14); the commands are the suite's declared `setup`, never a submission's",
    ("reqbench.core.environments.layers", "run_logged"):
        "build tools of a task environment (uv/pip install, npm ci, mmdebstrap) on the requirements, lock "
        "files and packages the suite declares, before any row starts; the suite is the user's trusted input "
        "(like `pip download` of its sdists), and no agent has run yet",
    ("reqbench.core.environments.engines", "_run"):
        "`docker|podman|buildah save/build` of the image a suite names, at the user's request, before any row",
    ("reqbench.core.environments.interpreters", "interpreter_prefix"):
        "version probe of an interpreter the suite's environment names (-I -S -c with a fixed program)",
    ("reqbench.core.environments.interpreters", "own_executable"):
        "probe of which executable an interpreter the suite's environment names runs (a launcher such as a "
        "pyenv shim starts another; -I -S -c with a fixed program)",
    ("reqbench.core.environments.venvs", "interpreter_version"):
        "version probe of an interpreter the suite's environment names (-I -S -c with a fixed program)",
    ("reqbench.cli.env", "shell"):
        "`reqbench env shell`: bubblewrap with the environment's box arguments, an interactive shell the user "
        "asked for in a built environment (no agent, no submission)",
}


def _unreviewed(uses: list[Use]) -> list[Use]:
    return [u for u in uses if not (u.module == LAUNCHER or u.module.startswith(LAUNCHER + "."))
            and (u.module, u.function) not in ALLOWED]


def test_no_process_starts_outside_the_sandbox_or_the_reviewed_list() -> None:
    assert _unreviewed(scan_src()) == []


def test_every_reviewed_entry_still_starts_a_process() -> None:
    """The list stays short: an entry whose function no longer starts a process is removed."""
    used = {(u.module, u.function) for u in scan_src()}
    assert sorted(set(ALLOWED) - used) == []


def test_the_launcher_is_where_processes_start() -> None:
    """Guard against a blind scan: the sandbox's own launcher is found."""
    assert any(u.module == "reqbench.core.sandbox.launch" and u.what == "subprocess.Popen" for u in scan_src())


def test_the_scan_sees_every_spelling() -> None:
    source = '''
import os, subprocess as sp, asyncio, importlib
from subprocess import check_output as co
from os import execvp

def a(): sp.run(["x"])
def b(): co(["x"])
def c(): os.system("x"); os.popen("x"); os.spawnlp(0, "x", "x"); os.posix_spawn("x", [], {})
def d(): execvp("x", ["x"])
async def e(): await asyncio.create_subprocess_exec("x")
def f(): getattr(os, "system")("x")
def g(): importlib.import_module("subprocess")
def h(run=sp.Popen): pass
class K:
    def m(self): os.execv("x", ["x"])
def fine(): sp.TimeoutExpired; os.path.join("a"); os.environ.get("PATH")
'''
    found = {(u.function, u.what) for u in scan_source(source, "m")}
    assert found == {
        ("<module>", "from subprocess import check_output"), ("<module>", "from os import execvp"),
        ("a", "subprocess.run"), ("b", "subprocess.check_output"), ("c", "os.system"), ("c", "os.popen"),
        ("c", "os.spawnlp"), ("c", "os.posix_spawn"), ("d", "os.execvp"), ("e", "asyncio.create_subprocess_exec"),
        ("f", "getattr(os, 'system')"), ("g", "import_module('subprocess')"), ("h", "subprocess.Popen"),
        ("K.m", "os.execv"),
    }
