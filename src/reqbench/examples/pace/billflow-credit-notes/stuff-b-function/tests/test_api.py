from billflow.api import dispatch


def test_invoice_flow_over_the_api(app):
    status, customer = dispatch(app, "POST", "/customers", {"name": "Bo", "email": "bo@example.test"})
    assert status == 201
    status, invoice = dispatch(app, "POST", "/invoices", {"customer_id": customer["id"]})
    path = f"/invoices/{invoice['id']}"
    dispatch(app, "POST", path + "/lines", {"description": "x", "quantity": 1, "unit_price": "10"})
    status, body = dispatch(app, "POST", path + "/issue")
    assert status == 200 and body["status"] == "issued"
    status, body = dispatch(app, "POST", path + "/payments", {"amount": "99"})
    assert status == 422


def test_unknown_invoice_is_404(app):
    assert dispatch(app, "GET", "/invoices/999")[0] == 404
