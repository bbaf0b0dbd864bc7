"""Red-team tests: a check cannot alter what later checks read -- the suite's hidden tests (bound
read-only into every check, not copied) and the process's shared guard directory (the guard plugin
and the harness-side ``pytest.ini``, bound read-only at ``<scratch>/guard``).

The hostile code is the code under test: a submission whose module attacks while pytest imports it,
and a plain check command. Afterwards the suite's hidden directory and the guard directory on the host
are byte for byte what they were, and a later check of a wrong submission still FAILs with the real
probes (a forged hidden test or guard would have turned it green) while a right one PASSes.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.checks.guarddir import guard_dir, guard_files
from reqbench.core.workspace import tree_hash

pytestmark = pytest.mark.usefixtures("require_bwrap")

HIDDEN_TESTS = "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"
FORGED_TEST = "def test_add():\n    pass\n"
FORGED_GUARD = "raise SystemExit(0)\n"
PYTHON_ATTACK = textwrap.dedent(f"""
    import os, shutil, subprocess, sys
    hidden = os.environ["REQBENCH_HIDDEN"]
    guard = os.path.dirname(sys.modules["reqbench_guard"].__file__)
    def attempt(what, fn):
        try:
            fn()
            print("ATTACK-SUCCEEDED", what, file=sys.stderr)
        except Exception as exc:
            print("attack failed", what, exc, file=sys.stderr)
    def write(path, text):
        with open(path, "w") as fh:
            fh.write(text)
    attempt("rewrite test", lambda: write(hidden + "/test_calc.py", {FORGED_TEST!r}))
    attempt("plant conftest", lambda: write(hidden + "/conftest.py", "import os; os._exit(0)\\n"))
    attempt("chmod hidden", lambda: os.chmod(hidden, 0o777))
    attempt("rename test", lambda: os.rename(hidden + "/test_calc.py", hidden + "/gone.py"))
    attempt("delete test", lambda: os.remove(hidden + "/test_calc.py"))
    attempt("delete hidden", lambda: shutil.rmtree(hidden))
    attempt("rewrite guard", lambda: write(guard + "/reqbench_guard.py", {FORGED_GUARD!r}))
    attempt("shadow pytest", lambda: write(guard + "/pytest.py", {FORGED_GUARD!r}))
    attempt("rewrite ini", lambda: write(guard + "/pytest.ini", "[pytest]\\naddopts = -p no:reqbench_guard\\n"))
    attempt("delete ini", lambda: os.remove(guard + "/pytest.ini"))
    attempt("delete guard", lambda: shutil.rmtree(guard))
    for mount in (["mount", "-o", "remount,rw", hidden], ["mount", "-o", "remount,rw", guard],
                  ["umount", "-l", hidden], ["umount", "-l", guard]):
        attempt(" ".join(mount), lambda: subprocess.run(mount, check=True, capture_output=True))

    def add(a, b):
        return a - b
""")
SHELL_ATTACK = ("H={hidden}; "
                "echo 'def test_add(): pass' > $H/test_calc.py; rm -rf $H/*; rm -rf $H; chmod 777 $H; "
                "touch $H/conftest.py; mount -o remount,rw $H; umount -l $H; ls /tmp; "
                "mkdir -p {host_guard} && echo 'raise SystemExit(0)' > {host_guard}/pytest.py; exit 0")


def _submission(root: Path, name: str, calc: str) -> Path:
    ws = root / name
    ws.mkdir()
    (ws / "calc.py").write_text(calc)
    return ws


@pytest.fixture
def hidden(tmp_path: Path) -> Path:
    hidden = tmp_path / "suite" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "test_calc.py").write_text(HIDDEN_TESTS)
    return hidden


def _assert_later_checks_see_the_real_tests_and_guard(tmp_path: Path, hidden: Path, before: str) -> None:
    assert tree_hash(hidden) == before
    shared = guard_dir()
    assert sorted(os.listdir(shared)) == sorted(guard_files())
    assert all((shared / n).read_bytes() == c for n, c in guard_files().items())
    check = Check(name="target", command="{pytest} -q {hidden}", timeout_seconds=120,
                  expected_tests=["test_calc.py::test_add"])
    wrong = run_check(check, _submission(tmp_path, "wrong", "def add(a, b):\n    return a - b\n"), hidden)
    assert wrong.status is CheckStatus.FAIL and wrong.probes == {"test_calc.py::test_add": False}, wrong.detail
    right = run_check(check, _submission(tmp_path, "right", "def add(a, b):\n    return a + b\n"), hidden)
    assert right.status is CheckStatus.PASS and right.probes == {"test_calc.py::test_add": True}, right.detail


def test_code_under_test_cannot_rewrite_or_delete_hidden_tests_or_the_guard(tmp_path: Path, hidden: Path) -> None:
    before = tree_hash(hidden)
    guard_before = guard_dir()
    hostile = _submission(tmp_path, "hostile", PYTHON_ATTACK)
    result = run_check(Check(name="target", command="{pytest} -q -s {hidden}", timeout_seconds=120), hostile,
                       hidden)
    assert "ATTACK-SUCCEEDED" not in result.stderr_tail + result.stdout_tail
    assert "attack failed rewrite test" in result.stderr_tail  # the attack did run
    assert result.status is CheckStatus.FAIL
    assert guard_dir() == guard_before  # nothing had to be re-created: nothing was changed
    _assert_later_checks_see_the_real_tests_and_guard(tmp_path, hidden, before)


def test_a_plain_check_command_cannot_reach_the_hidden_tests_or_the_guard_on_the_host(tmp_path: Path,
                                                                                        hidden: Path) -> None:
    before = tree_hash(hidden)
    host_guard = guard_dir()
    command = SHELL_ATTACK.format(hidden="{hidden}", host_guard=host_guard)
    result = run_check(Check(name="vandal", command=command, timeout_seconds=60),
                       _submission(tmp_path, "vandal", "x = 1\n"), hidden)
    assert result.status is CheckStatus.PASS  # the command ran to its end ...
    assert "Read-only file system" in result.stderr_tail
    assert "reqbench-guard" not in result.stdout_tail  # ... seeing no guard directory in /tmp
    assert not (host_guard / "pytest.py").exists()
    _assert_later_checks_see_the_real_tests_and_guard(tmp_path, hidden, before)
