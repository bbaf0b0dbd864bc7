import assert from "node:assert/strict";
import { test } from "node:test";

import { buildApp } from "../src/app.js";

const PRODUCTS = [
  { sku: "tea", name: "Green tea", price: "4.50" },
  { sku: "cup", name: "Cup", price: 12 },
];

test("a cart sums its lines in cents", () => {
  const app = buildApp({ products: PRODUCTS });
  const cart = app.store.create();
  cart.addItem("tea", 2);
  cart.addItem("cup");
  assert.equal(cart.subtotalCents(), 2100);
  assert.equal(cart.toJSON().total, "21.00");
});

test("checkout freezes the cart and is audited", () => {
  const app = buildApp({ products: PRODUCTS });
  const [status, body] = app.handle("POST", "/carts");
  assert.equal(status, 201);
  app.handle("POST", `/carts/${body.id}/items`, { sku: "tea" });
  assert.equal(app.handle("POST", `/carts/${body.id}/checkout`)[0], 200);
  assert.equal(app.handle("POST", `/carts/${body.id}/items`, { sku: "cup" })[0], 409);
  assert.deepEqual(app.audit.entries.map((e) => e.topic), ["cart.checked_out"]);
});

test("unknown products and routes answer 404", () => {
  const app = buildApp({ products: PRODUCTS });
  app.handle("POST", "/carts");
  assert.equal(app.handle("POST", "/carts/1/items", { sku: "nope" })[0], 404);
  assert.equal(app.handle("GET", "/nowhere")[0], 404);
});
