from datetime import date
from decimal import Decimal

from billing.fees import late_fee


def test_no_fee_within_grace_period():
    assert late_fee(Decimal("180.00"), date(2026, 4, 1), date(2026, 4, 15)) == Decimal("0.00")


def test_fee_after_grace_period():
    assert late_fee(Decimal("180.00"), date(2026, 4, 1), date(2026, 4, 16)) == Decimal("9.00")
