"""Red-team tests: a hostile submission cannot forge a check result (DESIGN §10), one test per threat.

Every attack runs a real pytest session through the real sandbox on a tiny task: a ``calc`` package
whose ``add`` the hidden tests exercise. The attacking submission ships a wrong ``add`` plus the attack
and must not PASS; the honest submission (a correct ``add``) still PASSes under the same check.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckResult, CheckStatus, run_check
from reqbench.core.workspace import copy_tree

pytestmark = pytest.mark.usefixtures("require_bwrap")

HIDDEN_TESTS = """
from calc import add

def test_add():
    assert add(2, 2) == 4

def test_add_negative():
    assert add(-1, -1) == -2
"""
EXPECTED = ["test_calc.py::test_add", "test_calc.py::test_add_negative"]
BASE_ADD = "def add(a, b):\n    raise NotImplementedError\n"
HONEST_ADD = "def add(a, b):\n    return a + b\n"
WRONG_ADD = "def add(a, b):\n    return a - b\n"
BASE_TESTS = "from calc import add\n\ndef test_callable():\n    assert callable(add)\n"
BASE_CONFTEST = "# the project's own conftest\n"


@pytest.fixture
def task(tmp_path: Path) -> dict[str, Path]:
    return make_task(tmp_path)


def make_task(tmp_path: Path) -> dict[str, Path]:
    """The base tree and hidden tests of the ``calc`` task below `tmp_path`."""
    base = tmp_path / "base"
    (base / "calc").mkdir(parents=True)
    (base / "calc" / "__init__.py").write_text(BASE_ADD)
    (base / "tests").mkdir()
    (base / "tests" / "test_base.py").write_text(BASE_TESTS)
    (base / "tests" / "conftest.py").write_text(BASE_CONFTEST)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_calc.py").write_text(HIDDEN_TESTS)
    return {"base": base, "hidden": hidden, "root": tmp_path}


def submit(task: dict[str, Path], name: str, files: dict[str, str]) -> Path:
    ws = task["root"] / name
    copy_tree(task["base"], ws)
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(textwrap.dedent(text))
    return ws


def check(command: str = "{pytest} -q {hidden}", **kw: object) -> Check:
    return Check(name="target", command=command, timeout_seconds=120, expected_tests=EXPECTED, **kw)


def run(task: dict[str, Path], files: dict[str, str], chk: Check | None = None,
        name: str = "attack") -> CheckResult:
    return run_check(chk or check(), submit(task, name, files), task["hidden"], base=task["base"])


def assert_honest_passes(task: dict[str, Path], chk: Check | None = None) -> None:
    result = run(task, {"calc/__init__.py": HONEST_ADD}, chk, name="honest")
    assert result.status is CheckStatus.PASS, result
    assert result.protected_touched == []


def assert_forgery_fails(result: CheckResult) -> None:
    assert result.status is CheckStatus.FAIL, result
    assert result.probes is not None and not any(result.probes.get(e, False) for e in EXPECTED), result


def test_failing_unittest_style_tests_are_failures(task: dict[str, Path]) -> None:
    """pytest's unittest plugin hands a TestCase failure to the report only inside its own makereport
    hook; the guard must still see it (a wrong answer checked by unittest-style tests is no pass)."""
    (task["hidden"] / "test_calc.py").write_text(textwrap.dedent("""
        import unittest
        from calc import add

        class CalcTest(unittest.TestCase):
            def test_add(self):
                self.assertEqual(add(2, 2), 4)

            def test_add_negative(self):
                self.assertEqual(add(-1, -1), -2)
        """))
    chk = Check(name="target", command="{pytest} -q {hidden}", timeout_seconds=120,
                expected_tests=["test_calc.py::CalcTest::test_add", "test_calc.py::CalcTest::test_add_negative"])
    wrong = run(task, {"calc/__init__.py": WRONG_ADD}, chk, name="wrong")
    assert wrong.status is CheckStatus.FAIL, wrong
    assert wrong.probes == {"test_calc.py::CalcTest::test_add": False,
                            "test_calc.py::CalcTest::test_add_negative": False}, wrong
    honest = run(task, {"calc/__init__.py": HONEST_ADD}, chk, name="honest")
    assert honest.status is CheckStatus.PASS, honest
    assert honest.probes == {"test_calc.py::CalcTest::test_add": True,
                             "test_calc.py::CalcTest::test_add_negative": True}, honest


def test_shadowing_pytest_from_workspace_is_fail(task: dict[str, Path]) -> None:
    forged = "import os\nprint('2 passed')\nos._exit(0)\n"
    result = run(task, {"calc/__init__.py": WRONG_ADD, "pytest.py": forged, "_pytest/__init__.py": forged,
                        "pluggy.py": forged, "reqbench_guard.py": forged})
    assert_forgery_fails(result)
    assert_honest_passes(task)


def test_early_os_exit_zero_is_fail(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": WRONG_ADD + "import os, sys\nif 'pytest' in sys.modules:\n"
                                                        "    os._exit(0)\n"})
    assert_forgery_fails(result)
    assert result.exit_code == 0 and "ended before the pytest session finished" in result.detail
    assert_honest_passes(task)


REWRITE_REPORTS = """
import _pytest.reports
import _pytest.runner

