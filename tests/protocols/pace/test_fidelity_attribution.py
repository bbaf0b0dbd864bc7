"""Attribution from the judge's structured reasons; process signals from what happened, incl. shell
edits (paper §3.2, appendix "Attribution rules", Table 3)."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from reqbench.core.agents.llm_agent import workspace_state
from reqbench.protocols.pace.attribution import attribute_case, classify_point, process_signals
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.models import Verdict
from tests.protocols.pace.conftest import BILLFLOW


def _point(pid: str, verdict: Verdict, weight: float, gaps: list[dict[str, bool]], stage: str = "L2") -> Any:
    entries = [{"criterion_id": f"{pid}.c{i}", "judgment": "missing", "gaps": g} for i, g in enumerate(gaps)]
    return SimpleNamespace(point_id=pid, verdict=verdict, weight=weight, stage=stage,
                           checklist={"evidence_checklist": entries}, reasoning="")


def test_symptom_is_read_from_flags_in_priority_order_not_from_words() -> None:
    both = _point("A", Verdict.MISSING, 4.0, [{"test_delivery_gap": True}, {"integration_gap": True}])
    assert classify_point(both) == ("integration_gap", "judge")  # integration outranks tests
    # reasoning text full of keywords does not matter; only flags do
    worded = _point("B", Verdict.PARTIAL, 2.0, [{}])
    worded.reasoning = "contract mismatch: route not registered; tests absent"
    assert classify_point(worded) == ("incomplete_implementation", "default")
    assert classify_point(_point("C", Verdict.MISSING, 1.0, [], stage="L0")) == ("contract_mismatch", "L0")


def test_weighted_loss_per_symptom_by_hand() -> None:
    result = SimpleNamespace(points=[
        _point("A", Verdict.MISSING, 4.0, [{"integration_gap": True}]),  # loss 4
        _point("B", Verdict.PARTIAL, 6.0, [{"contract_mismatch": True, "incomplete_implementation": True}]),
        _point("C", Verdict.PARTIAL, 2.0, [{"test_delivery_gap": True}]),  # loss 1
        SimpleNamespace(point_id="D", verdict=Verdict.COVERED, weight=9.0, stage="L2", checklist=None),
    ])
    out = attribute_case(load_case(BILLFLOW), result)
    assert out["loss_by_symptom"] == pytest.approx({"contract_mismatch": 3.0, "integration_gap": 4.0,
                                                    "test_delivery_gap": 1.0, "incomplete_implementation": 0.0})


def test_a_shell_edit_without_later_verification_fires_the_signal() -> None:
    case = load_case(BILLFLOW)
    traj = [
        {"kind": "command", "command": "python -m pytest -q", "exit_code": 0, "files_changed": []},
        {"kind": "command", "command": "sed -i 's/a/b/' billflow/models.py", "exit_code": 0,
         "files_changed": ["billflow/models.py"]},
    ]
    sig = process_signals(case, "", traj)
    assert "no_post_edit_verification" in sig["signals"]
    assert sig["edits"] == 1 and sig["shell_edits"] == 1 and sig["post_edit_verifications"] == 0
    verified = [*traj, {"kind": "command", "command": "python -m pytest -q", "exit_code": 0}]
    assert "no_post_edit_verification" not in process_signals(case, "", verified)["signals"]


def test_workspace_state_sees_a_shell_edit_and_ignores_caches(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = workspace_state(tmp_path)
    (tmp_path / "a.py").write_text("x = 22\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"0")
    after = workspace_state(tmp_path)
    assert sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)) == ["a.py"]
