"""Matchings: maximum cardinality, the paper's RQ1 weights, and deterministic documented tie-breaks."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import networkx as nx

from reqbench.protocols.takeover.scoring.matching import (
    max_credit_assignment,
    ordered_matching,
    rq1_edge_weight,
    rq1_matching,
    summary_tokens,
)


def test_ordered_matching_reroutes_an_earlier_choice_to_reach_maximum_cardinality() -> None:
    # p0 could take g0 or g1, p1 only g0: the augmenting path moves p0 to g1.
    assert ordered_matching(2, 2, [(0, 0), (0, 1), (1, 0)]) == {0: 1, 1: 0}


def test_ordered_matching_breaks_ties_by_prediction_then_gold_order() -> None:
    # Complete 2x2 graph, two maximum matchings. The procedure: p0 takes g0 (first gold); p1 tries g0
    # first (gold order) and finds the augmenting path p1-g0, p0-g1 before looking at the free g1.
    # Edge input order does not matter.
    assert ordered_matching(2, 2, [(1, 1), (1, 0), (0, 1), (0, 0)]) == {0: 1, 1: 0}
    assert ordered_matching(2, 2, [(0, 0), (0, 1), (1, 0), (1, 1)]) == {0: 1, 1: 0}
    # Without a competing edge each prediction keeps its first gold candidate.
    assert ordered_matching(2, 2, [(0, 0), (0, 1), (1, 1)]) == {0: 0, 1: 1}
    # One gold item, two candidates: the first prediction keeps it.
    assert ordered_matching(2, 1, [(1, 0), (0, 0)]) == {0: 0}


def test_ordered_matching_has_maximum_cardinality_on_random_graphs() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n, m = rng.randint(0, 6), rng.randint(0, 6)
        edges = [(i, j) for i in range(n) for j in range(m) if rng.random() < 0.35]
        got = ordered_matching(n, m, edges)
        assert len(set(got.values())) == len(got) and all((i, j) in edges for i, j in got.items())
        g = nx.Graph()
        g.add_nodes_from(("p", i) for i in range(n))
        g.add_nodes_from(("g", j) for j in range(m))
        g.add_edges_from((("p", i), ("g", j)) for i, j in edges)
        top = [("p", i) for i in range(n)]
        assert len(got) == len(nx.bipartite.maximum_matching(g, top_nodes=top)) // 2


def test_rq1_edge_weight_follows_the_paper_formula() -> None:
    # Js: tokens {model, currency} vs {model, currency, and, price, base} -> 2/5.
    # Je: {1,2} vs {2,3,4} -> 1/4. Ce: 1/3.
    w = rq1_edge_weight("Model currency", "Model currency and price base", [1, "2"], [2, 3, 4])
    assert w == 10**6 * 400000 + 10**3 * 250 + 333
    assert summary_tokens("Site-list, v2!") == {"site", "list", "v2"}
    assert rq1_edge_weight("", "", [], []) == 0


def test_rq1_matching_prefers_cardinality_over_weight() -> None:
    # p0-g0 is the heaviest edge but taking it leaves p1 unmatched; cardinality 2 wins.
    assert rq1_matching(2, 2, [(0, 0, 100), (0, 1, 1), (1, 0, 1)]) == {0: 1, 1: 0}


def test_rq1_matching_maximises_weight_among_maximum_matchings() -> None:
    rng = random.Random(3)
    for _ in range(150):
        n, m = rng.randint(1, 4), rng.randint(1, 4)
        edges = [
            (i, j, rng.choice([1, 2, 5, 10**6])) for i in range(n) for j in range(m) if rng.random() < 0.6
        ]
        got = rq1_matching(n, m, edges)
        w = {(i, j): x for i, j, x in edges}
        best = (0, 0)
        for k in range(min(n, m), 0, -1):
            for ps in itertools.permutations(range(n), k):
                for gs in itertools.combinations(range(m), k):
                    pairs = list(zip(ps, gs, strict=True))
                    if all(p in w for p in pairs):
                        best = max(best, (k, sum(w[p] for p in pairs)))
        assert (len(got), sum(w[p] for p in got.items())) == best


_TIE_SCRIPT = """
from reqbench.protocols.takeover.scoring.matching import rq1_matching
print(rq1_matching(3, 3, [(i, j, 7) for i in range(3) for j in range(3)]))
"""


def test_rq1_exact_ties_resolve_identically_across_runs_and_hash_seeds() -> None:
    # Six maximum matchings of equal weight: the choice must not depend on the process.
    outs = {
        subprocess.run(
            [sys.executable, "-c", _TIE_SCRIPT],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outs) == 1
    got = eval(outs.pop())  # noqa: S307 - our own printed dict
    assert sorted(got) == [0, 1, 2] and sorted(got.values()) == [0, 1, 2]
    assert got == rq1_matching(3, 3, [(i, j, 7) for i in range(3) for j in range(3)])
    # Pinned: the blossom algorithm over the documented insertion order. A change here (e.g. after a
    # networkx upgrade) changes which pairs RQ1 compares in exact ties and must be reviewed.
    assert got == {0: 2, 1: 1, 2: 0}
    assert rq1_matching(2, 3, [(0, 0, 5), (0, 1, 5), (1, 0, 5), (1, 1, 5), (1, 2, 5)]) == {0: 1, 1: 2}


def test_max_credit_assignment_maximises_credit_and_ties_prefer_lower_indices() -> None:
    assert max_credit_assignment([[0.5, 1.0], [1.0, 0.0]]) == [(0, 1), (1, 0)]
    assert max_credit_assignment([[1.0, 1.0], [1.0, 1.0]]) == [(0, 0), (1, 1)]
    assert max_credit_assignment([[0.0, 0.0], [0.0, 0.6]]) == [(1, 1)]
    assert max_credit_assignment([]) == [] and max_credit_assignment([[]]) == []
