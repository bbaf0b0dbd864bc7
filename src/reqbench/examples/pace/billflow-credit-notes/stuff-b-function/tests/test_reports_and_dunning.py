from datetime import date, timedelta
from decimal import Decimal

from billflow.api import dispatch
from billflow.customers import CustomerService
from billflow.dunning import DunningRun
from billflow.exports.csv_export import export_invoices
from billflow.reports.aging import aging_report, bucket
from billflow.tax import TAX_RULES, ExemptRule, register_rule, rule_for


def test_aging_buckets(app, issued):
    assert bucket(0) == "current" and bucket(15) == "1-30" and bucket(120) == "90+"
    rows = aging_report(app.store, issued.due_on + timedelta(days=40))
    assert rows == [{"customer_id": issued.customer_id, "current": "0.00", "1-30": "0.00", "31-60": "120.00",
                     "61-90": "0.00", "90+": "0.00", "total": "120.00"}]


def test_dunning_escalates_once_per_level(app, issued):
    run = DunningRun(app.store, app.bus)
    day = issued.due_on + timedelta(days=8)
    assert [r.level for r in run.run([issued], day)] == [1]
    assert run.run([issued], day) == []
    assert [r.fee for r in run.run([issued], issued.due_on + timedelta(days=50))] == [Decimal("15.00")]


def test_tax_rules_registry():
    assert rule_for("de", Decimal("0.2")).decide("DE123").reverse_charge
    assert rule_for("XX", Decimal("0.2")).decide(None).rate == Decimal("0.2")
    register_rule("NO", ExemptRule(Decimal("0")))
    assert "NO" in TAX_RULES


def test_customer_service_validates_and_blocks_deactivation_with_open_invoices(app, issued):
    svc = CustomerService(app.store, app.bus)
    profile = svc.register("Eve", "eve@example.test", country="de", vat_id="DE1")
    assert profile.country == "DE"
    try:
        svc.deactivate(issued.customer_id)
    except Exception as exc:  # noqa: BLE001
        assert "open invoice" in str(exc)
    assert svc.search("eve")[0].email == "eve@example.test"


def test_report_and_export_endpoints(app, issued):
    status, body = dispatch(app, "GET", "/reports/revenue", {"today": date.today().isoformat()})
    assert status == 200 and body["rows"][0]["issued"] == "120.00"
    assert dispatch(app, "GET", "/reports/nope")[0] == 404
    assert export_invoices(app.store).splitlines()[1].startswith(f"{issued.id},")
