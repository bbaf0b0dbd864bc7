"""VAT on invoices, shown as a separate line."""

from decimal import Decimal

from billing.money import round_cents

VAT_RATE = Decimal("0.20")


def vat_for(net: Decimal) -> Decimal:
    return round_cents(net * VAT_RATE)
