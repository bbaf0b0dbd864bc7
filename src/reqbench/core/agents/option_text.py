"""``--agent-opt KEY=VALUE`` reads VALUE as JSON when it parses (`option_value`), so ``true``, ``5`` and ``[1]``
arrive typed.
For an option its factory declares as a string only (``template: str | list[str] | None``), a plain word
that happens to parse (``template=true``, ``model=5``) must stay the text the user typed: `as_declared`
turns such a JSON scalar back into its JSON text before the factory sees it. Options the factory types as
numbers or booleans, or does not declare at all, are left as they are.
"""

from __future__ import annotations

import json
import math
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from reqbench.core.errors import InputError

_SCALARS = (bool, int, float)
_WHOLE = re.compile(r"[+-]?[0-9]+")


def option_value(text: str) -> Any:
    """An option's VALUE as typed on a command line: its JSON value when it parses, else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def option_number(value: Any, *, item: str, unit: str = "", minimum: float = 0.0, inclusive: bool = False,
                  integer: bool = False, alternative: str = "") -> int | float:
    """`value` (a number or its text) as a finite number above `minimum` (at least it, with `inclusive`), a
    whole one with `integer` (then an int, exactly as given); otherwise one `InputError` naming `item`. NaN
    and infinity are refused: JSON option values may spell them (``NaN``, ``Infinity``), and neither is a
    limit. `alternative`: what else the option takes (e.g. ``"none"``), said in the message."""
    other = f" or {alternative}" if alternative else ""
    of = f" of {unit}" if unit else ""
    kind = "a whole number" if integer else "a number"
    number: int | float
    try:
        if isinstance(value, bool):
            raise TypeError(value)
        text = value.strip() if isinstance(value, str) else None
        if integer and (isinstance(value, int) or (text is not None and _WHOLE.fullmatch(text))):
            number = int(value)  # exactly: a seed of 20 digits stays those digits
        else:
            number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"must be {kind}{of}{other}", item=item) from None
    if not math.isfinite(number):
        raise InputError(f"must be a finite number{of}{other}", item=item)
    if integer and not float(number).is_integer():
        raise InputError(f"must be {kind}{of}{other}", item=item)
    if number < minimum or (number == minimum and not inclusive):
        bound = ("positive" if minimum == 0 and not inclusive else
                 f"at least {minimum:g}" if inclusive else f"above {minimum:g}")
        raise InputError(f"must be {bound}{f' (or {alternative})' if alternative else ''}", item=item)
    return int(number) if integer else float(number)


SAMPLING_RULES: dict[str, dict[str, Any]] = {
    "temperature": {"inclusive": True},  # a finite number >= 0
    "seed": {"minimum": -2**63, "inclusive": True, "integer": True},  # any whole number
}
"""`option_number`'s rules for the sampling settings a model takes (the ``llm`` agent's options, a judge's
``llm:MODEL,temperature=T,seed=S``)."""


def positive_number(value: Any, *, item: str, unit: str, alternative: str = "") -> float:
    """`option_number` above 0: a limit such as a timeout or a cost cap."""
    return float(option_number(value, item=item, unit=unit, alternative=alternative))


def _accepted(hint: Any) -> tuple[type, ...]:
    """The plain types a hint admits (``str | list[str] | None`` -> ``(str, list, NoneType)``)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(t for arg in typing.get_args(hint) for t in _accepted(arg))
    origin = typing.get_origin(hint)
    if isinstance(origin, type):
        return (origin,)
    return (hint,) if isinstance(hint, type) else (object,)


def _fits(value: Any, accepted: tuple[type, ...]) -> bool:
    if object in accepted:
        return True
    if isinstance(value, bool):
        return bool in accepted
    if isinstance(value, int):
        return int in accepted or float in accepted
    return isinstance(value, accepted)


def as_declared(factory: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    """`options` with every JSON scalar given to a string-typed parameter of `factory` (one that does not
    also take the scalar's own type) written back as the JSON text it was parsed from."""
    try:
        hints = typing.get_type_hints(factory)
    except Exception:  # a factory whose annotations cannot be resolved: nothing to go by
        return options
    out = dict(options)
    for key, value in options.items():
        if key not in hints or not isinstance(value, _SCALARS):
            continue
        accepted = _accepted(hints[key])
        if str in accepted and not _fits(value, accepted):
            out[key] = json.dumps(value)
    return out
