"""Money helpers: every amount is a Decimal rounded half-up to cents."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_cents(value: Decimal | int | str) -> Decimal:
    """Round an amount half-up to two decimals."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(value: Decimal, currency: str) -> str:
    return f"{to_cents(value):,.2f} {currency}"


def is_positive(value: Decimal) -> bool:
    return to_cents(value) > 0
