"""`reqbench run` on takeover suites end to end: real agents processes, real checks, real SQLite.

Threats guarded: a control that should fail passes (or the reverse); a harness error counted as an
agent failure; a resumed run re-asking the agent; gold or checks leaking into what an agent can see.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.protocols.takeover.takeover_suite_factory import EXAMPLE, mini_suite

_CACHE: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One cache for the whole session, shared by xdist workers: admission verdicts are addressed by
    content, so tests on different mini suites reuse a target's verdict instead of re-running its checks."""
    shared = tmp_path_factory.getbasetemp().parent / "takeover-shared-cache"
    shared.mkdir(exist_ok=True)
    _CACHE[:] = [shared]


def reqbench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "REQBENCH_CACHE": str(_CACHE[0])}
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def report(run_dir: Path, tmp: Path) -> dict:
    proc = reqbench("report", str(run_dir), "--json", cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["takeover"]


def run(suite: Path, tmp: Path, out: str, *args: str) -> subprocess.CompletedProcess[str]:
    return reqbench("run", str(suite), "--out", str(tmp / out), "--quiet", "--concurrency", "2", *args, cwd=tmp)


CONDITIONS = ("C1", "oracle-post", "oracle-pre", "two-phase-C1")


def test_reference_delivers_every_target_and_null_none(tmp_path: Path):
    suite = mini_suite(tmp_path / "suite", ("T001",))
    conds = [a for c in CONDITIONS for a in ("--condition", c)]
    proc = run(suite, tmp_path, "ref", "--agent", "reference", *conds)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = report(tmp_path / "ref", tmp_path)["delivery"]
    for cond in CONDITIONS:
        assert table[cond] == {"n": 1, "complete_delivery": 1.0, "build": 1.0, "target": 1.0, "regression": 1.0,
                               "pending": 0, "invalid": 0, "unstarted": 0, "final": True}
    proc = run(suite, tmp_path, "null", "--agent", "null", *conds)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = report(tmp_path / "null", tmp_path)["delivery"]
    for cond in CONDITIONS:  # no change / no Phase-A answer: 0 in the fixed denominator, no component PASS
        assert (table[cond]["n"], table[cond]["complete_delivery"], table[cond]["build"]) == (1, 0.0, 0.0)


def test_partial_fix_passes_build_and_regression_but_not_target(tmp_path: Path):
    suite = mini_suite(tmp_path / "suite", ("T001",))
    negative = EXAMPLE / "targets" / "T001" / "negative.patch"
    proc = run(suite, tmp_path, "partial", "--agent", "command", "--condition", "C1",
               "--agent-opt", f"template=git apply {negative}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    c1 = report(tmp_path / "partial", tmp_path)["delivery"]["C1"]
    assert (c1["build"], c1["target"], c1["regression"], c1["complete_delivery"]) == (1.0, 0.0, 1.0, 0.0)


def test_harness_error_is_pending_and_resume_reevaluates_the_frozen_submission(tmp_path: Path):
    broken = tmp_path / "EVALUATOR_DOWN"
    command = (f"test -e {broken} && exit 3; {{python}} -m pytest -q -p no:cacheprovider "
               "{hidden}/test_target.py")
    suite = mini_suite(tmp_path / "suite", ("T001",), target_command=command)
    assert reqbench("validate", str(suite), cwd=tmp_path).returncode == 0  # admitted while healthy
    broken.write_text("")  # the evaluator breaks: the target check exits 3
    proc = run(suite, tmp_path, "run", "--agent", "reference", "--condition", "C1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    c1 = report(tmp_path / "run", tmp_path)["delivery"]["C1"]
    assert (c1["pending"], c1["final"], c1["complete_delivery"]) == (1, False, None)  # no rate while pending
    broken.unlink()  # repaired: resuming re-runs only the checks, on the frozen submission
    proc = run(suite, tmp_path, "run", "--agent", "reference", "--condition", "C1", "--resume")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    c1 = report(tmp_path / "run", tmp_path)["delivery"]["C1"]
    assert (c1["pending"], c1["final"], c1["complete_delivery"]) == (0, True, 1.0)
    from reqbench.core.store import RunStore

    store = RunStore.open(tmp_path / "run")
    kinds = [a.kind for a in store.attempts(next(iter(store.outcomes()))[0])]
    store.close()
    assert kinds == ["run", "reevaluate"]  # the agent ran once


# A command agent that writes down everything it can see: its input files, the workspace listing, and
# whether the suite folder (hidden tests, reference patches) is readable by absolute path.
DUMP = ("python3 -c \"import os,sys; d=os.path.dirname(sys.argv[1]); "
        "open('seen.txt','w').write(''.join(n+'\\n'+open(os.path.join(d,n)).read() for n in sorted(os.listdir(d)))"
        "+'\\n'.join(sorted(os.listdir('.')))+'\\nSUITE:'+(' '.join(sorted(os.listdir(sys.argv[2]))) if os.path.isdir(sys.argv[2]) else 'ABSENT'))\" "
        "{instructions_file} SUITE_DIR")


def test_condition_inputs_hold_no_gold_no_checks_and_no_other_history(tmp_path: Path):
    suite = mini_suite(tmp_path / "suite", ("T002",))
    conds = [a for c in ("C1", "C2", "oracle-post") for a in ("--condition", c)]
    dump = DUMP.replace("SUITE_DIR", str(suite.resolve()))
    proc = run(suite, tmp_path, "seen", "--agent", "command", "--agent-opt", f"template={dump}", *conds)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from reqbench.core.store import RunStore

    store = RunStore.open(tmp_path / "seen")
    seen = {row.condition: outcome.result.submission.patch for row, outcome in store.outcomes()}
    store.close()
    hidden_test = (EXAMPLE / "targets" / "T002" / "hidden" / "test_target.py").read_text().splitlines()[0]
    for cond, text in seen.items():
        assert "REQ_" not in text and "construction_gold" not in text and "post_task_state" not in text, cond
        assert hidden_test not in text and "test_regression" not in text and "reference.patch" not in text, cond
        assert "\n+SUITE:ABSENT\n" in text, cond  # the suite folder does not exist inside the sandbox
    # C2 shows only the relevant trajectory (late fee: messages 6, 7, 13 and the payment terms), C1 all 29
    assert "We have three plans" in seen["C1"] and "We have three plans" not in seen["C2"]
    assert "late fee" in seen["C2"]
    # Oracle Post-State: the gold projection only, no history and no request text
    assert "history.jsonl" not in seen["oracle-post"] and "We have three plans" not in seen["oracle-post"]
    assert "state.json" in seen["oracle-post"]


def test_two_phase_rows_carry_their_own_phase_a_answer_into_the_rq_tables(tmp_path: Path):
    from reqbench.protocols.takeover.suite import DEFAULT_CONDITIONS

    assert "two-phase-C2" in DEFAULT_CONDITIONS
    suite = mini_suite(tmp_path / "suite", ("T001",))
    proc = run(suite, tmp_path, "tp", "--agent", "reference", "--condition", "two-phase-C1",
               "--condition", "two-phase-C2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rep = report(tmp_path / "tp", tmp_path)
    # the gold answer that drove the delivery: every RQ number is 1 over the one delivery target
    for cond in ("two-phase-C1", "two-phase-C2"):
        assert rep["rq3_decision"][cond]["n"] == 1 and rep["rq3_decision"][cond]["decision_accuracy"] == 1.0
        assert rep["rq2"][cond]["coverage"] == 1.0
        assert rep["rq3_content"][cond]["judge"] == "exact: string-identity lower bound"
    assert rep["rq1"]["two-phase-C1"]["requirement_f1"] == 1.0 and "two-phase-C2" not in rep["rq1"]
    assert rep["delivery"]["two-phase-C1"]["complete_delivery"] == 1.0
    # C.3 cross-RQ consistency is checked and reported (RQ1 exists under C1 only)
    assert rep["rq_consistency"] == {"two-phase-C1": {"targets_checked": 1, "targets_flagged": 0, "flagged_pairs": 0,
                                                      "eligibility_differs": 0, "match_count_differs": 0}}
