"""Calibration (SWE-Journey 3.2): F2P fail-before/pass-after, P2P pass-before/after, fail closed."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.models import load_instance

from .conftest import SPEC, build_instance


def test_calc_instance_calibrates_and_derives_whole_task_sets(calc_instance: Path) -> None:
    inst = load_instance(calc_instance)
    report = calibrate(inst)
    assert report.ok, [f.sentence() for f in report.findings]
    assert report.test_runs == 4  # N subtasks -> N + 1 runs
    assert inst.whole_f2p == ["tests_hidden/test_ops.py::test_sub", "tests_hidden/test_ops.py::test_mul",
                              "tests_hidden/test_ops.py::test_div", "tests_hidden/test_ops.py::test_div_zero"]
    # T2 declares T1's node P2P; for the whole task it is F2P, so only the base node stays P2P (A.4)
    assert inst.whole_p2p == ["tests_hidden/test_base.py::test_add"]


def test_f2p_node_that_already_passes_fails_calibration_naming_the_node(tmp_path: Path) -> None:
    spec = copy.deepcopy(SPEC)
    spec["stages"][0]["subtasks"][0]["f2p"].append("tests_hidden/test_base.py::test_add")
    inst = build_instance(tmp_path, spec)
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "journey", "calibrate", str(inst),
                           "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert {"subtask": "T1", "node": "tests_hidden/test_base.py::test_add",
            "rule": "F2P node passes before the patch"} in [
        {k: f[k] for k in ("subtask", "node", "rule")} for f in findings]


def test_p2p_node_that_never_existed_fails_closed(tmp_path: Path) -> None:
    spec = copy.deepcopy(SPEC)
    spec["stages"][1]["subtasks"][0]["p2p"] = ["tests_hidden/test_ops.py::test_missing"]
    report = calibrate(load_instance(build_instance(tmp_path, spec)))
    assert not report.ok
    node = "tests_hidden/test_ops.py::test_missing"
    assert {(f.subtask, f.node, f.rule) for f in report.findings} == {
        ("T3", node, "P2P node fails before the patch"), ("T3", node, "P2P node fails after the patch"),
        ("", node, "whole-task P2P node fails on the base"),
        ("", node, "whole-task P2P node fails at the end")}


def test_subtask_without_f2p_nodes_is_rejected_as_input(tmp_path: Path) -> None:
    spec = copy.deepcopy(SPEC)
    spec["stages"][0]["subtasks"][0]["f2p"] = []
    with pytest.raises(InputError, match="no F2P nodes"):
        load_instance(build_instance(tmp_path, spec))
