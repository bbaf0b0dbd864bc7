"""Request handlers. Each takes (app, params, body) and returns (status, body)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from billflow.errors import BillingError


def _decimal(body: dict[str, Any], key: str) -> Decimal:
    try:
        return Decimal(str(body[key]))
    except (KeyError, InvalidOperation):
        raise BillingError(f"field {key!r} must be a decimal amount") from None


def create_customer(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    customer = app.store.add_customer(body["name"], body["email"])
    return 201, {"id": customer.id, "name": customer.name, "email": customer.email}


def create_invoice(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    invoice = app.invoices.create(int(body["customer_id"]))
    return 201, invoice.to_dict()


def add_line(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    invoice = app.invoices.add_line(int(params["invoice_id"]), body["description"], int(body["quantity"]),
                                    _decimal(body, "unit_price"))
    return 200, invoice.to_dict()


def get_invoice(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    return 200, app.store.invoice(int(params["invoice_id"])).to_dict()


def issue_invoice(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    return 200, app.invoices.issue(int(params["invoice_id"])).to_dict()


def pay_invoice(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    return 200, app.invoices.pay(int(params["invoice_id"]), _decimal(body, "amount")).to_dict()


def void_invoice(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    return 200, app.invoices.void(int(params["invoice_id"])).to_dict()
