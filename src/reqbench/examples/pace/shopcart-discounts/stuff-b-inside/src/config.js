// Settings: src/config.json merged over the defaults.
import { readFileSync } from "node:fs";

export const DEFAULTS = { currency: "EUR", maxLines: 50 };

export function loadSettings(path = new URL("./config.json", import.meta.url)) {
  const raw = JSON.parse(readFileSync(path, "utf-8"));
  return {
    currency: raw.currency || DEFAULTS.currency,
    maxLines: (raw.cart && raw.cart.maxLines) || DEFAULTS.maxLines,
  };
}
