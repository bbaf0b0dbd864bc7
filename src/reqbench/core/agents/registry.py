"""Agent names -> factories: `make_agent("reference")`, `make_agent("command", template=...)`, ...

Agents register through the ``reqbench.agents`` entry-point group (`reqbench.core.registry`); reqbench's own
adapters are declared in its pyproject like any plugin's. `AGENTS` maps every registered name to its
``(module, factory)``; a spec whose name part is a dotted path (``mypkg.agents:make_agent``) works too.
A factory takes keyword options (from ``--agent-opt KEY=VALUE``) and returns an `Agent`. A spec may
carry an argument after a colon: ``replay:PATCHES`` passes ``arg="PATCHES"``.
A CLI preset takes a version after ``@``: ``claude-code@2.1.332`` passes ``version="2.1.332"``
(`versions`). The spec is parsed by `spec.AgentSpec.parse`; `build_agent` builds a parsed one.
"""

from __future__ import annotations

import importlib
from typing import Any

from reqbench.core import registry
from reqbench.core.agents.base import Agent
from reqbench.core.agents.declared import check_agent_options
from reqbench.core.agents.option_text import as_declared
from reqbench.core.agents.spec import AgentSpec
from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

AGENTS: dict[str, tuple[str, str]] = {
    name: tuple(registry.entry_value("agents", name).split(":", 1))  # type: ignore[misc]
    for name in registry.names("agents")
}
"""name -> (module, factory) of every registered agent."""


def make_agent(spec: str, **options: Any) -> Agent:
    """Build the agent named by `spec` (``name``, ``name:arg``, ``name@version[:arg]`` or
    ``package.module:factory``) with `options`, all of them its own (`build_agent`)."""
    return build_agent(AgentSpec.parse(spec, options))


def build_agent(spec: AgentSpec) -> Agent:
    """The agent of a parsed `spec`. An option the factory does not declare is an `InputError`
    (`declared.check_agent_options`), as is an unknown name."""
    if spec.name in AGENTS:
        module_name, factory = AGENTS[spec.name]
    elif spec.dotted and spec.arg is not None:
        module_name, factory = spec.name, spec.arg
    else:
        raise InputError(f"unknown agent {spec.name!r}{did_you_mean(spec.name, AGENTS)}; known agents: "
                         f"{', '.join(sorted(AGENTS))} (or a dotted path package.module:factory)", item="--agent")
    module = importlib.import_module(module_name)
    make = getattr(module, factory)
    check_agent_options(spec.name, make, spec.options)
    return make(**as_declared(make, spec.factory_options()))  # type: ignore[no-any-return]
