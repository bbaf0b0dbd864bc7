"""The study file (``STUDY.yaml``): one suite x named configurations x conditions x repeats (DESIGN §13).

A *configuration* is what SpecPath calls a system configuration: agent (scaffold), model deployment, agent
options (prompts, tools, budget) and judge; every configuration of a study runs the same rows (same suite,
conditions, repeats and seed), so configurations can be compared row by row. `reqbench schema study` prints
the JSON Schema of `StudyFile`.

Also here: `parse_configuration`, the ``name=...,agent=...`` form `reqbench study add` accepts, and the
errors of both forms, each naming file, item and rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, ValidationError, field_validator, model_validator

from reqbench.core.errors import InputError
from reqbench.core.execute.credentials import credential_refusal
from reqbench.core.execute.types import RunOptions
from reqbench.core.inputfiles import describe, parse_yaml, read_yaml

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""A configuration name is a directory name (its run directory is ``runs/<name>``)."""
DEFAULT_SEED = 20260729


class Configuration(BaseModel):
    """One named system configuration: what runs the rows (agent, model, options) and what grades them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="Unique name within the study (letters, digits, '.', "
                      "'_', '-'); labels every table and names the run directory runs/<name>.")
    agent: str = Field(min_length=1, description="Agent spec as `reqbench run --agent` takes it: reference, "
                       "null, replay:PATH, command, llm, claude-code, codex, mini-swe-agent, openhands, aider, "
                       "or a dotted path.")
    model: str | None = Field(None, description="Model deployment (the agent option 'model'); part of the "
                              "configuration, so the model tables group by it.")
    agent_opts: dict[str, Any] = Field(default_factory=dict, description="Agent options (`--agent-opt "
                                       "KEY=VALUE`), e.g. {base_url: ..., template: ...}.")
    judge: str = Field("", description="Judge spec (exact, token-overlap, word-overlap, replay:FILE, llm:MODEL); "
                       "'' = the protocol's offline default.")

    @model_validator(mode="after")
    def _model_once(self) -> Configuration:
        if self.model is not None and "model" in self.agent_opts and self.agent_opts["model"] != self.model:
            raise ValueError("model is given twice (model and agent_opts.model) with different values")
        return self

    @model_validator(mode="after")
    def _no_credentials(self) -> Configuration:
        """A key is never stored in a study file (`core.execute.credentials`): it comes from the environment."""
        refusal = credential_refusal(self.agent, self.agent_options(), self.judge, option="agent_opts")
        if refusal is not None:
            raise ValueError(f"{refusal[0]}: {refusal[1]}")
        return self

    def agent_options(self) -> dict[str, Any]:
        """The run's agent options: `agent_opts` plus ``model`` when given."""
        return {**self.agent_opts, **({"model": self.model} if self.model is not None else {})}

    def model_label(self) -> str:
        """The model deployment for by-model tables (the agent's name when no model is set: controls)."""
        return str(self.agent_options().get("model") or self.agent.split(":", 1)[0])


class StudyFile(BaseModel):
    """A study: the suite, the configurations compared on it, and the rows every configuration runs."""

    model_config = ConfigDict(extra="forbid")

    suite: str = Field(description="Suite directory (relative paths are relative to the study file) or "
                       "demo:NAME for a bundled suite; validated and loaded once for every configuration.")
    configurations: list[Configuration] = Field(min_length=1, description="The configurations compared; "
                                                "more can be added later with `reqbench study add`.")
    conditions: list[str] = Field(default_factory=list, description="Conditions each configuration runs "
                                  "(default: the protocol's conditions).")
    repeats: int = Field(1, ge=1, description="Repeats per (task, condition) and configuration.")
    seed: int = Field(DEFAULT_SEED, description="Seed of the one schedule that interleaves the rows of all "
                      "configurations within each repeat (a barrier between repeats).")
    unsafe_no_sandbox: bool = Field(False, description="Let real agents run where bubblewrap cannot isolate "
                                    "them (recorded in every run; every report warns).")
    prices: dict[str, tuple[NonNegativeFloat, NonNegativeFloat]] = Field(
        default_factory=dict, description="Model prices for every configuration, {MODEL: [USD per 1M input "
        "tokens, USD per 1M output tokens]}, over the built-in table (as `reqbench run --price`).")
    allow_unpriced: bool = Field(False, description="Let a dollar budget pass calls of models without a price, "
                                 "their cost unknown (as `reqbench run --allow-unpriced`; recorded, reported).")
    allow_provider_tools: bool = Field(False, description="Forward requests for tools the provider runs itself "
                                       "(web search, code execution, ...) for every configuration, as `reqbench "
                                       "run --allow-provider-tools` (recorded in each run, every report says so).")
    freeze_user_from: str | None = Field(None, description="For a protocol with simulated users: the pilot "
                                         "configuration whose simulated users are frozen. Its rows run first; "
                                         "every other configuration replays the pilot's user turns whenever the "
                                         "conversation state matches (through the protocol's frozen-user agent "
                                         "option), the simulator answers otherwise.")

    @field_validator("configurations")
    @classmethod
    def _unique_names(cls, value: list[Configuration]) -> list[Configuration]:
        seen: set[str] = set()
        for config in value:
            if config.name in seen:
                raise ValueError(f"configuration name {config.name!r} is used twice; names must be unique")
            seen.add(config.name)
        return value

    @model_validator(mode="after")
    def _pilot_is_a_configuration(self) -> StudyFile:
        if self.freeze_user_from is None:
            return self
        if all(c.name != self.freeze_user_from for c in self.configurations):
            raise ValueError(f"freeze_user_from names {self.freeze_user_from!r}, which is not a configuration "
                             "of the study")
        return self

    def configuration(self, name: str) -> Configuration:
        found = next((c for c in self.configurations if c.name == name), None)
        if found is None:
            raise InputError(f"no configuration named {name!r}; the study has "
                             f"{', '.join(c.name for c in self.configurations)}")
        return found

    def run_options(self, config: Configuration, *, concurrency: int = 1, offline: bool = False,
                    frozen_user: tuple[str, Path] | None = None) -> RunOptions:
        """The run options of one configuration's run directory (same rows for every configuration); with
        `frozen_user` (the protocol's frozen-user option and the study's frozen-user file) every
        configuration but the pilot replays it."""
        agent_options = config.agent_options()
        if frozen_user is not None and self.freeze_user_from not in (None, config.name):
            option, path = frozen_user
            agent_options[option] = str(path)
        return RunOptions(agent=config.agent, conditions=tuple(self.conditions), repeats=self.repeats,
                          seed=self.seed, judge=config.judge, concurrency=concurrency,
                          agent_options=agent_options, offline=offline,
                          unsafe_no_sandbox=self.unsafe_no_sandbox,
                          prices={m: [float(p[0]), float(p[1])] for m, p in sorted(self.prices.items())},
                          prices_from="the study file's prices" if self.prices else "",
                          allow_unpriced=self.allow_unpriced, allow_provider_tools=self.allow_provider_tools)


