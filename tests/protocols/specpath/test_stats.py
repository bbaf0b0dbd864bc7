"""FCR / blocks / CPV / control deltas against hand-computed numbers (SpecPath RQ1-RQ3 definitions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.specpath.metrics import ResultRow, summarize_results
from reqbench.protocols.specpath.raster import raster_matrix
from reqbench.protocols.specpath.results import parse_results

CORE = ("direct", "duplicate", "split", "override", "cancellation")


def _rows(family: str, config: str, repeat: int, outcomes: dict[str, str]) -> list[dict]:
    out = []
    for cond, o in outcomes.items():
        sig = None if o == "invalid" else ([1, 1] if o == "success" else [1, 0])
        out.append({"family": family, "config": config, "condition": cond, "repeat": repeat,
                    "outcome": o, "signature": sig})
    return out


def _all(outcome: str = "success", **over: str) -> dict[str, str]:
    d = {c: outcome for c in CORE}
    d.update({k.replace("_", "-"): v for k, v in over.items()})
    return d


def _summary(records: list[dict]) -> dict:
    return summarize_results(parse_results([json.dumps(r) for r in records]))


def test_gains_and_losses_cancel_fcr_unchanged_while_cpv_positive() -> None:
    # Four blocks of one family: direct S,S,F,F; override F,F,S,S; everything else succeeds.
    recs = []
    for rep, (d, o) in enumerate([("success", "failure"), ("success", "failure"),
                                  ("failure", "success"), ("failure", "success")]):
        recs += _rows("fam", "mini:m1", rep, _all(direct=d, override=o))
    s = _summary(recs)
    assert s["fcr"]["direct"]["estimate"] == 0.5 and s["fcr"]["override"]["estimate"] == 0.5
    assert s["fcr"]["direct"]["support"] == 4
    assert s["blocks"] == {"possible": 4, "complete": 4, "eligible": 2}
    assert s["cpv"]["any"]["estimate"] == 1.0
    assert (s["cpv"]["any"]["positive"], s["cpv"]["any"]["eligible"]) == (2, 2)
    assert s["cpv"]["override"]["estimate"] == 1.0 and s["cpv"]["duplicate"]["estimate"] == 0.0


def test_fcr_and_cpv_are_task_macro_and_invalid_rows_are_attrition() -> None:
    recs = []
    # family A: 2 eligible blocks, 1 positive (split fails in block 0) -> 0.5
    recs += _rows("A", "c1", 0, _all(split="failure"))
    recs += _rows("A", "c1", 1, _all())
    # family A: an incomplete block (cancellation invalid) even though override failed -> not eligible
    recs += _rows("A", "c1", 2, _all(override="failure", cancellation="invalid"))
    # family B: 1 eligible block, positive via duplicate -> 1.0; and a direct-failure block
    recs += _rows("B", "c1", 0, _all(duplicate="failure"))
    recs += _rows("B", "c1", 1, _all(direct="failure", split="failure"))
    s = _summary(recs)
    # direct FCR: A 3/3, B 1/2 -> macro (1 + 0.5)/2 = 0.75 (pooled would be 4/5)
    assert s["fcr"]["direct"]["estimate"] == 0.75 and s["fcr"]["direct"]["support"] == 5
    # cancellation: A has 2 scored (one invalid dropped) 2/2, B 2/2 -> 1.0, support 4
    assert s["fcr"]["cancellation"] == {**s["fcr"]["cancellation"], "estimate": 1.0, "support": 4}
    # split: A 2/3, B 1/2 -> (0.6667 + 0.5)/2
    assert s["fcr"]["split"]["estimate"] == pytest.approx((2 / 3 + 0.5) / 2, abs=1e-6)
    assert s["blocks"] == {"possible": 5, "complete": 4, "eligible": 3}
    # any-CPV macro: A 1/2, B 1/1 -> 0.75 (pooled would be 2/3)
    assert s["cpv"]["any"]["estimate"] == 0.75
    assert (s["cpv"]["any"]["positive"], s["cpv"]["any"]["eligible"]) == (2, 3)
    assert s["cpv"]["split"]["estimate"] == 0.25  # A 1/2, B 0/1
    assert s["cpv"]["duplicate"]["estimate"] == 0.5  # A 0/2, B 1/1
    assert s["cpv"]["override"]["estimate"] == 0.0
    assert s["rows"] == {"total": 25, "scored": 24, "invalid": 1}
    lo, hi = s["cpv"]["any"]["ci"]
    assert 0.0 <= lo <= 0.75 <= hi <= 1.0
    assert "cluster bootstrap over families" in s["method"]


def test_control_delta_is_paired_with_direct_and_task_macro() -> None:
    recs = []
    # family A: pairs (d=S,c=F), (d=S,c=S) -> mean delta -0.5; family B: (d=F,c=S) -> +1
    for rep, (d, c) in enumerate([("success", "failure"), ("success", "success")]):
        recs += _rows("A", "c1", rep, {"direct": d, "paraphrase-direct": c})
    recs += _rows("B", "c1", 0, {"direct": "failure", "paraphrase-direct": "success"})
    recs += _rows("B", "c1", 1, {"direct": "success", "paraphrase-direct": "invalid"})  # no pair
    s = _summary(recs)
    ctl = s["controls"]["paraphrase-direct"]
    assert ctl["delta"] == pytest.approx(0.25) and ctl["pairs"] == 3


def test_breakdowns_by_scaffold_and_model_come_from_config() -> None:
    recs = _rows("A", "mini:m1", 0, _all(override="failure")) + _rows("A", "openhands:m1", 0, _all())
    s = _summary(recs)
    assert s["by_scaffold"]["mini"]["cpv"]["any"]["estimate"] == 1.0
    assert s["by_scaffold"]["openhands"]["cpv"]["any"]["estimate"] == 0.0
    assert s["by_model"]["m1"]["cpv"]["any"]["eligible"] == 2
    assert s["by_family"]["A"]["blocks"]["eligible"] == 2


def test_results_file_refuses_duplicates_bad_outcomes_and_success_with_failed_probe() -> None:
    row = {"family": "f", "config": "c", "condition": "direct", "repeat": 0, "outcome": "success",
           "signature": [1, 1]}
    with pytest.raises(InputError, match="duplicate row"):
        parse_results([json.dumps(row), json.dumps(row)])
    with pytest.raises(InputError, match="line 1"):
        parse_results([json.dumps({**row, "outcome": "crashed"})])
    with pytest.raises(InputError, match="eq. 5"):
        parse_results([json.dumps({**row, "signature": [1, 0]})])


def test_raster_marks_pass_fail_and_unscored_cells() -> None:
    rows = [ResultRow("f", "c", "direct", 0, "success", (1, 1)),
            ResultRow("f", "c", "override", 0, "failure", (1, 0)),
            ResultRow("f", "c", "split", 0, "invalid", None)]
    matrix, labels, conds = raster_matrix(rows)
    assert conds == ["direct", "split", "override"]
    assert matrix == [[2, 2, 3, 0, 0, 3, 2, 1]]
    assert labels == ["f | c | r0"]


def test_raster_draws_a_scored_failure_without_signature_as_a_failure_not_as_unscored() -> None:
    """An agent timeout or empty patch is a scored fixed-budget failure (SpecPath §4.3): red, never grey."""
    rows = [ResultRow("f", "c", "direct", 0, "success", (1, 1)),
            ResultRow("f", "c", "duplicate", 0, "failure", None, reason="agent_timeout"),
            ResultRow("f", "c", "split", 0, "invalid", None, reason="provider_error")]
    matrix, _, conds = raster_matrix(rows)
    assert conds == ["direct", "duplicate", "split"]
    assert matrix == [[2, 2, 3, 1, 1, 3, 0, 0]]


def test_cli_stats_json_and_raster(tmp_path: Path) -> None:
    recs = []
    for rep, (d, o) in enumerate([("success", "failure"), ("failure", "success")]):
        recs += _rows("fam", "mini:m1", rep, _all(direct=d, override=o))
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    png = tmp_path / "raster.png"
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "stats", str(path),
                           "--json", "--raster", str(png)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["fcr"]["direct"]["estimate"] == 0.5 and out["cpv"]["any"]["estimate"] == 1.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "stats", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert "positive/eligible" in text.stdout and "1/1" in text.stdout
    path.write_text("{not json\n")
    bad = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "stats", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "line 1" in bad.stderr
