// In-memory cart storage with increasing ids.
import { Cart } from "./cart.js";
import { NotFound } from "./errors.js";

export class CartStore {
  constructor(deps) {
    this.deps = deps;
    this.carts = new Map();
    this.nextId = 1;
  }

  create() {
    const cart = new Cart(this.nextId, this.deps);
    this.nextId += 1;
    this.carts.set(cart.id, cart);
    return cart;
  }

  get(id) {
    const cart = this.carts.get(Number(id));
    if (!cart) {
      throw new NotFound(`cart ${id}`);
    }
    return cart;
  }
}
