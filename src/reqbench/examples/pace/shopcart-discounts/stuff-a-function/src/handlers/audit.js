// The audit trail: one entry per business event, in order.

export class AuditLog {
  constructor() {
    this.entries = [];
  }

  record(topic, details) {
    this.entries.push({ seq: this.entries.length + 1, topic, details });
  }
}

export function recordCheckout(audit, payload) {
  audit.record("cart.checked_out", { cart: payload.cartId, total: payload.totalCents });
}
