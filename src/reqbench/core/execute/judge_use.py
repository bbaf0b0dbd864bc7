"""A ``--judge`` the run would never call is refused before anything starts.

A judge that no row uses would still be written into the run's options and provenance, and every report
would name it beside numbers it never touched. Each protocol knows which of its rows call a judge: its
``unused_judge(options) -> str | None`` hook (`SuiteProtocol`) says why no row of `options` calls one (None
when some row does). By default a protocol is taken to use its judge (journey's capability scores, every
PACE case).
"""

from __future__ import annotations

from reqbench.core.errors import InputError
from reqbench.core.execute.suite import SuiteProtocol
from reqbench.core.execute.types import RunOptions
from reqbench.core.judges.spec import parse_judge_spec


def why_no_judge(protocol: SuiteProtocol, options: RunOptions) -> str | None:
    """Why no row of `options` calls a judge (the protocol's ``unused_judge`` hook), or None when some row
    does (or the protocol does not say)."""
    why = protocol.unused_judge(options)
    return why or None


def check_judge_used(protocol: SuiteProtocol, options: RunOptions) -> None:
    """`InputError` when `options.judge` is set and `protocol` says no row of `options` calls a judge."""
    if not options.judge:
        return
    parse_judge_spec(options.judge)  # an unknown name is named as such first (with a suggestion)
    why = why_no_judge(protocol, options)
    if why:
        raise InputError(f"this run never calls a judge: {why}; drop --judge {options.judge}", item="--judge")
