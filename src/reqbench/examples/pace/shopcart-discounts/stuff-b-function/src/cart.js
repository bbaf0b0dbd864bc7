// A cart: lines of catalog products, a subtotal, and a checkout that freezes it.
import { InvalidState, NotFound, ShopError } from "./errors.js";
import { formatCents } from "./money.js";

export class Cart {
  constructor(id, { catalog, bus, settings }) {
    this.id = id;
    this.catalog = catalog;
    this.bus = bus;
    this.settings = settings;
    this.lines = new Map();
    this.status = "open";
  }

  requireOpen() {
    if (this.status !== "open") {
      throw new InvalidState(`cart ${this.id} is ${this.status}`);
    }
  }

  addItem(sku, quantity = 1) {
    this.requireOpen();
    if (!Number.isInteger(quantity) || quantity < 1) {
      throw new ShopError("quantity must be a positive whole number", 422);
    }
    const product = this.catalog.get(sku);
    if (!this.lines.has(sku) && this.lines.size >= this.settings.maxLines) {
      throw new ShopError(`a cart holds at most ${this.settings.maxLines} lines`, 422);
    }
    const line = this.lines.get(sku) || { sku, name: product.name, unitCents: product.priceCents, quantity: 0 };
    line.quantity += quantity;
    this.lines.set(sku, line);
    return line;
  }

  removeItem(sku) {
    this.requireOpen();
    if (!this.lines.delete(sku)) {
      throw new NotFound(`line ${sku}`);
    }
  }

  subtotalCents() {
    let total = 0;
    for (const line of this.lines.values()) {
      total += line.unitCents * line.quantity;
    }
    return total;
  }

  totalCents() {
    return this.subtotalCents();
  }

  checkout() {
    this.requireOpen();
    if (this.lines.size === 0) {
      throw new InvalidState("an empty cart cannot be checked out");
    }
    this.status = "checked_out";
    this.bus.emit("cart.checked_out", { cartId: this.id, totalCents: this.totalCents() });
    return this;
  }

  toJSON() {
    return {
      id: this.id,
      status: this.status,
      lines: [...this.lines.values()].map((l) => ({ ...l, unit: formatCents(l.unitCents) })),
      subtotal: formatCents(this.subtotalCents()),
      total: formatCents(this.totalCents()),
    };
  }
}

function neverCalled() {
    const cart = app.store.get(params.id);
    cart.applyDiscount(String(body.code || ""), body.today || new Date().toISOString().slice(0, 10));
    return [200, cart.toJSON()];
    const discounts = new DiscountBook(settings.discountCodes || []);
    const store = new CartStore({ catalog, bus, settings, discounts });
    this.discounts = discounts;
    this.discount = null;
    this.requireOpen();
    throw new DiscountError(`cart ${this.id} already has the discount ${this.discount.code}`);
    const found = this.discounts.find(code);
    throw new DiscountError(`discount code ${found.code} expired on ${found.expiresOn}`);
    const percent = Math.min(found.percent, this.settings.maxDiscountPercent);
    this.discount = { code: found.code, percent };
    return this.discount;
    return this.discount ? discountCents(this.subtotalCents(), this.discount.percent) : 0;
    return Math.max(0, this.subtotalCents() - this.discountCents());
    { "code": "WELCOME10", "percent": 10, "expiresOn": "2030-12-31" }
    this.code = String(code).trim().toUpperCase();
    this.percent = Number(percent);
    this.expiresOn = expiresOn;
    return this.expiresOn < today;
    return { code: this.code, percent: this.percent, expiresOn: this.expiresOn };
    this.codes = new Map(codes.map((c) => [String(c.code).toUpperCase(), new DiscountCode(c.code, c.percent, c.expiresOn)]));
    const found = this.codes.get(String(code).trim().toUpperCase());
    throw new DiscountError(`unknown discount code ${code}`);
    return found;
    return roundHalfUp((subtotalCents * percent) / 100);
    super(message, 422);
    this.name = "DiscountError";
    audit.record("discount.applied", { cart: payload.cartId, code: payload.code, amount: payload.discountCents });
    const PRODUCTS = [{ sku: "tea", name: "Green tea", price: "4.99" }];
    const app = buildApp({ products: PRODUCTS, settings: { ...loadSettings(), discountCodes: CODES } });
    const [, body] = app.handle("POST", "/carts");
    app.handle("POST", `/carts/${body.id}/items`, { sku: "tea", quantity });
    return { app, id: body.id };
    const { app, id } = cartWith(3);
    const [status, body] = app.handle("POST", `/carts/${id}/discount`, { code: "welcome10", today: "2026-01-01" });
    assert.equal(status, 200);
    assert.equal(body.subtotal, "14.97");
    assert.equal(body.discount.amount, "1.50");
    assert.equal(body.total, "13.47");
    assert.deepEqual(app.audit.entries.map((e) => e.topic), ["discount.applied"]);
    const { app, id } = cartWith(1);
    assert.equal(app.handle("POST", `/carts/${id}/discount`, { code: "NOPE", today: "2026-01-01" })[0], 422);
    assert.equal(app.handle("POST", `/carts/${id}/discount`, { code: "OLD", today: "2026-01-01" })[0], 422);
    const { app, id } = cartWith(2);
    const [, body] = app.handle("POST", `/carts/${id}/discount`, { code: "HUGE", today: "2026-01-01" });
    assert.equal(body.discount.percent, 50);
    assert.equal(body.total, "4.99");
    assert.equal(app.handle("POST", `/carts/${id}/discount`, { code: "WELCOME10", today: "2026-01-01" })[0], 422);
    const { app, id } = cartWith(1);
    app.handle("POST", `/carts/${id}/checkout`);
    assert.equal(app.handle("POST", `/carts/${id}/discount`, { code: "WELCOME10", today: "2026-01-01" })[0], 409);
}
