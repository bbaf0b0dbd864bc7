"""`idle.side_by_side` runs each call in a copy of the caller's context: a takeover row's target and
regression gates run side by side, and the row's task environment (a context variable bound by
`sandbox.environment.row_environment`) must hold in their threads, or those gates would run on the host."""

from __future__ import annotations

import contextvars

from reqbench.core import idle
from reqbench.core.sandbox.environment import EnvironmentMount, current_row_environment, row_environment

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="unset")


def test_calls_see_the_callers_context_variables() -> None:
    token = MARK.set("row-7")
    try:
        assert idle.side_by_side([MARK.get, MARK.get]) == ["row-7", "row-7"]
    finally:
        MARK.reset(token)
    assert idle.side_by_side([MARK.get]) == ["unset"]


def test_calls_see_the_rows_environment() -> None:
    mount = EnvironmentMount.__new__(EnvironmentMount)  # only its identity matters here
    with row_environment(mount):
        seen = idle.side_by_side([current_row_environment, current_row_environment])
    assert seen == [mount, mount]
    assert idle.side_by_side([current_row_environment]) == [None]
