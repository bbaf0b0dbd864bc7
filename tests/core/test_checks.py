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
    GuardEvidence,
    glob_regex,
    judge_pytest,
    junit_node_id,
    parse_guard_records,
    read_junit,
    restore_protected,
    run_check,
)
from reqbench.core.errors import InputError
from reqbench.core.sandbox import ProcessResult, available_isolation
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
    result = CheckResult(CheckStatus.FAIL, 1, 0.5, {"a": True}, "d", "out", "err", ["conftest.py"])
    assert CheckResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert CheckResult.skipped("build failed").status is CheckStatus.SKIPPED


# --- {pytest} checks: the hardened runner and its evidence ----------------------------------------------

@pytest.fixture
def hidden_calc(tmp_path: Path) -> Path:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"
                                         "\ndef test_neg():\n    assert add(-1, -1) == -2\n")
    return hidden


def test_pytest_check_passes_on_guard_evidence(workspace: Path, hidden_calc: Path) -> None:
    result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120,
                             expected_tests=["test_calc.py::test_add"]), workspace, hidden_calc)
    assert result.status is CheckStatus.PASS, result
    assert result.probes == {"test_calc.py::test_add": True, "test_calc.py::test_neg": True}
    (workspace / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120), workspace,
                       hidden_calc)
    assert result.status is CheckStatus.FAIL
    assert result.probes == {"test_calc.py::test_add": True, "test_calc.py::test_neg": False}


def test_import_roots_come_from_pythonpath(tmp_path: Path, hidden_calc: Path) -> None:
    ws = tmp_path / "src-layout"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    plain = Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120)
    assert run_check(plain, ws, hidden_calc).status is CheckStatus.FAIL  # collection error: not importable
    rooted = Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=120, pythonpath=["src"])
    assert run_check(rooted, ws, hidden_calc).status is CheckStatus.PASS


def test_python_m_pytest_is_upgraded_and_unguarded_pytest_refused() -> None:
    assert Check(name="t", command="{python} -P -m pytest -q {hidden}").command == "{pytest} -q {hidden}"
    assert Check(name="t", command="cd x && {python} -m pytest").runs_pytest
    for bad in ("pytest -q", "python -m pytest tests", "/usr/bin/py.test", "python3 -P -m pytest",
                "{pytest} a; {pytest} b"):
        with pytest.raises(ValidationError):
            Check(name="t", command=bad)
    assert not Check(name="t", command="{python} -m compileall -q pkg {hidden}/test_pytest.py").runs_pytest
    with pytest.raises(ValidationError, match="guard"):
        Check(name="t", command="{pytest}", probes="junit")


@pytest.mark.parametrize(("command", "status"), [
    ("exit 3; {pytest} {hidden}", CheckStatus.HARNESS_ERROR),       # the runner never started
    ("{pytest} --no-such-option {hidden}", CheckStatus.HARNESS_ERROR),  # usage error of the command
    ("{pytest} {hidden}/missing_test.py", CheckStatus.HARNESS_ERROR),   # the suite's hidden path is absent
    ("{pytest} {hidden}; exit 0", CheckStatus.PASS),
    ("{pytest} {hidden} && exit 7", CheckStatus.FAIL),  # something after a passing session changed the exit
])
def test_pytest_check_harness_errors(workspace: Path, hidden_calc: Path, command: str,
                                     status: CheckStatus) -> None:
    result = run_check(Check(name="t", command=command, timeout_seconds=120), workspace, hidden_calc)
    assert result.status is status, result


def test_pytest_check_timeout_while_the_submission_runs_is_fail(workspace: Path, hidden_calc: Path) -> None:
    (workspace / "calc.py").write_text("import time\n\ndef add(a, b):\n    time.sleep(60)\n")
    result = run_check(Check(name="t", command="{pytest} {hidden}", timeout_seconds=3), workspace, hidden_calc)
    assert result.status is CheckStatus.FAIL and "timed out" in result.detail


def _proc(code: int | None) -> ProcessResult:
    return ProcessResult(code, False, None, None, None, 0.1, "bwrap")


def _records(token: str, *recs: dict[str, object]) -> bytes:
    return b"".join(json.dumps({"t": token, **r}).encode() + b"\n" for r in recs)


