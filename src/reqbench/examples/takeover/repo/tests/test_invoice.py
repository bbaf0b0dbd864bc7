from datetime import date
from decimal import Decimal

import pytest

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.plans import monthly_price


def test_fixed_desk_invoice_totals():
    inv = monthly_invoice(Member("Ada", "fixed_desk"), date(2026, 3, 1), InvoiceNumberer())
    assert inv.net == Decimal("250.00")
    assert inv.total == inv.net + inv.vat


def test_unknown_plan_is_rejected():
    with pytest.raises(ValueError):
        monthly_price("penthouse")


def test_numbers_restart_each_year():
    n = InvoiceNumberer()
    assert n.next_number(2025) == "INV-2025-0001"
    assert n.next_number(2025) == "INV-2025-0002"
    assert n.next_number(2026) == "INV-2026-0001"
