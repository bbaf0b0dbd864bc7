"""Agent names -> factories. `make_agent("reference")`, `make_agent("command", template=...)`, ...

Entries are lazy (module:function) so importing the registry imports no adapter. A factory takes
keyword options (from the CLI's ``--agent-opt KEY=VALUE`` or a config file) and returns an `Agent`.
An agent spec may carry an argument after a colon: ``replay:PATCHES`` passes ``arg="PATCHES"``, and a
CLI preset a version after ``@``: ``claude-code@2.1.332`` passes ``version="2.1.332"`` (`versions`).
"""

from __future__ import annotations

import importlib
from typing import Any

from reqbench.core.agents.base import Agent
from reqbench.core.errors import InputError

AGENTS: dict[str, tuple[str, str]] = {
    # name: (module, factory) -- description
    "null": ("reqbench.core.agents.controls", "make_null"),
    "reference": ("reqbench.core.agents.controls", "make_reference"),
    "replay": ("reqbench.core.agents.controls", "make_replay"),
    "command": ("reqbench.core.agents.command", "make_command"),
    "llm": ("reqbench.core.agents.llm_agent", "make_llm_agent"),
    "claude-code": ("reqbench.core.agents.presets", "make_claude_code"),
    "codex": ("reqbench.core.agents.presets", "make_codex"),
    "mini-swe-agent": ("reqbench.core.agents.presets", "make_mini_swe_agent"),
    "openhands": ("reqbench.core.agents.presets", "make_openhands"),
    "aider": ("reqbench.core.agents.presets", "make_aider"),
}


def make_agent(spec: str, **options: Any) -> Agent:
    """Build the agent named by `spec` (``name``, ``name:arg``, ``name@version[:arg]``)."""
    name, _, arg = spec.partition(":")
    name, at, version = name.partition("@")
    if at:
        from reqbench.core.agents.versions import PACKAGES

        if name not in PACKAGES or not version:
            raise InputError(f"{spec!r}: only CLI presets ({', '.join(sorted(PACKAGES))}) take @VERSION",
                             item="--agent")
        options["version"] = version
    if name not in AGENTS:
        raise InputError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}",
                         item="--agent")
    module_name, factory = AGENTS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise InputError(f"agent {name!r} is not available in this build ({exc.name} missing)",
                         item="--agent") from None
    if arg:
        options["arg"] = arg
    return getattr(module, factory)(**options)  # type: ignore[no-any-return]
