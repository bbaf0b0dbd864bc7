// The product catalog: SKU -> name and unit price in cents.
import { NotFound } from "./errors.js";
import { toCents } from "./money.js";

export class Catalog {
  constructor(products = []) {
    this.products = new Map();
    for (const product of products) {
      this.add(product.sku, product.name, product.price);
    }
  }

  add(sku, name, price) {
    this.products.set(sku, { sku, name, priceCents: toCents(price) });
  }

  get(sku) {
    const product = this.products.get(sku);
    if (!product) {
      throw new NotFound(`product ${sku}`);
    }
    return product;
  }
}
