// The application object: wires catalog, store, bus, audit and routes together.
import { Catalog } from "./catalog.js";
import { loadSettings } from "./config.js";
import { ShopError } from "./errors.js";
import { EventBus } from "./events.js";
import { AuditLog } from "./handlers/audit.js";
import { registerAll } from "./handlers/index.js";
import { match } from "./routes.js";
import { CartStore } from "./store.js";

export function buildApp({ products = [], settings = loadSettings() } = {}) {
  const bus = new EventBus();
  const audit = new AuditLog();
  registerAll(bus, audit);
  const catalog = new Catalog(products);
  const store = new CartStore({ catalog, bus, settings });
  const app = { bus, audit, catalog, store, settings };
  app.handle = (method, path, body = {}) => {
    const route = match(method, path);
    if (!route) {
      return [404, { error: `no route for ${method} ${path}` }];
    }
    try {
      return route.handler(app, route.params, body);
    } catch (err) {
      if (err instanceof ShopError) {
        return [err.status, { error: err.message }];
      }
      throw err;
    }
  };
  return app;
}
