"""A protocol's own run settings: the ``--agent-opt PROTOCOL.KEY=VALUE`` options, typed and validated once.

Each protocol declares an ``options_model`` (a pydantic model, extra keys forbidden, every field with a
description) and, for its rows, a ``result_model``; ``reqbench schema PROTOCOL-options`` and
``PROTOCOL-result`` print them. `split_settings` takes the ``PROTOCOL.``-prefixed keys out of the agent
options, validates them against the model and returns the typed settings plus the agent's own options, so a
typo or an ill-typed value is one clear error naming the key (exit 2) before anything is created
(`check_settings` runs in `core.execute.lanes.plan_lanes`, for a run and every study configuration,
before the run directory exists).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

if TYPE_CHECKING:
    from reqbench.core.execute.suite import SuiteProtocol

M = TypeVar("M", bound=BaseModel)


class ProtocolOptions(BaseModel):
    """Base of every protocol's settings: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")

    def dollar_budget(self) -> float | None:
        """The agent's dollar budget per row these settings give (USD), None when the protocol sets none.
        Preflight refuses a model without a price under it (`core.llm.pricing.unpriced_refusal`)."""
        return None


class ProtocolResult(BaseModel):
    """Base of every protocol's row result (`RowOutcome.result`): a protocol builds an instance of its own
    subclass (its ``result_model``), the runner carries it, the store writes it and reads it back through the
    same model (`core.store.results`). Undeclared keys are refused, so every field a protocol stores is
    declared with its description. The fields here are the ones the generic layers read; the ``row_*``
    methods are what every report reads of a scored row (`report.rowfacts`), each protocol answering for
    its own fields."""

    model_config = ConfigDict(extra="forbid")

    judge: str | None = Field(default=None, description="The judge that produced the row's grades, when one did.")
    judge_notice: str | None = Field(default=None, description="Set when that judge is an offline heuristic: what it "
                                     "approximates (row pages and reports print it).")
    frozen: bool | None = Field(default=None,
        description="False on a pending attempt whose submission is not frozen yet "
                    "(a journey session that continues from its checkpoints): a regrade skips it.")
    reason: str | None = Field(default=None, description="The row's reason code, where a protocol repeats it in its "
                               "result (`RowOutcome.reason` is the one reports read; this is for older runs).")
    operational_failure: bool | None = Field(default=None,
        description="(runs stored before PACE scored every case) the "
                    "row was kept out as an operational failure.")
    harness_exception: bool | None = Field(default=None,
        description="The attempt ended in an exception of harness code "
                    "(the traceback is the attempt's detail).")
    executor_error: bool | None = Field(default=None, description="The executor failed to run the attempt (a remote "
                                        "worker lost, ...; the traceback is the attempt's detail).")

    @classmethod
    def of(cls, result: ProtocolResult | Mapping[str, Any]) -> Self:
        """The typed view of a result: the instance itself when it already is one, else a stored mapping read
        through `core.store.results.read_result` (old shapes upgraded there, never left unchecked)."""
        if isinstance(result, cls):
            return result
        from reqbench.core.store.results import read_result

        raw = result.stored() if isinstance(result, ProtocolResult) else dict(result)
        return read_result(cls, raw)

    def stored(self) -> dict[str, Any]:
        """The result as the store writes it (with `json.dumps`): the fields the protocol set, nothing else. A
        value that is not JSON (a free-form field holding a set) stays as it is, so writing it fails."""
        return self.model_dump(exclude_unset=True)

    @classmethod
    def upgrade(cls, stored: dict[str, Any]) -> dict[str, Any]:
        """Map a result stored by an earlier version onto this model's fields (renamed keys, changed shapes);
        called by `core.store.results.read_result` only when the stored result does not validate as it is.
        Keys no model field holds any more are dropped there afterwards. The base maps nothing."""
        return stored

    # ---- what generic readers take from a scored row (`report.rowfacts`) ----------------------------
    def row_label(self) -> str | None:
        """The protocol's own label of the row (gate decision, end reason, complete/incomplete, outcome)."""
        return None

    def row_score(self) -> float | None:
        """The protocol's number for the row; None where it has none."""
        return None

    def row_success(self) -> bool | None:
        """Whether the protocol's own success rule holds; None where the result does not say (reports then
        take a score of 1 as success)."""
        return None

    def row_prose(self) -> str | None:
        """One line explaining the row, for the detail column."""
        return None

    def row_seconds(self) -> float | None:
        """The agent's wall-clock seconds; None when unknown."""
        return None


class OpenResult(ProtocolResult):
    """The result of a protocol that declares no ``result_model`` (a plugin that builds plain dicts), and of
    a run whose protocol is not installed here: its keys are whatever that protocol chose, so they are kept
    as they are (extra keys allowed -- free-form by construction, the one place). Generic readers take the
    plain convention: ``outcome`` (or ``decision``) the label, ``score``, a ``success`` flag, ``reason`` the
    prose and ``agent.wall_seconds`` (or ``agent_seconds``) the time."""

    model_config = ConfigDict(extra="allow")

    def _extra(self, key: str) -> Any:
        return (self.model_extra or {}).get(key)

    def row_label(self) -> str | None:
        label = self._extra("outcome") or self._extra("decision")
        return None if label is None else str(label)

    def row_score(self) -> float | None:
        value = as_number(self._extra("score"))
        label = self.row_label()
        if value is None and label in ("success", "failure"):
            return 1.0 if label == "success" else 0.0
        return value

    def row_success(self) -> bool | None:
        flag = self._extra("success")
        return flag if isinstance(flag, bool) else None

    def row_prose(self) -> str | None:
        return None if self.reason is None else str(self.reason)

    def row_seconds(self) -> float | None:
        agent = self._extra("agent")
        seconds = as_number(agent.get("wall_seconds")) if isinstance(agent, dict) else None
        return seconds or as_number(self._extra("agent_seconds"))


def as_number(value: Any) -> float | None:
    """A stored number as a float (a bool counts as 0/1); None for anything else."""
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def result_model_of(protocol: object) -> type[ProtocolResult]:
    """The protocol's declared ``result_model``; `OpenResult` when it declares none."""
    model = getattr(protocol, "result_model", None)
    return model if isinstance(model, type) and issubclass(model, ProtocolResult) else OpenResult


def split_settings(agent_options: dict[str, Any], protocol: str, model: type[M]) -> tuple[M, dict[str, Any]]:
    """(the protocol's validated settings, the remaining agent options)."""
    prefix = f"{protocol}."
    mine = {k.removeprefix(prefix): v for k, v in agent_options.items() if k.startswith(prefix)}
    rest = {k: v for k, v in agent_options.items() if not k.startswith(prefix)}
    try:
        return model.model_validate(mine), rest
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "?"
        names = [prefix + name for name in model.model_fields]
        rule = ("unknown option; known: " + (", ".join(names) or "none") + did_you_mean(prefix + key, names)) \
            if first["type"] == "extra_forbidden" else str(first["msg"])
        raise InputError(rule, item=f"--agent-opt {prefix}{key}") from None


def check_settings(protocol: SuiteProtocol, agent_options: dict[str, Any]) -> float | None:
    """Validate the protocol's prefixed options (nothing when the protocol declares no `options_model`);
    returns the dollar budget per row they give (`ProtocolOptions.dollar_budget`), or None."""
    model = getattr(protocol, "options_model", None)
    if model is None:
        return None
    settings, _ = split_settings(agent_options, protocol.name, model)
    budget = getattr(settings, "dollar_budget", None)
    return budget() if callable(budget) else None
