"""billflow: a small invoicing service (customers, invoices, payments, events, HTTP-style API)."""

__version__ = "1.4.2"

from billflow.config import Settings, load_settings
from billflow.models import Customer, Invoice, InvoiceStatus, LineItem

__all__ = ["Customer", "Invoice", "InvoiceStatus", "LineItem", "Settings", "load_settings"]
