"""Membership plans and their monthly list prices (EUR, net of VAT)."""

from decimal import Decimal

CURRENCY = "EUR"

PLAN_PRICES: dict[str, Decimal] = {
    "hot_desk": Decimal("150.00"),
    "fixed_desk": Decimal("250.00"),
    "private_office": Decimal("600.00"),
}


def monthly_price(plan: str) -> Decimal:
    """Monthly list price of a plan; unknown plans are an error, not a zero."""
    try:
        return PLAN_PRICES[plan]
    except KeyError:
        raise ValueError(f"unknown plan: {plan}") from None
