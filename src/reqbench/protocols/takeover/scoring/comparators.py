"""Field comparators (ReqMemBench Table 11, C.1), driven by the typed scoring specs of the gold.

`compare(spec, pred, gold, facts, path)` returns a value score in [0, 1], or ``None`` when the item
is not applicable (excluded by SKIP / score=false, or mutually empty collections) — ``None`` never
counts as full credit. A key missing from the prediction is `MISSING`, which differs from an
explicit ``null``. Missing or comparator-incompatible values score 0 unless the item is excluded.

SEMANTIC_FACT comparisons go through a `FactBook`: scoring runs twice, first collecting the facts to
send to the text-equivalence judge (every fact scores 0 in that pass), then with the judge's labels.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import canonical_json, sha256_json
from reqbench.protocols.takeover.scoring.matching import max_credit_assignment


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A field absent from the prediction (omission), as opposed to an explicit null."""


class Comparator(StrEnum):
    NULL_EXACT = "NULL_EXACT"
    """Requires an explicit null; omission scores 0."""
    BOOLEAN_EXACT = "BOOLEAN_EXACT"
    """Requires a boolean of the same value (1 is not true)."""
    NUMBER_EXACT = "NUMBER_EXACT"
    """Requires an equal number (12 == 12.0); booleans are not numbers."""
    NORMALIZED_EXACT = "NORMALIZED_EXACT"
    """Strings: equal after case-folding and collapsing whitespace; other values: equal canonical JSON."""
    SEMANTIC_FACT = "SEMANTIC_FACT"
    """Text: 1 only when the text-equivalence judge says EQUIVALENT (UNCERTAIN scores 0)."""
    SET_F1 = "SET_F1"
    """F1 over normalised unique elements; both empty is N/A."""
    ORDERED_LIST = "ORDERED_LIST"
    """Longest-common-subsequence F1 over normalised elements, order and repetitions kept; both empty N/A."""
    RECURSIVE_FIELDS = "RECURSIVE_FIELDS"
    """Mean over applicable child fields; under closed world each extra field adds a 0-score item."""
    UNORDERED_RECORD_F1 = "UNORDERED_RECORD_F1"
    """Records: maximum-total-credit one-to-one matching, then soft F1 = 2·Σcredit / (|pred| + |gold|).
    With key fields (KEYED records) a pair earns credit only when every key field scores 1."""
    SKIP = "SKIP"
    """Excluded; never awards credit (same as score=false)."""


@dataclass(frozen=True)
class Spec:
    """A typed scoring spec (FORMAT.md f.3) for one value."""

    comparator: Comparator
    score: bool = True
    closed_world: bool = True
    fields: Mapping[str, Spec] = field(default_factory=dict)
    item_fields: Mapping[str, Spec] = field(default_factory=dict)
    key_fields: tuple[str, ...] = ()

    @property
    def excluded(self) -> bool:
        return self.comparator is Comparator.SKIP or not self.score


def parse_spec(raw: Any, where: str, file: str | None = None) -> Spec:
    """Parse a spec dict; `InputError` naming the path for an unknown comparator or a bad shape."""
    if not isinstance(raw, Mapping) or "comparator" not in raw:
        raise InputError(f"{where}: scoring spec must be an object with a comparator", file=file)
    try:
        comp = Comparator(raw["comparator"])
    except ValueError as exc:
        raise InputError(f"{where}: unknown comparator {raw['comparator']!r}", file=file) from exc
    fields_raw = raw.get("fields") or {}
    items_raw = raw.get("item_fields") or {}
    return Spec(
        comparator=comp,
        score=bool(raw.get("score", True)),
        closed_world=bool(raw.get("closed_world", True)),
        fields={k: parse_spec(v, f"{where}.{k}", file) for k, v in fields_raw.items()},
        item_fields={k: parse_spec(v, f"{where}[].{k}", file) for k, v in items_raw.items()},
        key_fields=tuple(raw.get("matching_key_fields") or ()),
    )


_WS = re.compile(r"\s+")


def normalize_value(value: Any) -> tuple[str, str]:
    """NORMALIZED_EXACT form: strings case-folded with whitespace collapsed; others canonical JSON.
    The type tag keeps the string "12" apart from the number 12."""
    if isinstance(value, str):
        return ("s", _WS.sub(" ", value.casefold()).strip())
    return ("j", canonical_json(value))