def test_guard_records_rules() -> None:
    ok = [{"e": "start", "safe_path": True}, {"e": "args"}, {"e": "conftests"}, {"e": "configured"},
          {"e": "item", "id": "t::a"}, *({"e": "phase", "id": "t::a", "when": w, "outcome": "passed"}
                                         for w in ("setup", "call", "teardown"))]
    finish = {"e": "finish", "status": 0}
    ev = parse_guard_records(_records("k", *ok, finish), "k")
    assert judge_pytest(ev, _proc(0), ["t::a"], 1)[:2] == (CheckStatus.PASS, {"t::a": True})
    # a failing teardown record is not outvoted by any number of passing ones
    bad_teardown = {"e": "phase", "id": "t::a", "when": "teardown", "outcome": "failed"}
    ev = parse_guard_records(_records("k", *ok, bad_teardown, finish), "k")
    assert judge_pytest(ev, _proc(0), [], 1)[:2] == (CheckStatus.FAIL, {"t::a": False})
    # no call record: not passed
    ev = parse_guard_records(_records("k", *ok[:5], ok[5], finish), "k")
    assert judge_pytest(ev, _proc(0), [], 1)[0] is CheckStatus.FAIL
    # forged (tokenless) lines, duplicate starts, records after finish: tampered, every probe 0
    for extra in (b'{"e": "finish", "status": 0}\n', _records("k", ok[0]), b"garbage\n"):
        ev = parse_guard_records(_records("k", *ok) + extra + _records("k", finish), "k")
        status, probes, detail = judge_pytest(ev, _proc(0), ["t::b"], 1)
        assert (status, probes) == (CheckStatus.FAIL, {"t::a": False, "t::b": False}) and "tampered" in detail
    ev = parse_guard_records(_records("k", *ok, finish, ok[5]), "k")
    assert ev.tampering
    # started but never finished: the submission ended the process
    ev = parse_guard_records(_records("k", *ok), "k")
    assert judge_pytest(ev, _proc(0), [], 1)[0] is CheckStatus.FAIL
    assert judge_pytest(ev, _proc(4), [], 1)[0] is CheckStatus.FAIL  # after configure: not a usage error
    # usage errors before any submission code could run, and a runner that never started
    assert judge_pytest(parse_guard_records(_records("k", ok[0]), "k"), _proc(4), [], 1)[0] \
        is CheckStatus.HARNESS_ERROR
    assert judge_pytest(GuardEvidence(), _proc(0), [], 1)[0] is CheckStatus.HARNESS_ERROR
    # collection errors, empty sessions and a non-zero session status are failures
    ev = parse_guard_records(_records("k", *ok, {"e": "collect_error", "id": "t"}, finish), "k")
    assert judge_pytest(ev, _proc(0), [], 1)[0] is CheckStatus.FAIL
    ev = parse_guard_records(_records("k", *ok[:4], {"e": "finish", "status": 5}), "k")
    assert judge_pytest(ev, _proc(5), [], 1)[0] is CheckStatus.FAIL


def test_glob_patterns() -> None:
    assert glob_regex("**/conftest.py").fullmatch("conftest.py")
    assert glob_regex("**/conftest.py").fullmatch("a/b/conftest.py")
    assert not glob_regex("**/conftest.py").fullmatch("a/my_conftest.py")
    assert glob_regex("tests/**").fullmatch("tests/unit/test_a.py")
    assert not glob_regex("tests/**").fullmatch("src/tests.py")
    assert glob_regex("**/*.pth").fullmatch("lib/x.pth") and not glob_regex("*.pth").fullmatch("lib/x.pth")


def test_restore_protected_restores_deletes_and_never_writes_through_links(tmp_path: Path) -> None:
    base, snap, outside = tmp_path / "base", tmp_path / "snap", tmp_path / "outside"
    for root in (base, snap):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "conftest.py").write_text("# base\n")
        (root / "keep.py").write_text("x = 1\n")
    outside.mkdir()
    (snap / "pkg" / "conftest.py").write_text("# changed\n")
    (snap / "conftest.py").write_text("# new\n")
    (snap / "keep.py").write_text("x = 2\n")
    (base / "sub").mkdir()
    (base / "sub" / "conftest.py").write_text("# base sub\n")
    (snap / "sub").symlink_to(outside)  # a link where the base has a directory with a protected file
    touched = restore_protected(snap, base, ["**/conftest.py"])
    assert touched == ["conftest.py", "pkg/conftest.py", "sub/conftest.py"]
    assert (snap / "pkg" / "conftest.py").read_text() == "# base\n"
    assert not (snap / "conftest.py").exists()
    assert (snap / "keep.py").read_text() == "x = 2\n"  # not protected: the submission's change stays
    assert not (snap / "sub").is_symlink() and (snap / "sub" / "conftest.py").read_text() == "# base sub\n"
    assert list(outside.iterdir()) == []


def test_protected_paths_are_restored_for_plain_checks_too(workspace: Path, tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (workspace / "sitecustomize.py").write_text("import os\nos._exit(0)\n")
    result = run_check(Check(name="c", command="test ! -e sitecustomize.py"), workspace, base=base)
    assert result.status is CheckStatus.PASS and result.protected_touched == ["sitecustomize.py"]
    assert (workspace / "sitecustomize.py").exists()  # the agent's own tree is never touched
