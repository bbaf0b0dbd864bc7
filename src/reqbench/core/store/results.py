"""How a stored row result becomes its protocol's model again: the one point where results of older runs are
upgraded (`read_result`).

The store writes a result as its model's JSON (`ProtocolResult.stored`: the fields the protocol set) and
reads it back through the run's protocol ``result_model``. A result written by this version validates as
it is. One written by an earlier version may not: it may hold keys the model no longer declares, or a
field in an older shape. `read_result` then

1. lets the model map what it knows (`ProtocolResult.upgrade`: renamed keys, changed shapes),
2. drops the keys no field holds any more (they were never read by a report),
3. drops a field whose stored value still does not fit its declaration (it is read as unset),

and validates what remains, so an old run always opens and every result a reader sees is a checked model.
The stored JSON itself is never rewritten.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError

from reqbench.core.execute.settings import ProtocolResult

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
