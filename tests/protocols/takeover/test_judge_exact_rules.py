"""The exact rules of takeover's five contracts (`judging.exact_rules`), applied by the `exact` judge."""

from __future__ import annotations

from reqbench.core.judges.base import JudgeRequest
from reqbench.core.judges.exact import ExactJudge
from reqbench.protocols.takeover.judging.exact_rules import RULES, normalise
from tests.support.judge_requests import ALIGN, classify_request


def _request(contract: str, items: dict[str, dict], fields: dict[str, list[str]]) -> JudgeRequest:
    return classify_request(contract, items, fields, RULES[contract])




def test_exact_alignment_ignores_case_and_whitespace_but_not_wording() -> None:
    req = _request(
        "requirement_alignment",
        {
            "a": {
                "prediction_summary": "  Model   CURRENCY and price base",
                "gold_summary": "model currency and price base",
            },
            "b": {"prediction_summary": "Model currency", "gold_summary": "Model currency and price base"},
            "c": {
                "prediction_summary": "Currency and price base of the model",
                "gold_summary": "Model currency and price base",
            },
        },
        ALIGN,
    )
    labels = ExactJudge().judge(req).labels
    assert labels == {"a": "SAME_ATOM", "b": "UNRELATED", "c": "UNRELATED"}


def test_exact_field_identity_is_by_exact_path_only() -> None:
    dom = {"relation": ["SAME_STATE_VARIABLE", "DIFFERENT_STATE_VARIABLE", "UNCERTAIN"]}
    req = _request(
        "attribute_field_identity",
        {
            "same": {"prediction_path": "r:attributes.currency", "gold_path": "r:attributes.currency"},
            "case": {"prediction_path": "r:attributes.Currency", "gold_path": "r:attributes.currency"},
        },
        dom,
    )
    assert ExactJudge().judge(req).labels == {
        "same": "SAME_STATE_VARIABLE",
        "case": "DIFFERENT_STATE_VARIABLE",
    }


def test_exact_text_equivalence_needs_equal_normalised_strings() -> None:
    dom = {"relation": ["EQUIVALENT", "NOT_EQUIVALENT", "UNCERTAIN"]}
    req = _request(
        "text_equivalence",
        {
            "f1": {"prediction_text": "Use a SIMPLER\napproach.", "gold_text": "use a simpler approach."},
            "f2": {"prediction_text": "Use a simpler approach", "gold_text": "use a simpler approach."},
            "f3": {"prediction_text": 12, "gold_text": "12"},
        },
        dom,
    )
    assert ExactJudge().judge(req).labels == {
        "f1": "EQUIVALENT",
        "f2": "NOT_EQUIVALENT",
        "f3": "NOT_EQUIVALENT",
    }


def test_exact_question_is_valid_only_when_it_contains_an_acceptable_fact() -> None:
    dom = {
        "issue_relation": ["EQUIVALENT", "NOT_EQUIVALENT", "UNCERTAIN"],
        "question_validity": ["VALID", "INVALID", "UNCERTAIN"],
    }
    fact = "Convert the CAD opex to AUD?"
    req = _request(
        "clarification_semantic",
        {
            "c0": {
                "prediction_missing_information": "currency of opex",
                "gold_missing_information": "Currency of  OPEX",
                "question": "Quick one: convert the cad opex to aud? Thanks",
                "acceptable_question_facts": [fact],
            },
            "c1": {
                "prediction_missing_information": "site list",
                "gold_missing_information": "currency of opex",
                "question": "Which currency?",
                "acceptable_question_facts": [fact],
            },
        },
        dom,
    )
    assert ExactJudge().judge(req).labels == {
        "c0#issue_relation": "EQUIVALENT",
        "c0#question_validity": "VALID",
        "c1#issue_relation": "NOT_EQUIVALENT",
        "c1#question_validity": "INVALID",
    }


def test_normalise_collapses_unicode_whitespace() -> None:
    assert normalise("A\u00a0 b\tC ") == "a b c"


