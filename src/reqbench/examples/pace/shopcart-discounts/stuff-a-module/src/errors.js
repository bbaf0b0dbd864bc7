// Errors a client can cause; `status` is the HTTP status the route table answers with.

export class ShopError extends Error {
  constructor(message, status = 400) {
    super(message);
    this.name = "ShopError";
    this.status = status;
  }
}

export class NotFound extends ShopError {
  constructor(what) {
    super(`${what} not found`, 404);
    this.name = "NotFound";
  }
}

export class InvalidState extends ShopError {
  constructor(message) {
    super(message, 409);
    this.name = "InvalidState";
  }
}
