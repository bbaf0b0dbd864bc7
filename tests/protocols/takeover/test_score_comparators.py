"""Table 11 comparators on hand-computed cases, including N/A, omission and type traps."""

from __future__ import annotations

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.scoring.comparators import MISSING, FactBook, compare, parse_spec


def S(comp: str, **kw: object):  # type: ignore[no-untyped-def]
    return parse_spec({"comparator": comp, "score": True, **kw}, "x")


def cmp(spec, pred, gold, labels=None):  # type: ignore[no-untyped-def]
    return compare(spec, pred, gold, FactBook(labels=labels or {}), "x")


def test_null_exact_needs_an_explicit_null() -> None:
    assert cmp(S("NULL_EXACT"), None, None) == 1.0
    assert cmp(S("NULL_EXACT"), MISSING, None) == 0.0
    assert cmp(S("NULL_EXACT"), [], None) == 0.0


def test_boolean_and_number_exact_do_not_confuse_types() -> None:
    assert cmp(S("BOOLEAN_EXACT"), True, True) == 1.0
    assert cmp(S("BOOLEAN_EXACT"), 1, True) == 0.0
    assert cmp(S("BOOLEAN_EXACT"), "true", True) == 0.0
    assert cmp(S("NUMBER_EXACT"), 12.0, 12) == 1.0
    assert cmp(S("NUMBER_EXACT"), True, 1) == 0.0
    assert cmp(S("NUMBER_EXACT"), "12", 12) == 0.0
    assert cmp(S("NUMBER_EXACT"), MISSING, 12) == 0.0


def test_normalized_exact_folds_case_and_whitespace_and_keeps_types_apart() -> None:
    assert cmp(S("NORMALIZED_EXACT"), "  task_LOCAL ", "TASK_LOCAL") == 1.0
    assert cmp(S("NORMALIZED_EXACT"), "Task  Local", "task local") == 1.0
    assert cmp(S("NORMALIZED_EXACT"), "TASKLOCAL", "TASK_LOCAL") == 0.0
    assert cmp(S("NORMALIZED_EXACT"), {"b": 1, "a": 2}, {"a": 2, "b": 1}) == 1.0
    assert cmp(S("NORMALIZED_EXACT"), "2031", 2031) == 0.0


def test_semantic_fact_scores_one_only_for_equivalent() -> None:
    spec = S("SEMANTIC_FACT")
    fid = FactBook.fact_id("x", "AUD model", "model in AUD")
    assert cmp(spec, "AUD model", "model in AUD", {fid: "EQUIVALENT"}) == 1.0
    assert cmp(spec, "AUD model", "model in AUD", {fid: "UNCERTAIN"}) == 0.0
    assert cmp(spec, "AUD model", "model in AUD", {fid: "NOT_EQUIVALENT"}) == 0.0
    assert cmp(spec, 5, "model in AUD", {fid: "EQUIVALENT"}) == 0.0
    book = FactBook()
    assert compare(spec, "AUD model", "model in AUD", book, "attributes.currency") == 0.0
    fid_at = FactBook.fact_id("attributes.currency", "AUD model", "model in AUD")
    assert book.facts == {fid_at: ("AUD model", "model in AUD", "attributes.currency")}


def test_set_f1_over_normalised_unique_elements_and_empty_is_na() -> None:
    spec = S("SET_F1")
    # pred {a, b, c} (duplicate "A" folds), gold {a, b, d}: F1 = 2*2/(3+3)
    assert cmp(spec, ["A", "a", "b", "c"], ["a", "b", "d"]) == pytest.approx(2 / 3)
    assert cmp(spec, [], []) is None
    assert cmp(spec, [], ["a"]) == 0.0
    assert cmp(spec, "a", ["a"]) == 0.0
    assert cmp(spec, MISSING, ["a"]) == 0.0


def test_ordered_list_uses_lcs_f1_with_order_and_repetitions() -> None:
    spec = S("ORDERED_LIST")
    # LCS(a b c a, a c b a) = 3: F1 = 2*3/(4+4)
    assert cmp(spec, ["a", "b", "c", "a"], ["a", "c", "b", "a"]) == pytest.approx(0.75)
    assert cmp(spec, ["b", "a"], ["a", "b"]) == pytest.approx(0.5)
    assert cmp(spec, ["a", "a"], ["a"]) == pytest.approx(2 / 3)
    assert cmp(spec, [], []) is None


