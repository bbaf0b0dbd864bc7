// Which handlers listen to which topics; registerAll subscribes them on a bus.
import { recordCheckout } from "./audit.js";

export const SUBSCRIPTIONS = {
  "cart.checked_out": [recordCheckout],
};

export function registerAll(bus, audit) {
  for (const [topic, handlers] of Object.entries(SUBSCRIPTIONS)) {
    for (const handler of handlers) {
      bus.on(topic, (payload) => handler(audit, payload));
    }
  }
}
