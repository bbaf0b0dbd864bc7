from decimal import Decimal

import pytest

from billflow.errors import BillingError, InvalidState
from billflow.models import InvoiceStatus


def test_total_includes_tax(issued):
    assert issued.total == Decimal("120.00")


def test_full_payment_marks_paid_and_notifies(app, issued):
    app.invoices.pay(issued.id, Decimal("120.00"))
    assert issued.status is InvoiceStatus.PAID
    assert [m.subject for m in app.outbox.messages][-1].startswith("Payment received")


def test_overpayment_is_rejected(app, issued):
    with pytest.raises(BillingError):
        app.invoices.pay(issued.id, Decimal("500"))


def test_void_paid_invoice_is_rejected(app, issued):
    app.invoices.pay(issued.id, Decimal("120.00"))
    with pytest.raises(InvalidState):
        app.invoices.void(issued.id)


def test_events_are_audited(app, issued):
    assert [e["event"] for e in app.audit.for_invoice(issued.id)] == ["invoice.issued"]
