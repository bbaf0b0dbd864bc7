"""A three-subtask, two-stage journey instance built on the fly (fast: five hidden tests).

`calc` starts with `add`; T1 adds `sub`, T2 adds `mul` (stated first as a pivot), T3 (stage 2) adds
`div`. Patches are real diffs between the successive states.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from reqbench.protocols.journey.env import diff_trees

STATES = {
    "base": "def add(a, b):\n    return a + b\n",
    "T1": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "T2": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\n"
          "def mul(a, b):\n    return a * b\n",
    "T3": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\n"
          "def mul(a, b):\n    return a * b\n\n\ndef div(a, b):\n    if b == 0:\n"
          "        raise ValueError('division by zero')\n    return a / b\n",
}

HIDDEN = {
    "conftest.py": "import os\nimport sys\n\nsys.path.append(os.environ['REQBENCH_WORKSPACE'])\n",
    "test_base.py": "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n",
    "test_ops.py": textwrap.dedent("""\
        import pytest

        import calc


        def test_sub():
            assert calc.sub(5, 3) == 2


        def test_mul():
            assert calc.mul(4, 3) == 12


        def test_div():
            assert calc.div(6, 3) == 2


        def test_div_zero():
            with pytest.raises(ValueError):
                calc.div(1, 0)
        """),
}

SPEC = {
    "protocol": "journey", "id": "calc", "title": "A tiny calculator",
    "overview": "calc is a one-function calculator module; it should learn the other arithmetic operations.",
    "testbed": {"test_command": "{pytest} -q --continue-on-collection-errors {hidden}/tests_hidden",
                    "timeout_seconds": 60},
    "common_p2p": ["tests_hidden/test_base.py::test_add"],
    "stages": [
        {"id": "S1", "title": "more operations", "subtasks": [
            {"id": "T1", "title": "subtraction", "request": "Add calc.sub(a, b) returning a - b.",
             "plain": "I need to take one number away from another.",
             "acceptance_criteria": ["sub(5, 3) == 2"], "reference_patch": "patches/T1.patch",
             "f2p": ["tests_hidden/test_ops.py::test_sub"]},
            {"id": "T2", "title": "multiplication", "request": "Add calc.mul(a, b) returning a * b.",
             "plain": "I also need to multiply numbers.", "pivot_from": "Could it do percentages too?",
             "acceptance_criteria": ["mul(4, 3) == 12"], "depends_on": ["T1"],
             "reference_patch": "patches/T2.patch", "f2p": ["tests_hidden/test_ops.py::test_mul"],
             "p2p_include": ["T1"]},
        ]},
        {"id": "S2", "title": "division", "subtasks": [
            {"id": "T3", "title": "division", "request": "Add calc.div(a, b) returning a / b; b == 0 raises "
             "ValueError.", "plain": "And dividing, without crashing when I divide by zero.",
             "acceptance_criteria": ["div(6, 3) == 2", "div(1, 0) raises ValueError"],
             "reference_patch": "patches/T3.patch",
             "f2p": ["tests_hidden/test_ops.py::test_div", "tests_hidden/test_ops.py::test_div_zero"],
             "p2p_include": ["T1", "T2"]},
        ]},
    ],
}


def build_instance(root: Path, spec: dict | None = None) -> Path:
    """Write the calc instance under `root` and return its directory."""
    inst = root / "calc"
    states = root / "states"
    for name, code in STATES.items():
        (states / name).mkdir(parents=True)
        (states / name / "calc.py").write_text(code)
    shutil.copytree(states / "base", inst / "repo")
    (inst / "patches").mkdir(parents=True)
    prev = "base"
    for name in ("T1", "T2", "T3"):
        (inst / "patches" / f"{name}.patch").write_text(diff_trees(states / prev, states / name))
        prev = name
    hidden = inst / "hidden" / "tests_hidden"
    hidden.mkdir(parents=True)
    for name, code in HIDDEN.items():
        (hidden / name).write_text(code)
    (inst / "instance.yaml").write_text(yaml.safe_dump(spec or SPEC, sort_keys=False))
    return inst


@pytest.fixture(scope="session")
def calc_instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_instance(tmp_path_factory.mktemp("journey"))
