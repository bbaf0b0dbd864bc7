"""A row's result as its protocol's model: `ProtocolResult` (the base every protocol's ``result_model``
extends, with what generic readers take of a row), `OpenResult` (a result no model declares), and
`read_result`, the one point where a stored result becomes its model again.

The store writes a result as its model's fields (`ProtocolResult.stored`: the fields the protocol set) and
reads it back through the run's protocol ``result_model`` (`RunStore.result_model`). A result written by
this version validates as it is. One written by an earlier version may not: it may hold keys the model no
longer declares, or a field in an older shape. `read_result` then

1. lets the model map what it knows (`ProtocolResult.upgrade`: renamed keys, changed shapes),
2. drops the keys no field holds any more (no report read them),
3. drops a field whose stored value still does not fit its declaration (it is read as unset),

and validates what remains, so an old run always opens and every result a reader sees is a checked model.
The stored JSON itself is never rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:
    from reqbench.core.execute.suite import SuiteProtocol


class ProtocolResult(BaseModel):
    """Base of every protocol's row result (`RowOutcome.result`): a protocol builds an instance of its own
    subclass (its ``result_model``), the runner carries it, the store writes it and reads it back through the
    same model (`read_result`). Undeclared keys are refused, so every field a protocol stores is
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
        through `read_result` (old shapes upgraded there, never left unchecked)."""
        if isinstance(result, cls):
            return result
        raw = result.stored() if isinstance(result, ProtocolResult) else dict(result)
        return read_result(cls, raw)

    def stored(self) -> dict[str, Any]:
        """The result as the store writes it (with `json.dumps`): the fields the protocol set, nothing else. A
        value that is not JSON (a free-form field holding a set) stays as it is, so writing it fails."""
        return self.model_dump(exclude_unset=True)

    @classmethod
    def upgrade(cls, stored: dict[str, Any]) -> dict[str, Any]:
        """Map a result stored by an earlier version onto this model's fields (renamed keys, changed shapes);
        called by `read_result` only when the stored result does not validate as it is.
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


def result_model_of(protocol: SuiteProtocol) -> type[ProtocolResult]:
    """The protocol's declared ``result_model``; `OpenResult` when it declares none."""
    return protocol.result_model or OpenResult


R = TypeVar("R", bound=ProtocolResult)


def read_result(model: type[R], stored: dict[str, Any]) -> R:
    """`stored` (a result as the store holds it) as an instance of `model`, upgraded when it does not fit
    (see the module docstring)."""
    try:
        return model.model_validate(stored)
    except ValidationError:
        pass
    upgraded = dict(model.upgrade(dict(stored)))
    if model.model_config.get("extra") != "allow":
        known = set(model.model_fields)
        upgraded = {k: v for k, v in upgraded.items() if k in known}
    for _ in range(len(upgraded) + 1):
        try:
            return model.model_validate(upgraded)
        except ValidationError as exc:
            bad = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
            if not bad & set(upgraded):
                raise
            upgraded = {k: v for k, v in upgraded.items() if k not in bad}
    return model.model_validate(upgraded)
