"""Oracle inputs (ReqMemBench D.2): neutral references, the restricted projection, and CLARIFY gold."""

import json

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.protocols.takeover.phase_a.response import check_response
from reqbench.protocols.takeover.run import oracle
from reqbench.protocols.takeover.run.context import SuiteContext

EXAMPLE = bundled_suite("takeover")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> SuiteContext:
    return SuiteContext.load(EXAMPLE, tmp_path_factory.mktemp("cache"))


def test_oracle_pre_state_uses_neutral_refs_and_the_gold_pre_state(ctx: SuiteContext):
    pre = oracle.oracle_pre_state(ctx.instances("DOCKSIDE_T003"))  # the deferred annual discount
    assert [p["requirement_ref"] for p in pre] == ["req_01"]
    assert pre[0]["pre_task_state"]["lifecycle_status"] == "DEFERRED"
    assert pre[0]["pre_task_state"]["attributes"]["annual_prepay_discount_percent"] == 10
    assert "REQ_" not in json.dumps(pre)


def test_requirement_introduced_by_the_request_has_no_pre_state(ctx: SuiteContext):
    # T005 modifies the plan pricing and introduces proration: only the pricing has a pre-request state
    pre = oracle.oracle_pre_state(ctx.instances("DOCKSIDE_T005"))
    assert [p["requirement_summary"] for p in pre] == ["Membership plans and monthly prices"]


def test_restricted_projection_keeps_only_ref_summary_and_final_state(ctx: SuiteContext):
    projection = oracle.gold_projection(ctx.instances("DOCKSIDE_T004"))  # CSV: delimiter, columns, header removed
    assert projection is not None and [set(p) for p in projection] == [{"requirement_ref", "requirement_summary", "state"}]
    attrs = projection[0]["state"]["attributes"]
    assert attrs["delimiter"] == ";" and "header_note" not in attrs
    text = json.dumps(projection)
    assert "removed_attribute_keys" not in text and "change_type" not in text and "decision" not in text


def test_gold_clarify_target_has_no_projection(ctx: SuiteContext):
    assert oracle.gold_decision(ctx.instances("DOCKSIDE_T005")) == "CLARIFY"
    assert oracle.gold_projection(ctx.instances("DOCKSIDE_T005")) is None


@pytest.mark.parametrize("target,decision", [("DOCKSIDE_T003", "ACT"), ("DOCKSIDE_T005", "CLARIFY")])
def test_gold_oracle_pre_response_is_a_valid_contract_response(ctx: SuiteContext, target: str, decision: str):
    response = oracle.oracle_pre_gold_response(ctx.instances(target))
    check = check_response(response, [])  # Oracle Pre-State: empty history
    assert check.problems == [] and check.frozen is not None
    assert response["decision"] == decision