def _where(loc: tuple[str | int, ...], data: Any) -> str | None:
    """A location as the user reads it: a configuration by index and name (``configurations[1] 'b': agent``)."""
    if len(loc) >= 2 and loc[0] == "configurations" and isinstance(loc[1], int):
        configs = data.get("configurations") if isinstance(data, dict) else None
        return _named(loc[1], configs[loc[1]] if isinstance(configs, list) and loc[1] < len(configs) else None,
                      loc[2:])
    return ".".join(str(x) for x in loc) or None


def _named(index: int, config: Any, rest: tuple[str | int, ...]) -> str:
    name = config.get("name") if isinstance(config, dict) else None
    tail = ".".join(str(x) for x in rest)
    return f"configurations[{index}]" + (f" {name!r}" if name else "") + (f": {tail}" if tail else "")


def parse_study(data: Any, source: str) -> StudyFile:
    """A `StudyFile` from parsed YAML/JSON; an `InputError` naming `source`, the item and the rule."""
    if not isinstance(data, dict):
        raise InputError("expected a mapping with suite and configurations", file=source)
    try:
        return StudyFile.model_validate(data)
    except ValidationError as exc:
        where, rule = describe(exc, StudyFile)
        raise InputError(rule, file=source, item=_where(where, data)) from None


def load_study_file(path: Path) -> StudyFile:
    """Read and validate ``STUDY.yaml``; a relative suite path is made absolute against the file's folder."""
    spec = parse_study(read_yaml(Path(path)), str(path))
    if not spec.suite.startswith("demo:") and not Path(spec.suite).is_absolute():
        spec = spec.model_copy(update={"suite": str((Path(path).parent / spec.suite).resolve())})
    return spec


def parse_configuration(text: str) -> list[Configuration]:
    """``name=NAME,agent=AGENT[,model=M][,judge=J][,opt.KEY=VALUE]...[,agent_opts={KEY: VALUE, ...}]`` (one
    configuration; ``agent_opts`` as the study file writes it, JSON or YAML flow), or the path of
    a YAML file holding one configuration, a list of them, or a study-like mapping with ``configurations``.
    Option values are read as JSON when they parse (numbers, true), else kept as text."""
    if "=" not in text:
        path = Path(text)
        data = read_yaml(path)
        items = data.get("configurations") if isinstance(data, dict) and "configurations" in data else data
        items = items if isinstance(items, list) else [items]
        return [_configuration(item, str(path), f"configurations[{i}]") for i, item in enumerate(items)]
    fields: dict[str, Any] = {}
    opts: dict[str, Any] = {}
    for number, part in enumerate(_top_level_parts(text), 1):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:  # the text is not repeated: it may hold a key pasted by mistake
            raise InputError(f"expected KEY=VALUE pairs separated by commas (name=...,agent=...); part {number} "
                             "is not one", item="configuration on the command line")
        if key == "agent_opts":
            opts.update(_inline_options(value))
        elif key.startswith("opt."):
            try:
                opts[key[4:]] = json.loads(value)
            except json.JSONDecodeError:
                opts[key[4:]] = value
        else:
            fields[key] = value
    if opts:
        fields["agent_opts"] = opts
    name = fields.get("name")  # named, never quoted whole: option values are not repeated
    return [_configuration(fields, "command line", f"configuration {name!r}" if name else "configuration")]


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside braces, brackets and quotes (``agent_opts={a: 1, b: 2}`` is one part)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif depth and char in "'\"":  # quotes matter inside a mapping only
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _inline_options(value: str) -> dict[str, Any]:
    """``agent_opts={KEY: VALUE, ...}`` (JSON or YAML flow) on the command line, as the study file writes it."""
    where = "configuration on the command line"
    try:
        parsed = parse_yaml(value, where)
    except InputError:
        parsed = None
    if not isinstance(parsed, dict) or not all(isinstance(k, str) for k in parsed):
        raise InputError("agent_opts must be a mapping such as agent_opts={template: 'my-agent {prompt_file}'}; "
                         "or give each option as opt.KEY=VALUE (name=NAME,agent=AGENT,opt.KEY=VALUE)", item=where)
    return parsed


def _configuration(data: Any, source: str, item: str) -> Configuration:
    try:
        return Configuration.model_validate(data)
    except ValidationError as exc:
        where, rule = describe(exc, Configuration)
        shown = ".".join(str(x) for x in where)
        raise InputError((f"{shown}: " if shown else "") + rule, file=source, item=item) from None
