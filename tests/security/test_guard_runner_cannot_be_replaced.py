"""Red-team tests: the guard's runner (``python -P -m reqbench_pytest``, the guard registered as a module
object, both loaded from byte code the harness compiled) can be neither shadowed nor shaken off.

A submission ships a wrong ``add`` plus the attack and must not PASS; the honest submission still PASSes
under the same check. The attacks: planted runner and guard modules (source, sourceless byte code and a
``__pycache__`` entry) at every place of the workspace that joins ``sys.path``; the guard unregistered
from pytest's plugin manager by the code under test; a second registration of the guard by name.
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check
from tests.security.test_checks_cannot_be_forged import (
    EXPECTED,
    HONEST_ADD,
    WRONG_ADD,
    assert_forgery_fails,
    assert_honest_passes,
    make_task,
    run,
    submit,
)

pytestmark = pytest.mark.usefixtures("require_bwrap")

FORGED = "import os\nprint('2 passed')\nos._exit(0)\n"


def _forged_pyc() -> bytes:
    """A valid ``.pyc`` of `FORGED`, loadable with or without a source beside it (unchecked hash)."""
    code = marshal.dumps(compile(FORGED, "forged", "exec"))
    return importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + b"\x00" * 8 + code


@pytest.fixture
def task(tmp_path: Path) -> dict[str, Path]:
    task = make_task(tmp_path)
    (task["base"] / "src").mkdir()  # a second import root, as a src layout has
    return task


def test_planted_runner_and_guard_modules_are_never_loaded(task: dict[str, Path]) -> None:
    tag = sys.implementation.cache_tag
    text: dict[str, str] = {"calc/__init__.py": WRONG_ADD}
    binary: dict[str, bytes] = {}
    for root in ("", "src/", "calc/"):
        for module in ("reqbench_pytest", "reqbench_guard", "pytest"):
            text[f"{root}{module}.py"] = FORGED
            binary[f"{root}__pycache__/{module}.{tag}.pyc"] = _forged_pyc()
            binary[f"{root}{module}.pyc"] = _forged_pyc()
    chk = Check(name="target", command="{pytest} -q {hidden}", timeout_seconds=120, expected_tests=EXPECTED,
                pythonpath=[".", "src"])
    ws = submit(task, "attack", text)
    for rel, data in binary.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_bytes(data)
    result = run_check(chk, ws, task["hidden"], base=task["base"])
    assert_forgery_fails(result)
    assert "2 passed" not in result.stdout_tail
    assert_honest_passes(task, chk)


UNREGISTER = WRONG_ADD + """
import gc
import pytest
from _pytest.config import PytestPluginManager

class Forge:  # every report rewritten to passed: pytest itself then says "2 passed" and exits 0
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        outcome.get_result().outcome = "passed"

for obj in gc.get_objects():
    if isinstance(obj, PytestPluginManager):
        guard = obj.get_plugin("reqbench_guard")
        if guard is not None:
            obj.unregister(guard)
            obj.register(Forge())
"""


def test_unregistering_the_guard_from_submission_code_is_fail(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": UNREGISTER})
    assert result.exit_code == 0  # the forgery fooled pytest: only the missing records tell
    assert_forgery_fails(result)
    assert_honest_passes(task)


def test_the_guard_named_again_on_the_command_line_is_the_same_plugin(task: dict[str, Path]) -> None:
    """A suite's command that still names ``-p reqbench_guard`` finds the guard registered under that name:
    one guard, one set of records."""
    chk = Check(name="target", command="{pytest} -p reqbench_guard -q {hidden}", timeout_seconds=120,
                expected_tests=EXPECTED)
    result = run(task, {"calc/__init__.py": WRONG_ADD}, chk)
    assert_forgery_fails(result)
    honest = run(task, {"calc/__init__.py": HONEST_ADD}, chk, name="honest")
    assert honest.status is CheckStatus.PASS, honest
    assert honest.probes == dict.fromkeys(EXPECTED, True)
