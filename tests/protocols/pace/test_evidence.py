"""L1 evidence packages: candidate changes vs labelled base context, explicit connection inventory."""

import tempfile
from pathlib import Path

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.controls import unrelated_patch
from reqbench.protocols.pace.l1.evidence import package_structure_exception
from reqbench.protocols.pace.models import CodePoint
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import BILLFLOW


def _packages(patch: str) -> dict:
    case = load_case(BILLFLOW)
    scorer = Scorer(case)
    with tempfile.TemporaryDirectory() as tmp:
        loc = scorer.localize(patch, Path(tmp) / "t")
        return {p.id: loc.package(p) for p in case.points}


def test_registration_point_carries_the_subscription_edge_and_labels_base_code() -> None:
    pkg = _packages(load_case(BILLFLOW).reference_patch)["CN11"]
    edges = {(c.kind, c.source, c.target, c.origin) for c in pkg.connections}
    assert ("registry", "register_all:available[notify_credited]", "outbox.credit_note_issued", "candidate") in edges
    assert ("registry", "SUBSCRIPTIONS[credit_note.issued]", "notify_credited", "candidate") in edges
    assert any(i.qname == "register_all" for i in pkg.changed) or "billflow/handlers/__init__.py" in pkg.diffs
    text = pkg.render()
    assert "BASE CONTEXT" in text and "earns no credit" in text
    assert all(i.change is None for i in pkg.base_context)


def test_empty_patch_records_an_explicit_empty_inventory() -> None:
    pkg = _packages("")["CN14"]
    assert pkg.changed == [] and pkg.connections == [] and pkg.diffs == {}
    assert pkg.to_dict()["connection_inventory_empty"] is True
    assert "(empty: no edge connects" in pkg.render()


def test_unrelated_edit_reaches_no_point() -> None:
    case = load_case(BILLFLOW)
    patch = unrelated_patch(case, Scorer(case).base)
    assert patch.strip()
    assert all(not p.changed and not p.connections for p in _packages(patch).values())


def test_package_structure_exception_needs_a_candidate_modified_init(tmp_path: Path) -> None:
    point = CodePoint.model_validate({
        "id": "P", "description": "package", "provenance": "explicit", "weight": 1,
        "criteria": [{"criterion_id": "P.c1", "text": "package exists"}],
        "contract": {"strategy": "symbol_exists", "target": "pkg/plugins/__init__.py", "name": "plugins"}})
    (tmp_path / "pkg/plugins").mkdir(parents=True)
    (tmp_path / "pkg/plugins/__init__.py").write_text("")
    assert package_structure_exception(point, ["pkg/plugins/__init__.py"], tmp_path)
    assert not package_structure_exception(point, [], tmp_path)
    wrong = point.model_copy(update={"contract": point.contract.model_copy(update={"name": "other"})})
    assert not package_structure_exception(wrong, ["pkg/plugins/__init__.py"], tmp_path)
