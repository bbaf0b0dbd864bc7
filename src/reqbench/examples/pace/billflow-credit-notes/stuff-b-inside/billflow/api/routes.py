"""The route table: (method, pattern) -> handler. Patterns use {name} segments."""

from billflow.api import handlers

ROUTES = {
    ("POST", "/customers"): handlers.create_customer,
    ("POST", "/invoices"): handlers.create_invoice,
    ("GET", "/invoices/{invoice_id}"): handlers.get_invoice,
    ("POST", "/invoices/{invoice_id}/lines"): handlers.add_line,
    ("POST", "/invoices/{invoice_id}/issue"): handlers.issue_invoice,
    ("POST", "/invoices/{invoice_id}/payments"): handlers.pay_invoice,
    ("POST", "/invoices/{invoice_id}/void"): handlers.void_invoice,
}
