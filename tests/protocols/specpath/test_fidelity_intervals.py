"""Intervals: no zero-width bootstrap over one family; family- and task-level bootstraps (SpecPath RQ1)."""

import pytest

from reqbench.protocols.specpath.metrics import NO_INTERVAL, ResultRow, _estimate, fcr, summarize_results


def _rows(family: str, outcomes: list[str]) -> list[ResultRow]:
    return [ResultRow(family, "cfg", "direct", i, o) for i, o in enumerate(outcomes)]


def test_one_family_reports_no_interval_and_says_why() -> None:
    out = fcr(_rows("f1", ["success", "failure", "success", "success"]), "direct")
    assert out["estimate"] == pytest.approx(0.75)
    assert out["ci"] == [None, None] and out["no_interval"] == NO_INTERVAL
    for mode in ("family", "task"):
        assert _estimate({"f1": [1.0, 0.0]}, mode)[1:] == ([None, None], NO_INTERVAL)


def test_family_and_task_bootstraps_are_named_options() -> None:
    rows = _rows("a", ["success", "success"]) + _rows("b", ["failure", "success", "failure", "failure"])
    fam = summarize_results(rows, "family")
    task = summarize_results(rows, "task")
    # task-macro estimate either way: (2/2 + 1/4) / 2 = 0.625
    assert fam["fcr"]["direct"]["estimate"] == task["fcr"]["direct"]["estimate"] == pytest.approx(0.625)
    assert "cluster bootstrap over families" in fam["method"] and fam["bootstrap"] == "family"
    assert "task-level bootstrap" in task["method"] and task["bootstrap"] == "task"
    # family resampling of two families: each resample is (1,1), (1,.25), (.25,1) or (.25,.25)
    lo, hi = fam["fcr"]["direct"]["ci"]
    assert lo == pytest.approx(0.25) and hi == pytest.approx(1.0)
    tlo, thi = task["fcr"]["direct"]["ci"]
    assert tlo is not None and thi is not None and tlo < thi
    with pytest.raises(ValueError):
        _estimate({"a": [1.0], "b": [0.0]}, "bogus")
