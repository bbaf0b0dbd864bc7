"""Agent names -> factories: `make_agent("reference")`, `make_agent("command", template=...)`, ...

Agents register through the ``reqbench.agents`` entry-point group (`reqbench.core.registry`); reqbench's own
adapters are declared in its pyproject like any plugin's. `AGENTS` maps every registered name to its
``(module, factory)``; a spec whose name part is a dotted path (``mypkg.agents:make_agent``) works too.
A factory takes keyword options (from ``--agent-opt KEY=VALUE``) and returns an `Agent`. A spec may
carry an argument after a colon: ``replay:PATCHES`` passes ``arg="PATCHES"``.
A CLI preset takes a version after ``@``: ``claude-code@2.1.332`` passes ``version="2.1.332"``
(`versions`).
"""

from __future__ import annotations

import importlib
from typing import Any

from reqbench.core import registry
from reqbench.core.agents.base import Agent
from reqbench.core.agents.declared import check_agent_options
from reqbench.core.agents.option_text import as_declared
from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

AGENTS: dict[str, tuple[str, str]] = {
    name: tuple(registry.entry_value("agents", name).split(":", 1))  # type: ignore[misc]
    for name in registry.names("agents")
}
"""name -> (module, factory) of every registered agent."""


def make_agent(spec: str, **options: Any) -> Agent:
    """Build the agent named by `spec` (``name``, ``name:arg``, ``name@version[:arg]`` or
    ``package.module:factory``). An option the factory does not declare is an `InputError`
    (`declared.check_agent_options`)."""
    given = dict(options)
    name, _, arg = spec.partition(":")
    name, at, version = name.partition("@")
    if at:
        from reqbench.core.agents.versions import PACKAGES

        if name not in PACKAGES or not version:
            raise InputError(f"{spec!r}: only CLI presets ({', '.join(sorted(PACKAGES))}) take @VERSION",
                             item="--agent")
        options["version"] = version
    if name in AGENTS:
        module_name, factory = AGENTS[name]
        if arg:
            options["arg"] = arg
    elif "." in name and arg:
        module_name, factory = name, arg
    else:
        raise InputError(f"unknown agent {name!r}{did_you_mean(name, AGENTS)}; known agents: "
                         f"{', '.join(sorted(AGENTS))} (or a dotted path package.module:factory)", item="--agent")
    module = importlib.import_module(module_name)
    make = getattr(module, factory)
    check_agent_options(name, make, given)
    return make(**as_declared(make, options))  # type: ignore[no-any-return]
