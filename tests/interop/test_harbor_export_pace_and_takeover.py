"""`reqbench export harbor` of PACE cases and takeover delivery targets: one task each in Harbor's layout,
their environment from the suite's ``environment:`` block, and their verifiers -- reqbench's own offline
PACE grading shipped in the task, the three delivery gates -- giving the reference full reward, the
untouched repository 0 and a partial solution (takeover's negative patch) 0."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from reqbench.core.bundled import bundled_suite, resolve_suite
from reqbench.core.errors import InputError
from reqbench.interop.harbor_env import dockerfile
from reqbench.interop.harbor_export import export_suite
from reqbench.protocols.harbor.dockerfile import environment_block
from reqbench.protocols.pace.case import check_frozen, load_case
from tests.interop.exported import grade


@pytest.fixture(scope="module")
def pace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pace") / "harbor"
    export_suite(resolve_suite("demo:pace"), out)
    return out


@pytest.fixture(scope="module")
def takeover(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("takeover") / "harbor"
    export_suite(resolve_suite("demo:takeover"), out)
    return out


def test_a_pace_case_becomes_one_task_graded_by_reqbenchs_own_code(pace: Path) -> None:
    assert sorted(p.name for p in pace.iterdir()) == ["billflow-credit-notes", "cachetools-slru", "shopcart-discounts"]
    task = pace / "billflow-credit-notes"
    config = tomllib.loads((task / "task.toml").read_text())
    assert "not a PACE score" in config["metadata"]["grading"] and "not a PACE score" in (task / "README.md").read_text()
    assert (task / "environment" / "repo" / "prd" / "prd.md").is_file()
    assert "prd/prd.md" in (task / "instruction.md").read_text()
    assert (task / "tests" / "lib" / "reqbench" / "protocols" / "pace" / "score.py").is_file()
    assert not (task / "tests" / "lib" / "reqbench" / "cli").exists()
    case = load_case(task / "tests" / "pace")
    assert case.spec.base == "dir:base" and check_frozen(case)  # re-frozen over the exported base
    assert "pydantic==" in (task / "environment" / "Dockerfile").read_text()


@pytest.mark.parametrize("name", ["billflow-credit-notes", pytest.param("cachetools-slru", marks=pytest.mark.slow)])
def test_the_pace_verifier_gives_the_reference_full_reward_and_the_base_none(pace: Path, tmp_path: Path,
                                                                             name: str) -> None:
    task = pace / name
    reference = (task / "solution" / "reference.patch").read_text()
    assert grade(task, tmp_path / "ref", reference) == {"reward": 1.0}
    assert grade(task, tmp_path / "base") == {"reward": 0.0}


def test_a_takeover_target_becomes_one_task_under_c1(takeover: Path) -> None:
    assert sorted(p.name for p in takeover.iterdir()) == [f"DOCKSIDE_T00{n}" for n in (1, 2, 3, 4, 6)]
    task = takeover / "DOCKSIDE_T001"
    text = (task / "instruction.md").read_text()
    assert "## task.json" in text and "## history.jsonl" in text
    for part in ("tests/gates.py", "tests/takeover/gates.json", "tests/hidden/test_target.py",
                 "tests/takeover/initial/billing/invoice.py", "solution/solve.sh", "environment/repo/billing"):
        assert (task / part).exists(), part
    assert tomllib.loads((task / "task.toml").read_text())["metadata"]["condition"] == "C1"


@pytest.mark.slow
def test_the_gates_decide_delivery_as_the_paper_does(takeover: Path, tmp_path: Path) -> None:
    task = takeover / "DOCKSIDE_T001"
    negative = (bundled_suite("takeover") / "targets" / "T001" / "negative.patch").read_text()
    assert grade(task, tmp_path / "ref", (task / "solution" / "reference.patch").read_text()) == {
        "reward": 1.0, "build": 1.0, "target": 1.0, "regression": 1.0}
    assert grade(task, tmp_path / "none") == {"reward": 0.0, "build": 0.0, "target": 0.0,
                                                          "regression": 0.0}  # no deliverable
    assert grade(task, tmp_path / "neg", negative) == {"reward": 0.0, "build": 1.0, "target": 0.0,
                                                                   "regression": 1.0}
    broken = {"billing/invoice.py": "def broken(:\n"}
    assert grade(task, tmp_path / "build", plant=broken)["build"] == 0.0


def test_an_environment_block_becomes_a_dockerfile_that_imports_back_to_it() -> None:
    python = {"python": {"interpreter": "3.12", "requirements": ["attrs==23.2.0"]}, "setup": ["echo ok > /x"]}
    debian = {"debian": {"suite": "trixie", "packages": ["git"]}, "python": {"interpreter": "root",
                                                                            "requirements": ["attrs==23.2.0"]}}
    for block, pip in ((python, ["pytest"]), (debian, ["pytest"]), (None, [])):
        text = dockerfile(block, pip, origin="suite.yaml")
        back = environment_block(text).block
        assert back is not None and "image" not in back, text
        if block is not None:
            assert back["python"]["requirements"] == [*block["python"]["requirements"], *pip]
            assert back.get("debian", {}).get("suite") == block.get("debian", {}).get("suite")
    with pytest.raises(InputError, match="environment.node"):
        dockerfile({"node": {"package_json": "."}}, [], origin="suite.yaml")
    assert yaml.safe_dump(environment_block(dockerfile(None, [], origin="x")).block) == "python:\n  interpreter: '3.11'\n  requirements: []\n"
