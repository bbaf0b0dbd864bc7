"""One-to-one matchings used by scoring (ReqMemBench C.1). Every matching is deterministic.

* `ordered_matching` — RQ2/RQ3 requirements, attribute fields, clarification blockers and RQ1
  evidence: augmenting-path maximum-cardinality matching in prediction order, trying gold items in
  gold order (Kuhn's algorithm). It is written out here rather than taken from networkx because the
  paper fixes the *procedure* (which of several maximum matchings is chosen decides which pairs are
  compared and so changes scores); networkx's Hopcroft-Karp returns a maximum matching of the same
  size but its choice among equal-size matchings follows its own BFS layering. Tests check the size
  against networkx on random graphs.
* `rq1_matching` — RQ1 requirements: among maximum-cardinality matchings, maximum total integer edge
  weight (`rq1_edge_weight`), computed with networkx's blossom algorithm on a graph whose nodes are
  inserted predictions first then gold items, each in input order, and whose edges are inserted in
  (prediction, gold) input order ("stable node and edge insertion resolves exact ties").
* `max_credit_assignment` — records of UNORDERED_RECORD_F1: maximum total credit (scipy's assignment
  solver); among equal-credit assignments the one with the smallest sum of ``i * n_gold + j`` wins,
  so lower prediction indices pair with lower gold indices ("indices resolve ties").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"\w+")


def ordered_matching(n_pred: int, n_gold: int, edges: Iterable[tuple[int, int]]) -> dict[int, int]:
    """Maximum-cardinality matching {prediction index: gold index} by augmenting paths (Kuhn):
    predictions are processed in order, each tries its gold candidates in gold order and may re-route
    earlier predictions along an augmenting path, even when a later gold candidate is still free."""
    adj: list[list[int]] = [[] for _ in range(n_pred)]
    for i, j in sorted(set(edges)):
        adj[i].append(j)
    gold_owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in adj[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in gold_owner or augment(gold_owner[j], seen):
                gold_owner[j] = i
                return True
        return False

    for i in range(n_pred):
        augment(i, set())
    return {i: j for j, i in sorted(gold_owner.items(), key=lambda kv: kv[1])}


def summary_tokens(text: str) -> set[str]:
    """Case-folded Unicode word-character tokens."""
    return set(_WORD.findall(text.casefold()))


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 when both are empty."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def rq1_edge_weight(pred_summary: str, gold_summary: str, pred_ids: Iterable[object],
                    gold_ids: Iterable[object]) -> int:
    """RQ1 edge weight ``10^6·round(10^6·Js) + 10^3·round(10^3·Je) + round(10^3·Ce)`` (C.1).

    Js: Jaccard of summary tokens; Je: Jaccard of predicted message ids and the union of the gold
    requirement's acceptable ids; Ce: their intersection divided by that gold union (0 if empty).
    Ids are compared as strings.
    """
    js = jaccard(summary_tokens(pred_summary), summary_tokens(gold_summary))
    p = {str(m) for m in pred_ids}
    g = {str(m) for m in gold_ids}
    je = jaccard(p, g)
    ce = len(p & g) / len(g) if g else 0.0
    return 10**6 * round(10**6 * js) + 10**3 * round(10**3 * je) + round(10**3 * ce)


def rq1_matching(n_pred: int, n_gold: int, weighted_edges: Sequence[tuple[int, int, int]]) -> dict[int, int]:
    """Maximum-cardinality, then maximum-weight matching {prediction index: gold index}."""
    import networkx as nx  # imported on use: keeps `reqbench --help` fast

    graph = nx.Graph()
    graph.add_nodes_from(("p", i) for i in range(n_pred))
    graph.add_nodes_from(("g", j) for j in range(n_gold))
    for i, j, w in sorted(weighted_edges, key=lambda e: (e[0], e[1])):
        graph.add_edge(("p", i), ("g", j), weight=w)
    out: dict[int, int] = {}
    for a, b in nx.max_weight_matching(graph, maxcardinality=True, weight="weight"):
        p, g = (a, b) if a[0] == "p" else (b, a)
        out[p[1]] = g[1]
    return dict(sorted(out.items()))


def max_credit_assignment(credit: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs (i, j) with positive credit maximising total credit; ties by indices (module docstring)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    n_pred = len(credit)
    n_gold = len(credit[0]) if n_pred else 0
    if not n_pred or not n_gold:
        return []
    units = [[round(float(c) * 10**6) for c in row] for row in credit]
    scale = min(n_pred, n_gold) * n_pred * n_gold + 1
    weights = np.zeros((n_pred, n_gold), dtype=np.float64)
    for i in range(n_pred):
        for j in range(n_gold):
            if units[i][j] > 0:
                weights[i, j] = units[i][j] * scale - (i * n_gold + j)
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True) if units[i][j] > 0)
