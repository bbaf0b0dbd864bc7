// Route handlers: (app, params, body) -> [status, json].

export function createCart(app) {
  return [201, app.store.create().toJSON()];
}

export function showCart(app, params) {
  return [200, app.store.get(params.id).toJSON()];
}

export function addItem(app, params, body) {
  const cart = app.store.get(params.id);
  cart.addItem(String(body.sku || ""), body.quantity === undefined ? 1 : body.quantity);
  return [200, cart.toJSON()];
}

export function checkoutCart(app, params) {
  return [200, app.store.get(params.id).checkout().toJSON()];
}
