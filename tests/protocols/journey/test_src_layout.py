"""A tree with a src/ layout is tested the way the project imports it: `testbed.pythonpath` names
its import roots (the verifier puts them on sys.path after pytest starts; nothing is installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.online import run_hidden_tests

from .scaffold_fixture import write_releases

NODES = ["tests/test_tally.py::test_add", "tests/test_tally.py::test_sub", "tests/test_tally.py::test_mul"]


def _instance(tmp_path: Path, pythonpath: list[str] | None) -> Path:
    final = write_releases(tmp_path / "releases")[-1]
    inst = tmp_path / "inst"
    shutil.copytree(final, inst / "repo")
    shutil.copytree(final / "tests", inst / "hidden" / "tests")
    env = {"test_command": "{pytest} -q --continue-on-collection-errors {hidden}/tests", "timeout_seconds": 60}
    if pythonpath is not None:
        env["pythonpath"] = pythonpath
    spec = {"protocol": "journey", "id": "tally", "title": "tally", "testbed": env,
            "stages": [{"id": "S1", "subtasks": [{"id": "T1", "title": "t", "request": "r",
                                                  "reference_patch": "none.patch", "f2p": NODES}]}]}
    (inst / "none.patch").write_text("")
    (inst / "instance.yaml").write_text(yaml.safe_dump(spec))
    return inst


def test_src_layout_imports_from_src(tmp_path: Path) -> None:
    inst = load_instance(_instance(tmp_path, ["src"]))
    run = run_hidden_tests(inst, inst.repo_dir)
    assert [run.passed(n) for n in NODES] == [True, True, True]


def test_src_layout_without_its_import_root_fails_every_node(tmp_path: Path) -> None:
    # the default root is the tree itself: `import tally` finds nothing, so nothing passes (the failure
    # a src/-layout project showed before the import roots were part of the testbed)
    inst = load_instance(_instance(tmp_path, None))
    run = run_hidden_tests(inst, inst.repo_dir)
    assert [run.passed(n) for n in NODES] == [False, False, False]


@pytest.mark.parametrize("entry", ["../outside", "/abs", ""])
def test_pythonpath_outside_the_tree_is_refused(tmp_path: Path, entry: str) -> None:
    path = _instance(tmp_path, [entry])
    with pytest.raises(InputError, match="pythonpath") as info:
        load_instance(path)
    assert "instance.yaml" in str(info.value)
