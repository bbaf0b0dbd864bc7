"""Red-team test: a wrong submission cannot pass hidden tests written as ``unittest.TestCase`` classes.

pytest runs a TestCase test without raising out of its call: the failure is stored on the item and moved
into the report by a later hook. The guard must see that stored failure (it once recorded such tests as
passed, so every wrong submission passed TestCase-style hidden tests, e.g. those of more-itertools and
cachetools). Real sandbox, real pytest; hand-computed per-test results.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check

pytestmark = pytest.mark.usefixtures("require_bwrap")

HIDDEN = """
import unittest

from calc import add


class AddTests(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 2), 4)

    def test_add_error(self):
        self.assertEqual(add("x", 1), "x1")

    def test_subtests(self):
        for a in (1, 2):
            with self.subTest(a=a):
                self.assertEqual(add(a, 0), a)

    @unittest.skip("not measured")
    def test_skipped(self):
        pass

    @unittest.expectedFailure
    def test_known_bug(self):
        self.assertEqual(add(1, 1), 3)
"""
NODES = ["test_calc.py::AddTests::test_add", "test_calc.py::AddTests::test_add_error",
         "test_calc.py::AddTests::test_subtests", "test_calc.py::AddTests::test_skipped",
         "test_calc.py::AddTests::test_known_bug"]


def _probes(tmp_path: Path, add: str) -> dict[str, bool]:
    ws, hidden = tmp_path / "ws", tmp_path / "hidden"
    (ws / "calc").mkdir(parents=True)
    (ws / "calc" / "__init__.py").write_text(add)
    hidden.mkdir()
    (hidden / "test_calc.py").write_text(HIDDEN)
    result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=60, expected_tests=NODES),
                       ws, hidden)
    assert result.status in (CheckStatus.PASS, CheckStatus.FAIL) and result.probes is not None
    return {n: result.probes[n] for n in NODES}


def test_wrong_submission_fails_testcase_tests(tmp_path: Path) -> None:
    # a - b: add(2, 2) is 0, add("x", 1) raises TypeError, add(a, 0) == a still holds
    probes = _probes(tmp_path, "def add(a, b):\n    return a - b\n")
    assert probes == {NODES[0]: False, NODES[1]: False, NODES[2]: True, NODES[3]: False, NODES[4]: False}


def test_honest_submission_passes_them(tmp_path: Path) -> None:
    probes = _probes(tmp_path, "def add(a, b):\n    return a + b if not isinstance(a, str) else a + str(b)\n")
    assert probes == {NODES[0]: True, NODES[1]: True, NODES[2]: True, NODES[3]: False, NODES[4]: False}
