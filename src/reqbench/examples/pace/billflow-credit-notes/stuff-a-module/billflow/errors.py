"""Domain errors; the API maps them to HTTP-style status codes."""


class BillingError(Exception):
    """A request the domain rules reject (maps to 422)."""


class NotFound(BillingError):
    """An unknown customer or invoice (maps to 404)."""


class InvalidState(BillingError):
    """An operation not allowed in the invoice's current status (maps to 409)."""
