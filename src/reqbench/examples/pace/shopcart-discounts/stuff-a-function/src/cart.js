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
