"""Target: the annual prepay discount is back, at 15 %, on the plan price only."""
from datetime import date
from decimal import Decimal

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer


def test_prepaid_fixed_desk_gets_15_percent_off():
    inv = monthly_invoice(Member("Di", "fixed_desk", prepaid_annual=True), date(2026, 7, 1),
                          InvoiceNumberer())
    assert inv.net == Decimal("212.50")


def test_discount_does_not_apply_to_meeting_room_overage():
    inv = monthly_invoice(Member("Di", "hot_desk", prepaid_annual=True), date(2026, 7, 1),
                          InvoiceNumberer(), room_hours=5)
    assert inv.net == Decimal("163.50")


def test_monthly_payers_pay_list_price():
    inv = monthly_invoice(Member("Di", "hot_desk"), date(2026, 7, 1), InvoiceNumberer())
    assert inv.net == Decimal("150.00")
