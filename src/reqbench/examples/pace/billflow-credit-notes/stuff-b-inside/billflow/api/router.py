"""Match a request against ROUTES and map domain errors to status codes."""

from __future__ import annotations

from typing import Any

from billflow.api.reports import REPORT_ROUTES
from billflow.api.routes import ROUTES
from billflow.errors import BillingError, InvalidState, NotFound


def match(pattern: str, path: str) -> dict[str, str] | None:
    want, got = pattern.strip("/").split("/"), path.strip("/").split("/")
    if len(want) != len(got):
        return None
    params = {}
    for w, g in zip(want, got):
        if w.startswith("{") and w.endswith("}"):
            params[w[1:-1]] = g
        elif w != g:
            return None
    return params


def dispatch(app: Any, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict]:
    for (route_method, pattern), handler in {**ROUTES, **REPORT_ROUTES}.items():
        if route_method != method:
            continue
        params = match(pattern, path)
        if params is None:
            continue
        try:
            return handler(app, params, body or {})
        except NotFound as exc:
            return 404, {"error": str(exc)}
        except InvalidState as exc:
            return 409, {"error": str(exc)}
        except BillingError as exc:
            return 422, {"error": str(exc)}
    return 404, {"error": f"no route for {method} {path}"}
