// The route table: "METHOD /path/:param" -> handler.
import { addItem, checkoutCart, createCart, showCart } from "./api.js";

export const ROUTES = {
  "POST /carts": createCart,
  "GET /carts/:id": showCart,
  "POST /carts/:id/items": addItem,
  "POST /carts/:id/checkout": checkoutCart,
};

export function match(method, path) {
  const parts = path.split("/").filter(Boolean);
  for (const [key, handler] of Object.entries(ROUTES)) {
    const [verb, pattern] = key.split(" ");
    const want = pattern.split("/").filter(Boolean);
    if (verb !== method || want.length !== parts.length) {
      continue;
    }
    const params = {};
    if (want.every((seg, i) => (seg.startsWith(":") ? ((params[seg.slice(1)] = parts[i]), true) : seg === parts[i]))) {
      return { handler, params };
    }
  }
  return null;
}
