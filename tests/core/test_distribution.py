"""`core.stats.distribution`: the quartiles of the dataset-statistics tables are the papers' ones."""

from __future__ import annotations

import pytest

from reqbench.core.stats.distribution import shares, spread


def test_quartiles_interpolate_linearly_like_the_papers() -> None:
    # 44 values 1..44: Q1 at position 10.75 (ReqMemBench Table 8 reports 74.25 over 44 projects)
    assert spread(range(1, 45)) == {"count": 44, "mean": 22.5, "min": 1, "Q1": 11.75, "median": 22.5,
                                    "Q3": 33.25, "max": 44}


def test_one_value_is_its_own_quartiles_and_no_value_has_none() -> None:
    assert spread([7]) == {"count": 1, "mean": 7, "min": 7, "Q1": 7, "median": 7, "Q3": 7, "max": 7}
    assert spread([], ("count", "median")) == {"count": 0, "median": None}


def test_an_unknown_column_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown spread column 'p90'"):
        spread([1, 2], ("p90",))


def test_shares_order_by_count_then_label() -> None:
    assert shares({"b": 1, "a": 1, "c": 2}) == {"c": {"count": 2, "share": 0.5}, "a": {"count": 1, "share": 0.25},
                                               "b": {"count": 1, "share": 0.25}}
    assert shares({}) == {}
