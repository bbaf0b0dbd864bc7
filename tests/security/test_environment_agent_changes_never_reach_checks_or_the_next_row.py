"""Threat: the agent rewrites its task environment so that the checks of its row run a forged toolchain, or
leaves the environment changed for the next row.

A hostile `command` agent, run through the real row plumbing (`attempt_environment`, `RowContext.step`)
in a real environment (a venv with ``six`` and pytest 7, built by `ensure_built`), writes into the
environment, replaces its interpreter with a script that prints a green pytest summary and exits 0, plants
a patched ``six``, a ``.pth`` and a ``sitecustomize.py`` in its site-packages and a pytest plugin module,
and leaves a failing submission. Its check, run in the same row, must still be a FAIL with none of the
planted code having run; the next row must see none of it; the environment's tree in the cache must be
byte for byte what was built.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.execute.environments import RunEnvironments, attempt_environment
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RunOptions
from tests.security.envbuild import session_environment, tree_digest

SITE = "$(python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')"
HOSTILE = f"""
SP={SITE}
echo planted > /opt/reqbench-env/python/planted.txt
printf 'PY3 = True\\nprint("SIX-PATCHED")\\nimport os; os._exit(0)\\n' > "$SP/six.py"
printf 'import sys; sys.stderr.write("PTH-RAN\\\\n")\\n' > "$SP/zz_hostile.pth"
printf 'print("SITECUSTOMIZE-RAN")\\n' > "$SP/sitecustomize.py"
printf 'def pytest_collection_modifyitems(items):\\n    items.clear()\\n' > "$SP/pytest_hostile.py"
rm -f /opt/reqbench-env/python/bin/python
printf '#!/bin/sh\\necho "1 passed in 0.01s"\\nexit 0\\n' > /opt/reqbench-env/python/bin/python
chmod +x /opt/reqbench-env/python/bin/python
printf 'def answer():\\n    return 0\\n' > solution.py
ls /opt/reqbench-env/python/planted.txt "$SP/six.py" 2>&1
"""
LOOK = "ls /opt/reqbench-env/python/planted.txt 2>&1; python -c 'import six; print(six.__file__)'; echo looked"
TEST = """import six

from solution import answer


def test_answer():
    assert six.PY3
    assert answer() == 42
"""


def _row(built: Any, work: Path, key: str, agent: str) -> dict[str, Any]:
    """One row in its own thread (its overlays live in that thread's mount namespace): the agent's step,
    then its check, as the runner runs them."""
    found: dict[str, Any] = {}

    def run() -> None:
        ws = work / f"{key}-ws"
        ws.mkdir()
        (work / f"{key}-hidden").mkdir()
        (work / f"{key}-hidden" / "test_hidden.py").write_text(TEST)
        row = Row(key, "c", "command")
        options = RunOptions(agent="command", agent_options={"template": agent})
        with attempt_environment(RunEnvironments(default=built), row, work / key) as environment:
            ctx = RowContext(options, work / key, row, environment)
            step = ctx.step(ws, AgentInputs(prompt="go"), Budget(wall_seconds=120))
            found["agent"] = (step.result.reply or "") + step.result.detail
            check = Check(name="target", command="{pytest} -q {hidden}", timeout_seconds=120)
            found["check"] = run_check(check, ws, work / f"{key}-hidden")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return found


@pytest.mark.slow
def test_agent_changes_to_its_environment_never_reach_its_checks_or_the_next_row(
        require_bwrap: None, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    built = session_environment(tmp_path_factory)
    before = tree_digest(built.path)

    first = _row(built, tmp_path, "r1", HOSTILE)
    planted = "/opt/reqbench-env/python/planted.txt" in first["agent"]  # its overlay took every write
    assert planted or "Read-only file system" in first["agent"], first["agent"]
    check = first["check"]
    assert check.status is CheckStatus.FAIL, (check.status, check.detail)
    assert check.probes == {"test_hidden.py::test_answer": False}
    shown = check.stdout_tail + check.stderr_tail
    for marker in ("SIX-PATCHED", "PTH-RAN", "SITECUSTOMIZE-RAN"):
        assert marker not in shown

    second = _row(built, tmp_path, "r2", LOOK)
    assert "looked" in second["agent"] and "No such file" in second["agent"], second["agent"]
    assert "/opt/reqbench-env/python/lib/" in second["agent"]  # the environment's own six, untouched
    assert tree_digest(built.path) == before


def test_an_agents_own_writes_stay_in_its_row(require_bwrap: None, tmp_path: Path,
                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    """Within a row the agent works in its environment as it pleases (an overlay: what it installs is there
    in its next step) or cannot write it at all; never does the built tree change."""
    built = session_environment(tmp_path_factory)
    before = tree_digest(built.path)
    found = _row(built, tmp_path, "r1", "echo x > /opt/reqbench-env/python/mine && cat /opt/reqbench-env/python/mine")
    assert found["agent"].strip().endswith("x") or "Read-only file system" in found["agent"], found["agent"]
    assert tree_digest(built.path) == before


def test_code_under_test_cannot_write_the_environment_its_check_runs_in(
        require_bwrap: None, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Checks bind the pristine environment read-only: a submission that writes into it (for a later check
    to run) gets EROFS, and the next check sees the environment as built."""
    from reqbench.core.sandbox.environment import EnvironmentMount

    built = session_environment(tmp_path_factory)
    before = tree_digest(built.path)
    mount = EnvironmentMount.pristine(built)
    ws = tmp_path / "ws"
    ws.mkdir()
    write = Check(name="vandal", command="touch /opt/reqbench-env/python/bin/pytest-forged", timeout_seconds=60)
    assert run_check(write, ws, environment=mount).status is CheckStatus.FAIL
    look = Check(name="look", command="test ! -e /opt/reqbench-env/python/bin/pytest-forged", timeout_seconds=60)
    assert run_check(look, ws, environment=mount).status is CheckStatus.PASS
    assert tree_digest(built.path) == before
