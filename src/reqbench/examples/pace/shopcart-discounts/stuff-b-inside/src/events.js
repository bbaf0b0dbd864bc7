// A synchronous in-process event bus: handlers run in subscription order.

export class EventBus {
  constructor() {
    this.handlers = new Map();
    this.published = [];
  }

  on(topic, handler) {
    if (!this.handlers.has(topic)) {
      this.handlers.set(topic, []);
    }
    this.handlers.get(topic).push(handler);
  }

  emit(topic, payload) {
    this.published.push({ topic, payload });
    for (const handler of this.handlers.get(topic) || []) {
      handler(payload);
    }
  }

  topics() {
    return [...this.handlers.keys()].sort();
  }
}
