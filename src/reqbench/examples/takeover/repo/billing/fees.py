"""Late fees: 5 % of the invoice total once an invoice is more than 14 days overdue."""

from datetime import date
from decimal import Decimal

from billing.money import round_cents

LATE_FEE_PERCENT = Decimal("5")
GRACE_DAYS = 14


def late_fee(total: Decimal, due: date, today: date) -> Decimal:
    """The fee owed on an unpaid invoice `total` due on `due`, as of `today`."""
    if (today - due).days <= GRACE_DAYS:
        return Decimal("0.00")
    return round_cents(total * LATE_FEE_PERCENT / Decimal(100))
