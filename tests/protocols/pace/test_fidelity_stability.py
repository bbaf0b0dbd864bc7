"""Judging stability beside the SD/range ratio (paper §4.5 Table 11), hand-computed."""

import json
from pathlib import Path

import pytest

from reqbench.protocols.pace.agreement import judging_records, load_record
from tests.protocols.pace.conftest import run_cli


def _record(tmp: Path, name: str, labels: list[str], score: float, complete: bool) -> Path:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps([{"case_id": "c1", "score": score, "complete": complete,
                                 "verdicts": {f"p{i}": v for i, v in enumerate(labels)}}]))
    return path


def test_pairwise_kappa_covered_rate_and_complete_deliveries(tmp_path: Path) -> None:
    a = _record(tmp_path, "a", ["Covered", "Covered", "Missing", "Missing"], 50.0, False)
    b = _record(tmp_path, "b", ["Covered", "Covered", "Missing", "Missing"], 50.0, False)
    c = _record(tmp_path, "c", ["Covered", "Partial", "Missing", "Missing"], 37.5, True)
    out = judging_records([load_record(p) for p in (a, b, c)])
    # A vs C: p_o = (1 + .5 + 1 + 1)/4 = .875; marginals A (M .5, P 0, C .5), C (M .5, P .25, C .25);
    # p_e = .5*(.5 + .5*.25) + .5*(.5*.25 + .25) = .5; kappa = (.875 - .5)/(1 - .5) = .75.
    # pairs: (A,B) = 1, (A,C) = (B,C) = .75 -> mean 2.5/3
    assert out["pairs"] == 3
    assert out["mean_pairwise_weighted_kappa"] == pytest.approx(2.5 / 3)
    assert out["mean_pairwise_severe_disagreement"] == 0.0
    assert [r["covered_point_rate"] for r in out["records"]] == [0.5, 0.5, 0.25]
    assert [r["complete_deliveries"] for r in out["records"]] == ["0/1", "0/1", "1/1"]


def test_cli_prints_them_beside_the_ratio(tmp_path: Path) -> None:
    j = [_record(tmp_path, n, ["Covered", "Missing"], 50.0, False) for n in ("j1", "j2")]
    e1 = _record(tmp_path, "e1", ["Covered", "Covered"], 100.0, True)
    e2 = _record(tmp_path, "e2", ["Missing", "Covered"], 50.0, False)
    args = ["pace", "stability", "--judging", str(j[0]), "--judging", str(j[1]),
            "--execution", str(e1), "--execution", str(e2)]
    proc = run_cli(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["judging"]["mean_pairwise_weighted_kappa"] == 1.0
    assert out["judging"]["records"][0]["covered_point_rate"] == 0.5
    assert out["execution"]["mean_case_sd"] == pytest.approx(35.3553, rel=1e-4)  # stdev(100, 50)
    text = run_cli(*args).stdout
    assert "mean pairwise weighted kappa 1.000" in text and "covered-point rate 50.0%" in text
