"""Interval helpers: exact binomial against known values, bootstraps reproducible and cluster-level."""

from __future__ import annotations

import math

import pytest

from reqbench.core.stats.intervals import (
    NOT_COMPUTED,
    bootstrap_mean,
    cluster_bootstrap,
    cluster_bootstrap_mean,
    estimates_only,
    exact_binomial,
)


def test_exact_binomial_matches_clopper_pearson_reference_values() -> None:
    iv = exact_binomial(5, 10)
    assert iv.estimate == 0.5
    assert iv.lo == pytest.approx(0.187086, abs=1e-5) and iv.hi == pytest.approx(0.812914, abs=1e-5)
    zero = exact_binomial(0, 10)
    assert zero.lo == 0.0 and zero.hi == pytest.approx(0.308497, abs=1e-5)
    assert exact_binomial(10, 10).hi == 1.0
    assert math.isnan(exact_binomial(0, 0).estimate)
    with pytest.raises(ValueError):
        exact_binomial(3, 2)


def test_cluster_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    values = [0.2, 0.5, 0.9, 0.4, 0.7]
    a, b = cluster_bootstrap_mean(values), cluster_bootstrap_mean(values)
    assert a == b
    assert a.estimate == pytest.approx(0.54)
    assert 0.2 <= a.lo < a.estimate < a.hi <= 0.9
    assert cluster_bootstrap_mean(values, seed=1) != a


def test_single_cluster_gives_a_degenerate_interval_not_false_precision_from_rows() -> None:
    # 100 executions in one family are one cluster: the interval cannot shrink below the family's rate.
    iv = cluster_bootstrap_mean([0.3])
    assert (iv.estimate, iv.lo, iv.hi) == (0.3, 0.3, 0.3)
    assert math.isnan(cluster_bootstrap_mean([]).estimate)


def test_generic_cluster_bootstrap_drops_undefined_resamples() -> None:
    clusters = [(1, 2), (0, 0), (2, 2)]

    def macro(cs):  # type: ignore[no-untyped-def]
        rates = [p / e for p, e in cs if e]
        return sum(rates) / len(rates) if rates else math.nan

    iv = cluster_bootstrap(clusters, macro, n_boot=500)
    assert iv.estimate == pytest.approx(0.75)
    assert 0.5 <= iv.lo <= iv.hi <= 1.0


def test_bootstrap_mean_names_its_method() -> None:
    iv = bootstrap_mean([1.0, 0.0, 1.0, 1.0])
    assert iv.estimate == 0.75 and "bootstrap of 4 values" in iv.method


def test_estimates_only_gives_the_same_estimates_without_intervals() -> None:
    rates = [0.1, 0.2, 0.7]  # fsum: 1.0 exactly, so the mean is 1/3 to the last bit
    full = cluster_bootstrap_mean(rates)
    with estimates_only():
        only = cluster_bootstrap_mean(rates)
        binomial = exact_binomial(3, 4)
        clustered = cluster_bootstrap([[1, 0], [1, 1]], lambda cs: sum(map(sum, cs)) / sum(map(len, cs)))
        mean = bootstrap_mean([2.0, 4.0])
    assert only.estimate == full.estimate == 1 / 3
    assert not math.isnan(full.lo) and full.lo <= full.estimate <= full.hi
    assert (binomial.estimate, clustered.estimate, mean.estimate) == (0.75, 0.75, 3.0)
    for iv in (only, binomial, clustered, mean):
        assert math.isnan(iv.lo) and math.isnan(iv.hi) and iv.method == NOT_COMPUTED
    assert cluster_bootstrap_mean(rates).method != NOT_COMPUTED  # only inside the block


def test_estimates_only_imports_neither_numpy_nor_scipy() -> None:
    import json
    import subprocess
    import sys

    code = ("import json, sys\nfrom reqbench.core.stats.intervals import *\nwith estimates_only():\n"
            "    cluster_bootstrap_mean([0.5, 1.0]); exact_binomial(1, 2); cluster_bootstrap([1, 2], sum)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == []
