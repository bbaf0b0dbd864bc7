"""The options an agent takes, checked before it is built: ``--agent reference --agent-opt tmeplate=x`` is one
error naming the option, the agent and the closest known option (exit 2), never a run that ignores it.

An agent factory declares its options with `takes` (``@takes("template", "timeout", ...)``); a factory
without a declaration is read from its signature (its keyword parameters), and one that takes ``**opts``
without declaring them is not checked (a plugin that reads its own options). Every agent also takes the
options the harness itself sets or reads (`SHARED_OPTIONS`): ``stage``, set by multi-stage protocols, and
``model``, the configuration's model deployment (a label for control agents, which call no model).
Core's step limits (``step_timeout``, `spec.StepLimits`) are never the agent's (`spec.parse_agent` takes them
out); they are named among the suggestions so a misspelling of one is caught too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from reqbench.core.agents.spec import STEP_LIMIT_OPTIONS
from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

F = TypeVar("F", bound=Callable[..., Any])

DECLARED = "agent_options"
"""The attribute `takes` sets on a factory: the option names it accepts."""
SHARED_OPTIONS = frozenset({"stage", "model"})
"""Options every agent accepts: ``stage`` (a protocol's stage, e.g. takeover's diagnostic or coding) and
``model`` (the configuration's model deployment)."""


def takes(*names: str) -> Callable[[F], F]:
    """Declare the options `factory` accepts (besides `SHARED_OPTIONS`)."""

    def mark(factory: F) -> F:
        setattr(factory, DECLARED, frozenset(names))
        return factory

    return mark


def declared_options(factory: Callable[..., Any]) -> frozenset[str] | None:
    """The options `factory` accepts, or None when it does not say (``**opts`` without a declaration)."""
    explicit = getattr(factory, DECLARED, None)
    if explicit is not None:
        return frozenset(explicit) | SHARED_OPTIONS
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    named = {p.name for p in params if p.kind in (inspect.Parameter.KEYWORD_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    return frozenset(named) | SHARED_OPTIONS


def check_agent_options(agent: str, factory: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """`InputError` naming the first option `factory` does not accept, with a did-you-mean over its options
    (and core's own), before anything is built."""
    known = declared_options(factory)
    if known is None:
        return
    unknown = sorted(k for k in options if k not in known)
    if not unknown:
        return
    key = unknown[0]
    listed = ", ".join(sorted(known)) or "none"
    raise InputError(f"unknown option {key!r} for agent {agent!r}{did_you_mean(key, _suggestable(known))}; "
                     f"its options: {listed} (and step_timeout, for any agent)", item=f"--agent-opt {key}")


def _suggestable(known: Iterable[str]) -> list[str]:
    return [*sorted(known), *STEP_LIMIT_OPTIONS]
