"""State comparison of matched requirements (ReqMemBench C.1), shared by RQ2 and RQ3.

Attributes are compared field by field: fields align first by equal full path, the remaining ones by
``SAME_STATE_VARIABLE`` labels of the field-identity judge and a stable maximum-cardinality matching
(field identity never depends on value agreement). Then

    a_r = 2 · Σ_{(i,j) ∈ M_r} v_ij / (|F̂_r| + |F_r|)                            (eq. 3)

The gold spec decides which fields apply: its leaf paths, minus SKIP / score=false paths and their
descendants. Predicted fields are the leaf paths of the predicted attributes, with the same exclusions;
a non-excluded nested empty object is one predicted field. Empty gold attributes give no gold field,
so predicted fields against them give 0, and no field on either side gives N/A. A matched pair whose
value comparison is N/A (mutually empty collections) leaves both denominators.

The other four dimensions use their own comparators; a requirement's state score is the mean over its
applicable dimensions (eq. 4) and is N/A when none applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reqbench.protocols.takeover.judging import FieldCandidate, JudgeSession, field_identity_request
from reqbench.protocols.takeover.judging import text_request as build_text_request
from reqbench.protocols.takeover.judging.requests import label_of
from reqbench.protocols.takeover.phase_a.response import STATE_DIMENSIONS
from reqbench.protocols.takeover.scoring.comparators import (
    MISSING,
    Comparator,
    FactBook,
    Spec,
    compare,
    parse_spec,
)
from reqbench.protocols.takeover.scoring.matching import ordered_matching

_FULL = 1.0 - 1e-9


@dataclass(frozen=True)
class AttrField:
    path: tuple[str, ...]
    value: Any
    spec: Spec | None = None

    @property
    def ref(self) -> str:
        return "attributes." + ".".join(self.path)


def gold_attribute_fields(spec: Spec, gold: Any) -> list[AttrField]:
    """Applicable gold attribute fields (leaf paths of the spec, exclusions removed)."""
    out: list[AttrField] = []

    def walk(s: Spec, value: Any, path: tuple[str, ...]) -> None:
        for key, child in s.fields.items():
            if child.excluded:
                continue
            v = value.get(key) if isinstance(value, Mapping) else None
            if child.comparator is Comparator.RECURSIVE_FIELDS:
                walk(child, v, (*path, key))
            else:
                out.append(AttrField((*path, key), v, child))

    if not spec.excluded and spec.comparator is Comparator.RECURSIVE_FIELDS:
        walk(spec, gold, ())
    return out


def predicted_attribute_fields(pred: Any, spec: Spec) -> list[AttrField]:
    """Predicted attribute fields (leaf paths; gold-excluded paths and descendants removed)."""
    out: list[AttrField] = []

    def walk(value: Mapping[str, Any], s: Spec | None, path: tuple[str, ...]) -> None:
        for key, v in value.items():
            child = s.fields.get(key) if s is not None else None
            if child is not None and child.excluded:
                continue
            nested = child if child is not None and child.comparator is Comparator.RECURSIVE_FIELDS else None
            if isinstance(v, Mapping) and v and (child is None or nested is not None):
                walk(v, nested, (*path, key))
            else:
                out.append(AttrField((*path, key), v))

    if isinstance(pred, Mapping):
        # Top level: empty gold attributes are SKIP, yet predicted fields against them still count.
        walk(pred, spec if spec.comparator is Comparator.RECURSIVE_FIELDS else None, ())
    return out


@dataclass
class StatePair:
    """One matched (prediction, gold) requirement and its state comparison."""

    pred_ref: str
    gold_id: str
    summary: str
    pred_state: Mapping[str, Any]
    gold_state: Mapping[str, Any]
    specs: dict[str, Spec]
    pred_fields: list[AttrField] = field(default_factory=list)
    gold_fields: list[AttrField] = field(default_factory=list)
    field_matches: list[tuple[int, int]] = field(default_factory=list)
    dimension_scores: dict[str, float | None] = field(default_factory=dict)

    @property
    def attribute_score(self) -> float | None:
        return self.dimension_scores.get("attributes")

    @property
    def state_score(self) -> float | None:
        """s_r = (1/|D_r|) Σ_{d ∈ D_r} s_rd over the applicable dimensions D_r (eq. 4, C.1); None when
        no dimension applies (such a state adds 0 to the Post-State numerator and is never exact)."""
        vals = [v for v in self.dimension_scores.values() if v is not None]
        return sum(vals) / len(vals) if vals else None

    @property
    def exact(self) -> bool:
        """Every applicable dimension fully correct (N/A states are not exact)."""
        vals = [v for v in self.dimension_scores.values() if v is not None]
        return bool(vals) and all(v >= _FULL for v in vals)


def make_pair(pred_ref: str, gold_id: str, summary: str, pred_state: Mapping[str, Any],
              gold_state: Mapping[str, Any], raw_specs: Mapping[str, Any], file: str | None) -> StatePair:
    specs = {dim: parse_spec(raw_specs.get(dim), f"{gold_id}.{dim}", file) for dim in STATE_DIMENSIONS}
    pair = StatePair(pred_ref, gold_id, summary, pred_state, gold_state, specs)
    pair.gold_fields = gold_attribute_fields(specs["attributes"], gold_state.get("attributes"))
    pair.pred_fields = predicted_attribute_fields(pred_state.get("attributes"), specs["attributes"])
    gold_index = {f.path: j for j, f in enumerate(pair.gold_fields)}
    pair.field_matches = [(i, gold_index[f.path]) for i, f in enumerate(pair.pred_fields)
                          if f.path in gold_index]
    return pair


def _remaining(pair: StatePair) -> tuple[list[int], list[int]]:
    used_p = {i for i, _ in pair.field_matches}
    used_g = {j for _, j in pair.field_matches}
    return ([i for i in range(len(pair.pred_fields)) if i not in used_p],
            [j for j in range(len(pair.gold_fields)) if j not in used_g])


def align_fields(pairs: Sequence[StatePair], session: JudgeSession) -> None:
    """Send fields left after exact-path alignment to the field-identity judge; extend matches."""
    cands: list[FieldCandidate] = []
    for k, pair in enumerate(pairs):
        rp, rg = _remaining(pair)
        for i in rp:
            for j in rg:
                pf, gf = pair.pred_fields[i], pair.gold_fields[j]
                cands.append(FieldCandidate(f"m{k}.p{i}.g{j}", f"{pair.pred_ref}:{pf.ref}",
                                            f"{pair.gold_id}:{gf.ref}", pf.value, gf.value, pair.summary))
    if not cands:
        return
    request = field_identity_request(cands)
    labels = session.ask(request)
    for k, pair in enumerate(pairs):
        rp, rg = _remaining(pair)
        edges = [(a, b) for a, i in enumerate(rp) for b, j in enumerate(rg)
                 if label_of(request, labels, f"m{k}.p{i}.g{j}", "relation") == "SAME_STATE_VARIABLE"]
        for a, b in ordered_matching(len(rp), len(rg), edges).items():
            pair.field_matches.append((rp[a], rg[b]))


def attribute_score(pair: StatePair, facts: FactBook) -> float | None:
    """a_r of one matched requirement (eq. 3, C.1).

    Numerator: 2 · Σ v_ij over aligned field pairs (exact path first, then SAME_STATE_VARIABLE),
    v_ij the gold field's comparator on the predicted value. Denominator: |F̂_r| + |F_r|, the
    applicable predicted and gold attribute fields, so unmatched extra fields and missing fields both
    cost. A pair whose comparison is N/A (mutually empty collections) leaves both counts. N/A (None)
    when no field applies on either side; predicted fields against empty gold attributes give 0.
    In RQ3 this is the attributes dimension score s_r,attributes."""
    n_pred, n_gold, total = len(pair.pred_fields), len(pair.gold_fields), 0.0
    for i, j in pair.field_matches:
        gf = pair.gold_fields[j]
        assert gf.spec is not None
        v = compare(gf.spec, pair.pred_fields[i].value, gf.value, facts, pair.gold_fields[j].ref)
        if v is None:
            n_pred -= 1
            n_gold -= 1
        else:
            total += v
    return 2 * total / (n_pred + n_gold) if n_pred + n_gold else None


def score_dimensions(pair: StatePair, facts: FactBook) -> None:
    out: dict[str, float | None] = {"attributes": attribute_score(pair, facts)}
    for dim in STATE_DIMENSIONS[1:]:
        out[dim] = compare(pair.specs[dim], pair.pred_state.get(dim, MISSING), pair.gold_state.get(dim),
                           facts, dim)
    pair.dimension_scores = out


def score_pairs(pairs: Sequence[StatePair], session: JudgeSession) -> None:
    """Field alignment, then two scoring passes around one text-equivalence request."""
    align_fields(pairs, session)
    collect = FactBook()
    for pair in pairs:
        score_dimensions(pair, collect)
    labels: dict[str, str] = {}
    if collect.facts:
        labels = session.ask(build_text_request(collect.facts))
    book = FactBook(labels=labels)
    for pair in pairs:
        score_dimensions(pair, book)