def test_recursive_fields_counts_extra_fields_as_zero_items_and_skips_excluded() -> None:
    spec = S(
        "RECURSIVE_FIELDS",
        closed_world=True,
        fields={
            "persistence": {"comparator": "NORMALIZED_EXACT", "score": True},
            "components": {"comparator": "SET_F1", "score": True},
            "contexts": {"comparator": "SKIP", "score": False},
        },
    )
    gold = {"persistence": "TASK_LOCAL", "components": ["APP"], "contexts": None}
    assert cmp(spec, {"persistence": "task_local", "components": ["APP"], "contexts": ["X"]}, gold) == 1.0
    # one extra field: (1 + 1 + 0) / 3
    assert cmp(
        spec, {"persistence": "TASK_LOCAL", "components": ["APP"], "owner": "x"}, gold
    ) == pytest.approx(2 / 3)
    # omission of an applicable child scores 0 for it: (1 + 0) / 2
    assert cmp(spec, {"persistence": "TASK_LOCAL"}, gold) == pytest.approx(0.5)
    assert cmp(spec, "TASK_LOCAL", gold) == 0.0
    only_skipped = S("RECURSIVE_FIELDS", fields={"contexts": {"comparator": "SKIP", "score": False}})
    assert cmp(only_skipped, {"contexts": ["X"]}, {"contexts": None}) is None
    assert cmp(only_skipped, {"contexts": ["X"], "extra": 1}, {"contexts": None}) == 0.0


def _ambiguity_spec():  # type: ignore[no-untyped-def]
    return S(
        "UNORDERED_RECORD_F1",
        matching_key_fields=["dimension", "description"],
        item_fields={
            "status": {"comparator": "NORMALIZED_EXACT", "score": True},
            "dimension": {"comparator": "NORMALIZED_EXACT", "score": True},
            "description": {"comparator": "SEMANTIC_FACT", "score": True},
        },
    )


def test_keyed_records_need_matching_key_fields_then_soft_f1() -> None:
    spec = _ambiguity_spec()
    gold = [
        {"status": "OPEN", "dimension": "VALUE", "description": "site list unresolved"},
        {"status": "OPEN", "dimension": "SCOPE", "description": "which sites"},
    ]
    pred = [
        {"status": "RESOLVED", "dimension": "value", "description": "site list unresolved"},
        {"status": "OPEN", "dimension": "VALUE", "description": "which sites"},
        {"status": "OPEN", "dimension": "SCOPE", "description": "tax"},
    ]
    labels = {
        FactBook.fact_id("x[0].description", "site list unresolved", "site list unresolved"): "EQUIVALENT",
        FactBook.fact_id("x[1].description", "which sites", "which sites"): "EQUIVALENT",
    }
    # Only pred0-gold0 passes both keys (pred1 has the wrong dimension); its credit is 2/3 (status
    # wrong). Soft F1 = 2 * (2/3) / (3 + 2).
    assert cmp(spec, pred, gold, labels) == pytest.approx(2 * (2 / 3) / 5)
    assert cmp(spec, [], []) is None
    assert cmp(spec, None, gold) == 0.0


def test_unordered_records_maximise_total_credit() -> None:
    spec = S(
        "UNORDERED_RECORD_F1",
        item_fields={
            "a": {"comparator": "NUMBER_EXACT", "score": True},
            "b": {"comparator": "NUMBER_EXACT", "score": True},
        },
    )
    gold = [{"a": 1, "b": 2}, {"a": 1, "b": 3}]
    # pred0 fits gold1 fully and gold0 half; pred1 fits gold0 half only: best total 1 + 0.5.
    pred = [{"a": 1, "b": 3}, {"a": 1, "b": 9}]
    assert cmp(spec, pred, gold) == pytest.approx(2 * 1.5 / 4)


def test_skip_and_score_false_never_award_credit() -> None:
    assert cmp(S("SKIP"), "anything", "x") is None
    assert cmp(parse_spec({"comparator": "NUMBER_EXACT", "score": False}, "x"), 1, 1) is None


def test_unknown_comparator_is_an_input_error_naming_the_path() -> None:
    with pytest.raises(InputError, match=r"x\.a: unknown comparator 'FUZZY'"):
        parse_spec({"comparator": "RECURSIVE_FIELDS", "fields": {"a": {"comparator": "FUZZY"}}}, "x")
