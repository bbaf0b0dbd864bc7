"""Tax rules per customer country. The default rate comes from settings; rules override it.

`TAX_RULES` is the registry: country code -> rule. A rule decides the rate for an invoice and may mark
it as reverse charge (the customer accounts for the tax), in which case no tax is charged.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class TaxDecision:
    rate: Decimal
    reverse_charge: bool = False
    note: str = ""


class TaxRule:
    """Base rule: the standard rate for every customer."""

    def __init__(self, rate: Decimal) -> None:
        self.rate = rate

    def decide(self, vat_id: str | None) -> TaxDecision:
        return TaxDecision(self.rate)


class ReverseChargeRule(TaxRule):
    """Business customers with a VAT id are invoiced without tax (reverse charge)."""

    def decide(self, vat_id: str | None) -> TaxDecision:
        if vat_id:
            return TaxDecision(Decimal("0"), reverse_charge=True, note=f"reverse charge, VAT id {vat_id}")
        return TaxDecision(self.rate)


class ExemptRule(TaxRule):
    """Exports outside the tax area carry no tax."""

    def decide(self, vat_id: str | None) -> TaxDecision:
        return TaxDecision(Decimal("0"), note="export, tax exempt")


TAX_RULES: dict[str, TaxRule] = {
    "DE": ReverseChargeRule(Decimal("0.19")),
    "FR": ReverseChargeRule(Decimal("0.20")),
    "NL": ReverseChargeRule(Decimal("0.21")),
    "CH": ExemptRule(Decimal("0")),
    "US": ExemptRule(Decimal("0")),
}


def rule_for(country: str | None, default_rate: Decimal) -> TaxRule:
    """The registered rule of `country`, or the standard rate."""
    if country and country.upper() in TAX_RULES:
        return TAX_RULES[country.upper()]
    return TaxRule(default_rate)


def register_rule(country: str, rule: TaxRule) -> None:
    """Add or replace the rule of a country (used by deployments with extra tax areas)."""
    if len(country) != 2 or not country.isalpha():
        raise ValueError(f"country must be a two-letter code, got {country!r}")
    TAX_RULES[country.upper()] = rule
