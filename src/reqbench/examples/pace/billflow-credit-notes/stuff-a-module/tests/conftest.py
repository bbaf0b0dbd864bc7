import pytest

from billflow.app import build_app


@pytest.fixture
def app():
    return build_app()


@pytest.fixture
def issued(app):
    customer = app.store.add_customer("Ada", "ada@example.test")
    invoice = app.invoices.create(customer.id)
    app.invoices.add_line(invoice.id, "consulting", 2, "50.00")
    app.invoices.issue(invoice.id)
    return invoice
