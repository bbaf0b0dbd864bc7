"""Checks: exit mapping (ReqMemBench C.2), snapshot isolation, hidden tests, probes, no spoofing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from reqbench.core.checks import (
    Check,
    CheckResult,
    CheckStatus,
    junit_node_id,
    read_junit,
    run_check,
)
from reqbench.core.errors import InputError
from reqbench.core.sandbox import available_isolation
from reqbench.core.workspace import tree_hash


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    return ws


@pytest.mark.parametrize(("command", "status", "code"), [
    ("exit 0", CheckStatus.PASS, 0),
    ("exit 1", CheckStatus.FAIL, 1),
    ("exit 2", CheckStatus.HARNESS_ERROR, 2),
    ("kill -9 $$", CheckStatus.HARNESS_ERROR, 137),
    ("no-such-checker-binary", CheckStatus.HARNESS_ERROR, 127),
])
def test_exit_code_mapping(workspace: Path, command: str, status: CheckStatus, code: int) -> None:
    result = run_check(Check(name="c", command=command, timeout_seconds=30), workspace)
    assert (result.status, result.exit_code) == (status, code)


def test_timeout_is_harness_error_not_fail(workspace: Path) -> None:
    result = run_check(Check(name="slow", command="sleep 30", timeout_seconds=0.5), workspace)
    assert result.status is CheckStatus.HARNESS_ERROR and "timed out" in result.detail


def test_check_cannot_be_spoofed_by_printed_passed(workspace: Path) -> None:
    fake_junit = '<testsuite><testcase classname="t" name="test_x"/></testsuite>'
    printed = f"echo '1 passed'; echo PASSED; echo 'exit code 0'; echo '{fake_junit}'; exit 1"
    assert run_check(Check(name="c", command=printed), workspace).status is CheckStatus.FAIL
    # probes requested: a report printed to stdout is no report; exit 0 alone proves nothing
    probed = Check(name="c", command=printed.replace("exit 1", "exit 0"), probes="junit")
    result = run_check(probed, workspace)
    assert result.status is CheckStatus.HARNESS_ERROR and result.probes is None


def test_check_runs_on_a_snapshot_never_the_workspace(workspace: Path) -> None:
    before = tree_hash(workspace)
    vandal = "test -f calc.py && rm -f calc.py && echo junk > planted.py && chmod 000 . ; exit 0"
    assert run_check(Check(name="c", command=vandal), workspace).status is CheckStatus.PASS
    assert tree_hash(workspace) == before
    assert not (workspace / "planted.py").exists()


def test_hidden_dir_is_readable_but_neither_writable_nor_the_suites_copy(workspace: Path,
                                                                       tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "expected.txt").write_text("secret\n")
    command = ('test "$(cat {hidden}/expected.txt)" = secret && test "$REQBENCH_HIDDEN" = {hidden}'
               " && (echo tamper > {hidden}/expected.txt; true) && exit 0")
    assert run_check(Check(name="h", command=command), workspace, hidden).status is CheckStatus.PASS
    assert (hidden / "expected.txt").read_text() == "secret\n"
    if available_isolation() == "bwrap":
        probe = "echo x > {hidden}/expected.txt && exit 0 || exit 1"
        assert run_check(Check(name="w", command=probe), workspace, hidden).status is CheckStatus.FAIL


def test_hidden_placeholder_without_hidden_dir_is_input_error(workspace: Path) -> None:
    with pytest.raises(InputError, match="hidden"):
        run_check(Check(name="c", command="ls {hidden}"), workspace)


HIDDEN_TESTS = '''
import pytest
from calc import add

def test_add():
    assert add(2, 2) == 4

def test_add_strings():
    assert add("a", 1) == "a1"

class TestSuite:
    def test_neg(self):
        assert add(-1, -1) == -2

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert add(n, 0) == 1
'''


def test_guard_probes_are_pytest_node_ids(workspace: Path, tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "tests").mkdir(parents=True)
    (hidden / "tests" / "test_calc.py").write_text(HIDDEN_TESTS)
    check = Check(name="target", command="cp -r {hidden}/tests . && {pytest} -q tests",
                  rootdir="workspace", timeout_seconds=120)
    result = run_check(check, workspace, hidden)
    assert result.status is CheckStatus.FAIL and result.exit_code == 1
    assert result.probes == {
        "tests/test_calc.py::test_add": True,
        "tests/test_calc.py::test_add_strings": False,
        "tests/test_calc.py::TestSuite::test_neg": True,
        "tests/test_calc.py::test_param[1]": True,
        "tests/test_calc.py::test_param[2]": False,
    }


def test_empty_probe_bucket_is_harness_error(workspace: Path) -> None:
    empty = Check(name="c", command="echo '<testsuites><testsuite/></testsuites>' > {junit}; exit 0",
                  probes="junit")
    result = run_check(empty, workspace)
    assert result.status is CheckStatus.HARNESS_ERROR and "empty" in result.detail


@pytest.mark.parametrize(("writer", "status", "probes"), [
    ("""echo '{"p1": true, "p2": false}' > {output}/results.json; exit 1""", CheckStatus.FAIL,
     {"p1": True, "p2": False}),
    ("""echo '{"p1": true}' > {output}/results.json; exit 0""", CheckStatus.PASS, {"p1": True}),
    ("""echo '{}' > {output}/results.json; exit 0""", CheckStatus.HARNESS_ERROR, None),
    ("""echo '{"p1": "yes"}' > {output}/results.json; exit 0""", CheckStatus.HARNESS_ERROR, None),
    ("""echo 'not json' > {output}/results.json; exit 0""", CheckStatus.HARNESS_ERROR, None),
    ("""echo '{"p1": true}' > results.json; exit 0""", CheckStatus.HARNESS_ERROR, None),
])
def test_json_probe_reports(workspace: Path, writer: str, status: CheckStatus,
                            probes: dict[str, bool] | None) -> None:
    result = run_check(Check(name="j", command=writer, probes="json"), workspace)
    assert (result.status, result.probes) == (status, probes)


def test_result_file_must_stay_inside_the_output_dir() -> None:
    with pytest.raises(ValidationError):
        Check(name="j", command="true", probes="json", result_file="../x.json")
    with pytest.raises(ValidationError):
        Check(name="j", command="true", probes="json", result_file="/etc/passwd")


def test_junit_node_ids_without_file_attribute(tmp_path: Path) -> None:
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "test_a.py").write_text("")
    roots = [tmp_path]
    assert junit_node_id("tests.unit.test_a", "test_x", None, roots) == "tests/unit/test_a.py::test_x"
    assert junit_node_id("tests.unit.test_a.TestK", "test_y[1]", None, roots) == \
        "tests/unit/test_a.py::TestK::test_y[1]"
    assert junit_node_id("tests.unit.test_a.TestK", "t", "tests/unit/test_a.py", []) == \
        "tests/unit/test_a.py::TestK::t"
    report = tmp_path / "r.xml"
    report.write_text('<testsuite><testcase classname="tests.unit.test_a" name="t"/>'
                      '<testcase classname="tests.unit.test_a" name="t"><error/></testcase></testsuite>')
    assert read_junit(report, roots) == {"tests/unit/test_a.py::t": False}


def test_check_result_round_trips() -> None:
    result = CheckResult(CheckStatus.FAIL, 1, 0.5, {"a": True}, "d", "out", "err")
    assert CheckResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert CheckResult.skipped("build failed").status is CheckStatus.SKIPPED
