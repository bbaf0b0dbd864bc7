"""Target: VAT goes from 20 % to 21 % on every invoice."""
from datetime import date
from decimal import Decimal

from billing.export import export_csv
from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.tax import vat_for


def test_vat_helper_uses_21_percent():
    assert vat_for(Decimal("100.00")) == Decimal("21.00")


def test_invoice_totals_use_21_percent():
    inv = monthly_invoice(Member("Ada", "hot_desk"), date(2026, 5, 1), InvoiceNumberer())
    assert inv.vat == Decimal("31.50")
    assert inv.total == Decimal("181.50")


def test_export_shows_new_vat():
    inv = monthly_invoice(Member("Ada", "fixed_desk"), date(2026, 5, 1), InvoiceNumberer())
    assert "52.50" in export_csv([inv])
