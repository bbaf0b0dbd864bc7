"""Attribution priority, process signals, the heatmap, and agreement/stability over verdict records."""

import json
from pathlib import Path

import pytest

from reqbench.protocols.pace.agreement import agreement, load_record, repeat_passk, stability
from reqbench.protocols.pace.attribution import process_signals, quality_observations
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.report import heatmap_png
from tests.protocols.pace.conftest import BILLFLOW


def test_process_signals_follow_the_event_order() -> None:
    case = load_case(BILLFLOW)
    traj = [
        {"kind": "command", "command": "cat billflow/models.py", "exit_code": 0},
        {"kind": "file_edit", "path": "billflow/models.py"},
        {"kind": "command", "command": "python -m pytest -q", "exit_code": 1},
        {"kind": "file_edit", "path": "billflow/storage.py"},
    ]
    sig = process_signals(case, "", traj)
    assert set(sig["signals"]) == {
        "expected_files_never_retrieved",
        "no_post_edit_verification",
        "verification_gap",
        "error_recovery",
    }
    assert "billflow/api/routes.py" in sig["expected_files_never_retrieved"]
    verified = [*traj, {"kind": "test_run", "command": "pytest", "exit_code": 0}]
    assert set(process_signals(case, "", verified)["signals"]) == {
        "expected_files_never_retrieved",
        "error_recovery",
    }
    assert process_signals(case, "", []) == {"available": False, "signals": []}


def test_quality_observations_do_not_touch_the_score() -> None:
    q = quality_observations("+++ b/tests/test_x.py\n+def BadName():\n+    print('x')\n")
    assert q["naming"]["nonconforming"] == ["BadName"] and q["conventions"]["print_calls"] == 1
    assert "score" not in q


def test_heatmap_png_is_written(tmp_path: Path) -> None:
    cases = [
        {
            "attribution": {"symptoms": ["integration_gap"]},
            "process_signals": {"signals": ["verification_gap"]},
        }
    ]
    out = heatmap_png(cases, tmp_path / "h.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_agreement_against_consensus_uses_the_tabled_weights(tmp_path: Path) -> None:
    judged = {"c": {"p1": "Covered", "p2": "Partial", "p3": "Missing", "p4": "Covered"}}
    consensus = {"c": {"p1": "Covered", "p2": "Covered", "p3": "Missing", "p4": "Missing"}}
    (tmp_path / "j.json").write_text(json.dumps(judged))
    (tmp_path / "c.json").write_text(json.dumps(consensus))
    out = agreement(
        load_record(tmp_path / "j.json")["verdicts"], load_record(tmp_path / "c.json")["verdicts"]
    )
    assert out["exact_agreement"] == pytest.approx(0.5)
    assert out["severe_disagreement"] == pytest.approx(0.25)
    # Po = (2 + 0.5)/4 = 0.625; rows M/P/C .25/.25/.5, cols .5/0/.5 -> Pe = 0.5
    assert out["weighted_kappa"] == pytest.approx((0.625 - 0.5) / 0.5)


def test_stability_ratio_compares_per_case_spread() -> None:
    judging = [{"a": 50.0, "b": 80.0}, {"a": 52.0, "b": 80.0}, {"a": 50.0, "b": 78.0}]
    execution = [{"a": 40.0, "b": 90.0}, {"a": 60.0, "b": 70.0}, {"a": 50.0, "b": 80.0}]
    out = stability(judging, execution)
    assert out["judging"]["mean_case_range"] == pytest.approx(2.0)
    assert out["execution"]["mean_case_range"] == pytest.approx(20.0)
    assert out["range_ratio"] == pytest.approx(10.0)
    assert out["sd_ratio"] == pytest.approx(out["execution"]["mean_case_sd"] / out["judging"]["mean_case_sd"])


def test_repeat_passk_counts_points_and_complete_cases() -> None:
    recs = [
        {"verdicts": {("c", "p"): "Covered", ("c", "q"): "Missing"}, "complete": {"c": True}},
        {"verdicts": {("c", "p"): "Partial", ("c", "q"): "Covered"}, "complete": {"c": False}},
    ]
    out = repeat_passk(recs)
    assert out["points"] == {"pass_at_k": [0.5, 1.0], "pass_hat_k": [0.5, 0.0]}
    assert out["cases"] == {"pass_at_k": [1.0, 1.0], "pass_hat_k": [1.0, 0.0]}


def test_unwired_delivery_loses_only_integration_points_and_attributes_them() -> None:
    import re

    from reqbench.protocols.pace.attribution import attribute_case
    from reqbench.protocols.pace.score import Scorer

    case = load_case(BILLFLOW)
    parts = re.split(r"(?=^diff --git )", case.reference_patch, flags=re.M)
    wiring_files = ("billflow/api/routes.py", "billflow/handlers/__init__.py")
    unwired = "".join(p for p in parts if p and not any(f in p.split("\n")[0] for f in wiring_files))
    result = Scorer(case).score(unwired)
    lost = {k: v.value for k, v in result.verdicts.items() if v.value != "Covered"}
    assert lost == {"CN11": "Missing", "CN14": "Missing"}
    w = case.weights
    assert result.score == pytest.approx(100 * (sum(w.values()) - w["CN11"] - w["CN14"]) / sum(w.values()))
    loss = attribute_case(case, result)["loss_by_symptom"]
    assert loss["integration_gap"] == pytest.approx(w["CN11"] + w["CN14"])
