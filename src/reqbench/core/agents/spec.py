"""The agent of a run, parsed once: ``--agent SPEC`` and every ``--agent-opt KEY=VALUE`` become an `AgentConfig`.

A run names its agent by one string and one flat mapping of options (that is what it stores, so old runs
read as they always did), but the mapping holds three kinds of setting, and each has one owner:

* **core's step limits** (`StepLimits`): ``step_timeout``, the cap on every agent step's wall-clock
  budget (seconds, any protocol), applied by `core.execute.agent_step`;
* **protocol settings** (`ProtocolSettings`): ``PROTOCOL.KEY`` (``specpath.agent_timeout``), typed and
  validated against the protocol's ``options_model`` (`ProtocolSettings.typed`);
* **the agent's own options** (`AgentSpec.options`): everything else, checked against the factory's
  declared options when the agent is built (`declared.check_agent_options`).

`parse_agent` is the one place that tells them apart; `RunOptions.agent_config` holds its result for a run,
so ``reqbench run``, ``reqbench.run()`` and every study configuration read the same typed record. The spec
string itself is parsed here too (`AgentSpec.parse`): ``name``, ``name:ARG``, ``name@VERSION[:ARG]`` or a
dotted ``package.module:factory``.

Errors are `InputError`s naming the option (``--agent-opt step_timeout``, ``--agent-opt specpath.KEY``),
with a did-you-mean where a name is close to a known one. Credentials are refused before this runs
(`core.execute.credentials`), and no message here repeats an option's value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from reqbench.core.agents.base import Budget
from reqbench.core.agents.option_text import positive_number
from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

M = TypeVar("M", bound=BaseModel)

STEP_TIMEOUT = "step_timeout"
"""Agent option capping every agent step's wall-clock budget (seconds)."""
STEP_LIMIT_OPTIONS = (STEP_TIMEOUT,)
"""Options that are core's step limits, never the agent's (named in suggestions, `declared`)."""


@dataclass(frozen=True)
class AgentSpec:
    """Which agent a run builds, and with what options of its own."""

    name: str
    """A registered agent's name (``command``, ``claude-code``) or a dotted module path (``pkg.agents``)."""
    arg: str | None = None
    """What follows the colon: ``replay:PATCHES`` -> ``PATCHES``; for a dotted path, the factory's name."""
    version: str | None = None
    """A CLI preset's pinned version (``claude-code@2.1.332``), None for the preset's default."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The agent's own options (no step limit, no ``PROTOCOL.KEY`` setting)."""

    @property
    def dotted(self) -> bool:
        """Whether `name` is a module path whose factory is `arg` (``package.module:factory``)."""
        return "." in self.name and bool(self.arg)

    @classmethod
    def parse(cls, text: str, options: Mapping[str, Any] | None = None) -> AgentSpec:
        """The spec of ``--agent`` `text` (`InputError` for a version on anything but a CLI preset)."""
        head, _, arg = text.partition(":")
        name, at, version = head.partition("@")
        if at:
            from reqbench.core.agents.versions import PACKAGES

            if name not in PACKAGES or not version:
                raise InputError(f"{text!r}: only CLI presets ({', '.join(sorted(PACKAGES))}) take @VERSION",
                                 item="--agent")
        return cls(name, arg or None, version or None, dict(options or {}))

    def factory_options(self) -> dict[str, Any]:
        """The keyword options the factory gets: its own, plus ``arg`` and ``version`` from the spec."""
        out = dict(self.options)
        if self.version is not None:
            out["version"] = self.version
        if self.arg is not None and not self.dotted:
            out["arg"] = self.arg
        return out

    def with_options(self, **extra: Any) -> AgentSpec:
        """This spec with `extra` options over its own (a protocol's ``stage``)."""
        return dataclasses.replace(self, options={**self.options, **extra})


@dataclass(frozen=True)
class StepLimits:
    """Core's limits on every agent step of a run, whatever the protocol."""

    step_timeout: float | None = None
    """Cap on an agent step's wall-clock budget (seconds); None: the protocol's budget stands."""

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> StepLimits:
        cap = options.get(STEP_TIMEOUT)
        if cap is None:
            return cls()
        return cls(step_timeout=positive_number(cap, item=f"--agent-opt {STEP_TIMEOUT}", unit="seconds"))

    def cap(self, budget: Budget) -> Budget:
        """`budget` with its wall clock capped at `step_timeout` (unchanged when already within it)."""
        cap = self.step_timeout
        if cap is None or (budget.wall_seconds is not None and budget.wall_seconds <= cap):
            return budget
        return dataclasses.replace(budget, wall_seconds=cap)


@dataclass(frozen=True)
class ProtocolSettings:
    """The ``PROTOCOL.KEY`` options of a run, by protocol, as given; `typed` validates one protocol's."""

    given: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """``{protocol: {key: value}}``."""

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> ProtocolSettings:
        by_protocol: dict[str, dict[str, Any]] = {}
        for key, value in options.items():
            protocol, dot, name = key.partition(".")
            if dot:
                by_protocol.setdefault(protocol, {})[name] = value
        return cls(by_protocol)

    def typed(self, protocol: str, model: type[M]) -> M:
        """`protocol`'s settings validated against its `model` (extra keys forbidden): an unknown key is one
        error naming it with the known ones and a did-you-mean, an ill-typed value one naming its rule."""
        prefix = f"{protocol}."
        try:
            return model.model_validate(dict(self.given.get(protocol, {})))
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or "?"
            names = [prefix + name for name in model.model_fields]
            rule = ("unknown option; known: " + (", ".join(names) or "none") + did_you_mean(prefix + key, names)) \
                if first["type"] == "extra_forbidden" else str(first["msg"])
            raise InputError(rule, item=f"--agent-opt {prefix}{key}") from None


@dataclass(frozen=True)
class AgentConfig:
    """A run's agent, typed: what to build, core's step limits, the protocols' settings."""

    spec: AgentSpec
    limits: StepLimits = StepLimits()
    settings: ProtocolSettings = ProtocolSettings()


def is_setting(key: str) -> bool:
    """Whether option `key` is a protocol's setting (``PROTOCOL.KEY``) rather than the agent's."""
    return "." in key


def agent_options_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The agent's own options among a run's: neither a step limit nor a protocol setting."""
    return {k: v for k, v in options.items() if k not in STEP_LIMIT_OPTIONS and not is_setting(k)}


def parse_agent(agent: str, options: Mapping[str, Any] | None = None) -> AgentConfig:
    """The one parse of a run's ``--agent`` and ``--agent-opt`` options (module docstring)."""
    given = dict(options or {})
    return AgentConfig(spec=AgentSpec.parse(agent, agent_options_of(given)), limits=StepLimits.parse(given),
                       settings=ProtocolSettings.parse(given))
