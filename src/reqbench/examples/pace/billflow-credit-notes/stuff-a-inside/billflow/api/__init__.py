"""HTTP-style API: `dispatch(app, method, path, body)` -> (status, json body)."""

from billflow.api.router import dispatch

__all__ = ["dispatch"]
