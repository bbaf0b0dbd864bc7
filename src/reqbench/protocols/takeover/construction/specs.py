"""Typed field-scoring specs for gold states (FORMAT.md (f.3)), with the released review rules applied.

`typed_spec(value, path)` picks a comparator per gold leaf from its JSON type and path; `finalize_spec`
then applies the rules the release froze after review: an empty container is not scored (SKIP), six
attribute paths whose values are material sequences use ORDERED_LIST instead of SET_F1, and every spec
records that the rules were applied. Scoring (another package) reads these specs; it never guesses types.
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.takeover.annotation.models import STATE_DIMENSIONS

SPEC_STATUS = "RELEASE_REVIEW_RULES_APPLIED"  # our label: rules replayed deterministically, not a new review

_NORMALIZED_EXACT_PATHS = {
    ("scope", "persistence"),
    ("lifecycle_status",),
    ("ambiguity", "[]", "status"),
    ("ambiguity", "[]", "dimension"),
    ("ambiguity", "[]", "field"),
    ("execution", "status"),
}
_UNKNOWN_NULL_PATHS = {
    ("lifecycle_status",),
    ("scope", "persistence"),
    ("scope", "components"),
    ("scope", "contexts"),
}
# Attribute lists whose order is part of the requirement (release review: SET_F1 -> ORDERED_LIST).
ORDERED_LIST_PATHS = frozenset(
    {
        "attributes.approved_remaining_script",
        "attributes.assigned_chapter_ranges",
        "attributes.assigned_chapter_rounds",
        "attributes.board_chain_order",
        "attributes.demonstration_sequence",
        "attributes.terminal_application_order",
    }
)


def typed_spec(value: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Comparator for one gold value at `path` (FORMAT.md (f.3) typed scoring spec).

    null: SKIP (unknown, unannotated) for lifecycle/scope dimensions, else NULL_EXACT (explicit absence);
    bool BOOLEAN_EXACT; number NUMBER_EXACT; enum-like strings NORMALIZED_EXACT, other strings
    SEMANTIC_FACT; a list holding objects UNORDERED_RECORD_F1 over the union of item keys (each typed by
    its first occurrence); other lists SET_F1; objects RECURSIVE_FIELDS (closed world).
    """
    status = SPEC_STATUS
    if value is None:
        if path in _UNKNOWN_NULL_PATHS:
            return {
                "comparator": "SKIP",
                "score": False,
                "null_semantics": "UNKNOWN_UNANNOTATED",
                "review_status": status,
            }
        return {
            "comparator": "NULL_EXACT",
            "score": True,
            "null_semantics": "EXPLICIT_ABSENT",
            "review_status": status,
        }
    if isinstance(value, bool):
        return {"comparator": "BOOLEAN_EXACT", "score": True, "review_status": status}
    if isinstance(value, int | float):
        return {"comparator": "NUMBER_EXACT", "score": True, "review_status": status}
    if isinstance(value, str):
        comparator = "NORMALIZED_EXACT" if path in _NORMALIZED_EXACT_PATHS else "SEMANTIC_FACT"
        return {"comparator": comparator, "score": True, "review_status": status}
    if isinstance(value, list):
        records = [item for item in value if isinstance(item, dict)]
        if not records:
            return {"comparator": "SET_F1", "score": True, "review_status": status}
        keys = sorted({str(k) for item in records for k in item})
        spec = {
            "comparator": "UNORDERED_RECORD_F1",
            "score": True,
            "item_fields": {
                k: typed_spec(next(r[k] for r in records if k in r), (*path, "[]", k)) for k in keys
            },
            "matching_policy": "MAX_WEIGHT_ONE_TO_ONE",
            "review_status": status,
        }
        if path == ("ambiguity",):
            spec["matching_key_fields"] = ["dimension", "description"]
        return spec
    if isinstance(value, dict):
        return {
            "comparator": "RECURSIVE_FIELDS",
            "score": True,
            "closed_world": True,
            "fields": {str(k): typed_spec(v, (*path, str(k))) for k, v in value.items()},
            "review_status": status,
        }
    return {"comparator": "NORMALIZED_EXACT", "score": True, "review_status": status}


def finalize_spec(spec: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """Apply the release review rules in place (empty container -> SKIP; listed sequences -> ORDERED_LIST).

    Paths here join field names without list markers, as the release did.
    """
    children_key = {"RECURSIVE_FIELDS": "fields", "UNORDERED_RECORD_F1": "item_fields"}.get(
        spec["comparator"]
    )
    if children_key is not None and not spec.get(children_key):
        spec["comparator"], spec["score"] = "SKIP", False
    if spec["comparator"] == "SET_F1" and ".".join(path) in ORDERED_LIST_PATHS:
        spec["comparator"] = "ORDERED_LIST"
    for key in ("fields", "item_fields"):
        for name, child in (spec.get(key) or {}).items():
            finalize_spec(child, (*path, str(name)))
    return spec


def state_scoring_specs(states: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Final specs for each requirement's semantic state, one per dimension."""
    return {
        rid: {d: finalize_spec(typed_spec(state.get(d), (d,)), (d,)) for d in STATE_DIMENSIONS}
        for rid, state in states.items()
    }
