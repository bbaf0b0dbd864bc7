"""`reqbench journey synthesize`: the weak-to-strong pipeline (SWE-Journey §3.2, A.2) against a scripted
OpenAI-compatible provider on 127.0.0.1, with real hidden-test runs for the execution gate."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.core.bundled import bundled_suite
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.synthesis.coverage import (
    ANGLES,
    DEFECT,
    angle_distribution,
    sample_angles,
    select_seeds,
)
from reqbench.protocols.journey.synthesis.dimensions import DimensionProfile, exceeded_dimensions, plan_exceeds_seed
from reqbench.protocols.journey.synthesis.gates import rubric_failures
from reqbench.protocols.journey.synthesis.prompts import RUBRIC_ITEMS
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

TASKLET = bundled_suite("journey") / "tasklet"
BASE = (TASKLET / "repo" / "tasklet" / "tasklist.py").read_text()
SEED_DIMS = {"context_scope": 1, "change_scope": 1, "requirement_labels": ["feature"],
             "knowledge_domains": ["collections"]}


def _seed(tmp: Path) -> Path:
    seed = tmp / "seed"
    shutil.copytree(TASKLET / "repo", seed / "repo")
    for name in ("conftest.py", "test_base.py"):
        (seed / "hidden" / "tests_hidden").mkdir(parents=True, exist_ok=True)
        shutil.copy(TASKLET / "hidden" / "tests_hidden" / name, seed / "hidden" / "tests_hidden" / name)
    (seed / "seed.yaml").write_text(yaml.safe_dump({
        "id": "tasklet", "title": "A tiny to-do list library", "task": "Add a count of open tasks.",
        "repository": "tasklet", "dimensions": SEED_DIMS,
        "common_p2p": ["tests_hidden/test_base.py::test_ids_increase_from_one"]}))
    return seed


def _stage(title: str, dims: dict[str, Any], sub: str, depends: list[int]) -> dict[str, Any]:
    return {"title": title, "angles": ["feature addition"], "dimensions": dims,
            "subtasks": [{"title": sub, "goal": f"the {sub}", "files": ["tasklet/tasklist.py"],
                          "depends_on": depends}]}


FLAT_PLAN = {"stages": [_stage("one", SEED_DIMS, "count", []), _stage("two", SEED_DIMS, "titles", [1])]}
HARD = {"context_scope": 2, "change_scope": 2, "requirement_labels": ["feature", "validation"],
        "knowledge_domains": ["collections", "text"]}
GOOD_PLAN = {"stages": [_stage("one", HARD, "count", []), _stage("two", HARD, "titles", [1])]}

COUNT = BASE + "\n    def count_open(self) -> int:\n        return len(self.open())\n"
TITLES = COUNT + "\n    def titles(self) -> list[str]:\n        return [t.title for t in self._tasks]\n"


def _impl(content: str, test_name: str, test_body: str, node: str) -> Reply:
    return reply(json.dumps({
        "request": "Add it.", "plain": "I want it.", "acceptance_criteria": ["it works"],
        "files": [{"path": "tasklet/tasklist.py", "content": content}],
        "tests": [{"path": f"tests_hidden/{test_name}", "content": test_body}], "f2p": [node], "p2p": []}))


T1_TEST = "from tasklet import TaskList\n\ndef test_count_open():\n    tl = TaskList(); tl.add('a')\n    assert tl.count_open() == 1\n"
T1_VACUOUS = "def test_count_open():\n    assert True\n"
T2_TEST = "from tasklet import TaskList\n\ndef test_titles():\n    tl = TaskList(); tl.add('a')\n    assert tl.titles() == ['a']\n"
PASS = reply(json.dumps({"rubric": [{"item": i, "pass": True, "reason": "ok"} for i in RUBRIC_ITEMS]}))
FAIL = reply(json.dumps({"rubric": [{"item": i, "pass": i != "no_solution_leak", "reason": "names the code"}
                                    for i in RUBRIC_ITEMS]}))


def _script() -> list[Reply]:
    return [
        reply(json.dumps(FLAT_PLAN)),                                         # plan 1: not beyond the seed
        reply("```json\n" + json.dumps(GOOD_PLAN) + "\n```"),                 # plan 2: passes
        _impl(COUNT, "test_count.py", T1_VACUOUS, "tests_hidden/test_count.py::test_count_open"),  # exec fails
        _impl(COUNT, "test_count.py", T1_TEST, "tests_hidden/test_count.py::test_count_open"),
        PASS,                                                                 # T1 rubric
        _impl(TITLES, "test_titles.py", T2_TEST, "tests_hidden/test_titles.py::test_titles"),
        FAIL,                                                                 # T2 rubric fails
        reply(json.dumps({"title": "titles", "goal": "list every title in order"})),  # return to planning
        _impl(TITLES, "test_titles.py", T2_TEST, "tests_hidden/test_titles.py::test_titles"),
        PASS,
    ]


def _run(seed: Path, out: Path, base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REQBENCH_BASE_URL": base_url, "REQBENCH_API_KEY": "k"}
    env.pop("REQBENCH_LLM_CACHE", None)
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", "journey", "synthesize", str(seed),
                           "--out", str(out), "--planner-model", "strong", "--worker-model", "weak",
                           "--stages", "2", "--subtasks-per-stage", "1", "--max-retries", "1", *extra],
                          capture_output=True, text=True, env=env, timeout=280)


def test_pipeline_gates_plan_execution_and_rubric_and_writes_a_calibrated_unreviewed_instance(tmp_path: Path) -> None:
    seed, out = _seed(tmp_path), tmp_path / "out"
    script = _script()
    # T2's second attempt repeats the first: its identical rubric review is answered from the client's
    # record (no request), and fails again
    script[6:7] = [FAIL, _impl(TITLES, "test_titles.py", T2_TEST, "tests_hidden/test_titles.py::test_titles")]
    with ScriptedOpenAI(script) as srv:
        proc = _run(seed, out, srv.base_url)
        bodies = srv.chat_requests
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert [b["model"] for b in bodies] == ["strong", "strong", "weak", "weak", "strong", "weak", "strong",
                                            "weak", "strong", "weak", "strong"]
    assert "it must exceed it on at least two of the four dimensions" in bodies[1]["messages"][-1]["content"]
    assert "F2P node passes before the patch" in bodies[3]["messages"][-1]["content"]
    assert "rubric item no_solution_leak failed" in bodies[8]["messages"][1]["content"]  # the replan
    assert all(b["temperature"] == 0 for b in bodies)
    inst = load_instance(out)
    assert (out / "instance.yaml").read_text().startswith("# UNREVIEWED")
    assert [s.id for s in inst.subtasks] == ["T1", "T2"] and inst.subtask("T2").depends_on == ["T1"]
    assert inst.subtask("T2").p2p_include == ["T1"] and inst.subtask("T2").title == "titles"
    assert calibrate(inst).ok
    meta = json.loads((out / "synthesis.json").read_text())
    assert meta["reviewed"] is False
    gates = [(e["step"], e.get("gate"), e["passed"]) for e in meta["gates"]]
    assert gates == [("plan", None, False), ("plan", None, True), ("implement", "execution", False),
                     ("implement", "rubric", True), ("implement", "rubric", False), ("implement", "rubric", False),
                     ("replan", None, True), ("implement", "rubric", True)]
    assert meta["coverage"]["knowledge_domains"] == ["collections", "text"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".synth-")]


def test_exhausted_gates_fail_with_the_reasons_and_write_nothing(tmp_path: Path) -> None:
    seed, out = _seed(tmp_path), tmp_path / "out"
    vacuous = _impl(COUNT, "test_count.py", T1_VACUOUS, "tests_hidden/test_count.py::test_count_open")
    script = [reply(json.dumps(GOOD_PLAN)), vacuous, vacuous,
              reply(json.dumps({"title": "count", "goal": "count open tasks"})), vacuous, vacuous]
    with ScriptedOpenAI(script) as srv:
        proc = _run(seed, out, srv.base_url)
    assert proc.returncode == 2
    assert "subtask T1 failed its gates after 1 replan(s)" in proc.stderr + proc.stdout
    assert "F2P node passes before the patch" in proc.stderr + proc.stdout
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["seed"]


def test_a_candidate_writing_outside_its_tree_is_rejected_before_anything_runs(tmp_path: Path) -> None:
    seed, out = _seed(tmp_path), tmp_path / "out"
    escape = reply(json.dumps({"request": "r", "plain": "p", "acceptance_criteria": ["c"],
                               "files": [{"path": "../../etc/evil", "content": "x"}],
                               "tests": [{"path": "tests_hidden/t.py", "content": ""}], "f2p": ["n"]}))
    with ScriptedOpenAI([reply(json.dumps(GOOD_PLAN)), escape, escape]) as srv:
        proc = _run(seed, out, srv.base_url, "--max-replans", "0")
    assert proc.returncode == 2 and "must stay inside its tree" in proc.stderr + proc.stdout
    assert not (tmp_path.parent / "etc").exists() and not out.exists()


def test_plan_exceeds_seed_on_two_of_four_dimensions_hand_computed() -> None:
    seed = DimensionProfile(context_scope=2, change_scope=3, requirement_labels=["a"], knowledge_domains=["x"])
    one = DimensionProfile(context_scope=3, change_scope=3, requirement_labels=["a"], knowledge_domains=["x"])
    two = DimensionProfile(context_scope=3, change_scope=2, requirement_labels=["a", "b"], knowledge_domains=["x"])
    assert exceeded_dimensions(one, seed) == ["context_scope"] and not plan_exceeds_seed(one, seed)
    assert exceeded_dimensions(two, seed) == ["context_scope", "requirement_depth"] and plan_exceeds_seed(two, seed)
    merged = one.merged(two)
    assert merged.values() == {"context_scope": 3, "change_scope": 3, "requirement_depth": 2,
                               "knowledge_breadth": 1}


def test_angle_distribution_caps_defect_fixing_and_floors_the_two_rarest() -> None:
    dist = angle_distribution()
    assert len(dist) == 20 and abs(sum(dist.values()) - 1) < 1e-12
    assert dist[DEFECT] == 0.15
    assert dist["environment setup"] == dist["repository collaboration"] == 0.02
    # the rest keep their relative weights: feature addition / data processing = 0.14 / 0.07
    assert dist["feature addition"] / dist["data processing"] == pytest.approx(2.0)
    assert sample_angles(3, 2, seed=7) == sample_angles(3, 2, seed=7)
    assert all(len(set(s)) == 2 and set(s) <= set(ANGLES) for s in sample_angles(3, 2, seed=7))


def test_seed_selection_prefers_rare_labels_and_caps_three_per_repository() -> None:
    pool = [("a1", "A", ["x", "y"]), ("a2", "A", ["x"]), ("a3", "A", ["x"]), ("a4", "A", ["z"]),
            ("b1", "B", ["x", "y"]), ("c1", "C", ["rare"])]
    # label worths: x 1/4, y 1/2, z 1, rare 1 -> a4 (z; tie with c1 broken by id), c1, a1 (x+y = 3/4);
    # all covered, so by total worth: b1 (3/4) before a2 (1/4); a3 would be repository A's fourth
    assert select_seeds(pool, 4) == ["a4", "c1", "a1", "b1"]
    assert select_seeds(pool, 6) == ["a4", "c1", "a1", "b1", "a2"]


def test_rubric_gate_fails_closed_on_missing_items() -> None:
    assert rubric_failures({"rubric": [{"item": "criteria_checkable", "pass": True}]})[0] == \
        "rubric item request_matches_plan was not answered"
    assert rubric_failures("nonsense") == ["the rubric answer has no `rubric` list"]


def test_select_seeds_cli_reads_labels_and_repositories(tmp_path: Path) -> None:
    dirs = []
    for sid, repo, labels in [("s1", "R", ["x"]), ("s2", "R", ["x", "y"]), ("s3", "Q", ["z"])]:
        d = _seed(tmp_path / sid)
        data = yaml.safe_load((d / "seed.yaml").read_text())
        (d / "seed.yaml").write_text(yaml.safe_dump({**data, "id": sid, "repository": repo, "labels": labels}))
        dirs.append(str(d))
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "journey", "select-seeds", *dirs,
                           "--count", "2"], capture_output=True, text=True, timeout=60)
    # worths: x 1/2, y 1, z 1 -> s2 (x+y = 3/2), then s3 (z)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [dirs[1], dirs[2]]