_orig = _pytest.reports.TestReport.from_item_and_call.__func__

def _always_passed(cls, item, call):
    report = _orig(cls, item, call)
    report.outcome = "passed"
    report.longrepr = None
    return report

_pytest.reports.TestReport.from_item_and_call = classmethod(_always_passed)
_orig_init = _pytest.reports.TestReport.__init__

def _init(self, *args, **kwargs):
    _orig_init(self, *args, **kwargs)
    self.outcome = "passed"

_pytest.reports.TestReport.__init__ = _init
"""


def test_rewritten_test_reports_in_process_is_fail(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": WRONG_ADD + REWRITE_REPORTS})
    assert_forgery_fails(result)
    assert "tampered" in result.detail
    # the rewrite really turns pytest green: the exit code alone would have said PASS
    assert result.exit_code == 0
    assert_honest_passes(task)


def test_forged_junit_in_output_dir_is_ignored(task: dict[str, Path]) -> None:
    junit = ('<testsuite><testcase classname="test_calc" name="test_add" file="test_calc.py"/>'
             '<testcase classname="test_calc" name="test_add_negative" file="test_calc.py"/></testsuite>')
    writer = (f"import os\nout = os.environ.get('REQBENCH_OUTPUT', '')\n"
              f"open(os.path.join(out, 'junit.xml'), 'w').write({junit!r})\n"
              "open(os.path.join(out, 'results.json'), 'w').write('{\"test_calc.py::test_add\": true}')\n")
    result = run(task, {"calc/__init__.py": WRONG_ADD + writer})
    assert result.status is CheckStatus.FAIL
    assert result.probes == {e: False for e in EXPECTED}
    assert_honest_passes(task)


FORGING_CONFTEST = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""


def test_new_conftest_is_removed_and_recorded(task: dict[str, Path]) -> None:
    chk = check("{pytest} -q tests {hidden}")
    files = {"calc/__init__.py": WRONG_ADD, "conftest.py": FORGING_CONFTEST,
             "tests/conftest.py": FORGING_CONFTEST, "pytest.ini": "[pytest]\naddopts = -p no:reqbench_guard\n",
             "setup.cfg": "[tool:pytest]\naddopts = --co\n", "tox.ini": "[pytest]\naddopts = --co\n",
             "sitecustomize.py": "import os\nos._exit(0)\n", "calc/evil.pth": "import os; os._exit(0)\n"}
    result = run(task, files, chk)
    assert_forgery_fails(result)
    assert result.protected_touched == sorted(["calc/evil.pth", "conftest.py", "pytest.ini", "setup.cfg",
                                               "sitecustomize.py", "tests/conftest.py", "tox.ini"])
    assert "protected paths restored" in result.detail
    # the restored tree: the base's own conftest back, the new files gone
    assert_honest_passes(task, chk)


def test_deleted_protected_tests_are_restored(task: dict[str, Path]) -> None:
    chk = check("{pytest} -q tests {hidden}", protected=["tests/**"])
    ws = submit(task, "attack", {"calc/__init__.py": HONEST_ADD})
    (ws / "tests" / "test_base.py").write_text("def test_callable():\n    pass\n")
    (ws / "tests" / "conftest.py").unlink()
    result = run_check(chk, ws, task["hidden"], base=task["base"])
    assert result.status is CheckStatus.PASS
    assert result.protected_touched == ["tests/conftest.py", "tests/test_base.py"]
    assert "tests/test_base.py::test_callable" not in result.probes  # type: ignore[operator]


def test_collection_error_from_submission_is_fail_not_pending(task: dict[str, Path]) -> None:
    for i, broken in enumerate(("def add(a, b)\n    return a + b\n", "raise ImportError('no')\n",
                                "import pytest\npytest.exit('bye', returncode=0)\n")):
        result = run(task, {"calc/__init__.py": broken}, name=f"attack-{i}")
        assert result.status is CheckStatus.FAIL, result
        assert result.probes is not None and not any(result.probes.values())
    assert_honest_passes(task)


def test_missing_expected_probe_is_fail(task: dict[str, Path]) -> None:
    skip_module = WRONG_ADD + "import pytest\npytest.skip('not today', allow_module_level=True)\n"
    result = run(task, {"calc/__init__.py": skip_module})
    assert result.status is CheckStatus.FAIL and result.probes == {e: False for e in EXPECTED}
    chk = Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120,
                expected_tests=[*EXPECTED, "test_calc.py::test_not_there"])
    result = run(task, {"calc/__init__.py": HONEST_ADD}, chk, name="honest-missing")
    assert result.status is CheckStatus.FAIL and result.probes is not None
    assert result.probes["test_calc.py::test_not_there"] is False and "missing" in result.detail
    assert_honest_passes(task)


def test_printed_passed_changes_nothing(task: dict[str, Path]) -> None:
    printer = ("import sys\nprint('test_calc.py::test_add PASSED\\n2 passed in 0.01s')\n"
               "sys.stderr.write('===== 2 passed =====\\n')\n")
    result = run(task, {"calc/__init__.py": WRONG_ADD + printer})
    assert result.status is CheckStatus.FAIL
    assert result.probes == {e: False for e in EXPECTED}
    assert_honest_passes(task)


def test_skipping_from_submission_code_is_not_a_pass(task: dict[str, Path]) -> None:
    skipper = "import pytest\n\ndef add(a, b):\n    pytest.skip('later')\n"
    result = run(task, {"calc/__init__.py": skipper})
    assert result.status is CheckStatus.FAIL and result.exit_code == 0
    assert_honest_passes(task)


FAKE_RECORDS = """
import json, os, stat
ids = ["test_calc.py::test_add", "test_calc.py::test_add_negative"]
lines = [{"e": "start", "safe_path": True}, {"e": "args"}]
for i in ids:
    lines += [{"e": "item", "id": i}] + [{"e": "phase", "id": i, "when": w, "outcome": "passed"}
                                         for w in ("setup", "call", "teardown")]