@dataclass
class FactBook:
    """SEMANTIC_FACT lookups: collects facts when `labels` is None, else scores them from labels.

    A fact is keyed by (field path, predicted text, gold text) (ReqMemBench C.1, Table 16: a text
    candidate is one field's comparison). Two fields whose texts are equal stay two facts, so the set of
    facts, and the text-equivalence request built from it, do not depend on the order in which the
    response's fields come (a stored response with sorted keys asks the same request as the live one)."""

    labels: Mapping[str, str] | None = None
    facts: dict[str, tuple[Any, str, str]] = field(default_factory=dict)

    @staticmethod
    def fact_id(path: str, pred: str, gold: str) -> str:
        return "fact_" + sha256_json([path, gold, pred])[:16]

    def score(self, pred: str, gold: str, path: str) -> float:
        fid = self.fact_id(path, pred, gold)
        self.facts[fid] = (pred, gold, path)
        if self.labels is None:
            return 0.0
        return 1.0 if self.labels.get(fid) == "EQUIVALENT" else 0.0


def _lcs(a: list[Any], b: list[Any]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def compare(spec: Spec, pred: Any, gold: Any, facts: FactBook, path: str) -> float | None:
    """Score `pred` against `gold` under `spec` (see `Comparator` for each rule)."""
    if spec.excluded:
        return None
    comp = spec.comparator
    if comp is Comparator.RECURSIVE_FIELDS:
        return _recursive(spec.fields, spec.closed_world, pred, gold, facts, path)
    if comp is Comparator.UNORDERED_RECORD_F1:
        return _records(spec, pred, gold, facts, path)
    if comp in (Comparator.SET_F1, Comparator.ORDERED_LIST):
        g = gold if isinstance(gold, list) else []
        if pred is MISSING or not isinstance(pred, list):
            return 0.0
        if not pred and not g:
            return None
        if comp is Comparator.SET_F1:
            ps = {normalize_value(v) for v in pred}
            gs = {normalize_value(v) for v in g}
            return 2 * len(ps & gs) / (len(ps) + len(gs))
        lcs = _lcs([normalize_value(v) for v in pred], [normalize_value(v) for v in g])
        return 2 * lcs / (len(pred) + len(g))
    if pred is MISSING:
        return 0.0
    if comp is Comparator.NULL_EXACT:
        return 1.0 if pred is None else 0.0
    if comp is Comparator.BOOLEAN_EXACT:
        return 1.0 if isinstance(pred, bool) and pred == gold else 0.0
    if comp is Comparator.NUMBER_EXACT:
        ok = isinstance(pred, int | float) and not isinstance(pred, bool) and pred == gold
        return 1.0 if ok else 0.0
    if comp is Comparator.SEMANTIC_FACT and isinstance(gold, str):
        return facts.score(pred, gold, path) if isinstance(pred, str) else 0.0
    return 1.0 if normalize_value(pred) == normalize_value(gold) else 0.0


def _recursive(fields: Mapping[str, Spec], closed_world: bool, pred: Any, gold: Any, facts: FactBook,
               path: str) -> float | None:
    """RECURSIVE_FIELDS: mean over applicable children, each closed-world extra adds a 0 item."""
    g = gold if isinstance(gold, Mapping) else {}
    if not isinstance(pred, Mapping):
        return 0.0
    total, count = 0.0, 0
    for key, child in fields.items():
        s = compare(child, pred.get(key, MISSING), g.get(key), facts, f"{path}.{key}")
        if s is not None:
            total += s
            count += 1
    if closed_world:
        count += sum(1 for key in pred if key not in fields)
    return total / count if count else None


def record_credit(spec: Spec, pred: Any, gold: Any, facts: FactBook, path: str) -> float:
    """Credit of one predicted record against one gold record (0 when a key field differs)."""
    for key in spec.key_fields:
        kspec = spec.item_fields.get(key)
        if kspec is None or kspec.excluded:
            continue
        pv = pred.get(key, MISSING) if isinstance(pred, Mapping) else MISSING
        gv = gold.get(key) if isinstance(gold, Mapping) else None
        if compare(kspec, pv, gv, facts, f"{path}.{key}") != 1.0:
            return 0.0
    return _recursive(spec.item_fields, True, pred, gold, facts, path) or 0.0


def _records(spec: Spec, pred: Any, gold: Any, facts: FactBook, path: str) -> float | None:
    g = gold if isinstance(gold, list) else []
    if pred is MISSING or not isinstance(pred, list):
        return 0.0
    if not pred and not g:
        return None
    credit = [[record_credit(spec, p, q, facts, f"{path}[{j}]") for j, q in enumerate(g)] for p in pred]
    pairs = max_credit_assignment(credit)
    return 2 * sum(credit[i][j] for i, j in pairs) / (len(pred) + len(g))