lines.append({"e": "finish", "status": 0, "collected": 2})
data = "".join(json.dumps(dict(line, t="")) + "\\n" for line in lines).encode()
for name in os.listdir("/proc/self/fd"):
    try:
        if stat.S_ISFIFO(os.fstat(int(name)).st_mode) and int(name) > 2:
            os.write(int(name), data)
    except OSError:
        pass
"""


def test_fake_pass_lines_on_the_guard_channel_are_fail(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": WRONG_ADD + FAKE_RECORDS + "os._exit(0)\n"})
    assert_forgery_fails(result)
    result = run(task, {"calc/__init__.py": WRONG_ADD + FAKE_RECORDS}, name="attack-2")
    assert_forgery_fails(result)
    assert "tampered" in result.detail
    assert_honest_passes(task)


def test_closing_or_replacing_the_guard_fd_is_fail(task: dict[str, Path]) -> None:
    closer = "import os\nos.closerange(3, 256)\n"
    replacer = ("import os\nnull = os.open(os.devnull, os.O_WRONLY)\n"
                "for fd in range(3, 256):\n    if fd != null:\n        try:\n"
                "            os.dup2(null, fd)\n        except OSError:\n            pass\n")
    for i, attack in enumerate((closer, replacer)):
        result = run(task, {"calc/__init__.py": HONEST_ADD.replace("a + b", "a - b") + attack},
                     name=f"attack-{i}")
        assert_forgery_fails(result)
    assert_honest_passes(task)


PLUGIN_EXIT_ZERO = """
import gc, os
import _pytest.config

class _Exit:
    def pytest_sessionfinish(self, session, exitstatus):
        session.exitstatus = 0
        os._exit(0)

for obj in gc.get_objects():
    if isinstance(obj, _pytest.config.Config):
        obj.pluginmanager.register(_Exit(), "exit-zero")
        break
"""


def test_exit_zero_in_sessionfinish_is_fail(task: dict[str, Path]) -> None:
    result = run(task, {"calc/__init__.py": WRONG_ADD + PLUGIN_EXIT_ZERO})
    assert_forgery_fails(result)
    atexit = WRONG_ADD + "import atexit, os\natexit.register(lambda: os._exit(0))\n"
    result = run(task, {"calc/__init__.py": atexit}, name="attack-atexit")
    assert result.status is CheckStatus.FAIL and result.exit_code == 0
    assert_honest_passes(task)


def test_killing_the_parent_is_fail(task: dict[str, Path]) -> None:
    killer = WRONG_ADD + "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos._exit(0)\n"
    result = run(task, {"calc/__init__.py": killer})
    assert result.status is CheckStatus.FAIL, result
    assert_honest_passes(task)


def test_submission_that_loops_forever_is_a_scored_failure_not_pending(tmp_path: Path) -> None:
    """A `while True` in the code under test runs out the check's budget after the runner started: the
    agent's fixed-budget failure (SpecPath), never HARNESS_ERROR, which would leave the row pending."""
    from reqbench.core.checks import Check, CheckStatus, run_check

    ws, hidden = tmp_path / "ws", tmp_path / "hidden"
    ws.mkdir()
    hidden.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    while True:\n        pass\n")
    (hidden / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=8), ws, hidden)
    assert result.status is CheckStatus.FAIL and "fixed-budget failure" in result.detail
    assert result.probes == {"test_calc.py::test_add": False}
    assert result.timed_out and CheckResult.from_dict(result.to_dict()).timed_out  # protocols read the flag
