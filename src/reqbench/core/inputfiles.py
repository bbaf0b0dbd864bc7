"""Reading the YAML files people write (suites, families, instances, cases, personas) and turning every
way they can be wrong into one `InputError` in plain words.

One module so that every suite and file format reports the same problem the same way: invalid UTF-8 and
YAML syntax errors with line and column, an unknown key named with a did-you-mean drawn from the model's
own fields ("unknown key 'familes'; did you mean 'families'?", `core.suggest`), a value of the wrong type
with a hint (a bare ``null`` YAML read as no value is named as such, any other value is shown), any other
schema problem as ``file: key.path: rule``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from reqbench.core.errors import InputError
from reqbench.core.suggest import close_matches

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: same rules, faster
M = TypeVar("M", bound=BaseModel)


def decode_utf8(raw: bytes, source: str) -> str:
    """`raw` as text; invalid UTF-8 is an `InputError` with the line and column of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"not valid UTF-8 at line {line}, column {column} (byte {exc.start}); save the "
                         "file as UTF-8", file=source) from None


def parse_yaml(text: str, source: str) -> Any:
    """YAML text -> data; a syntax error is an `InputError` with its line and column (1-based)."""
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"YAML syntax error{where}: {problem}", file=source) from None


def read_yaml(path: Path) -> Any:
    """Read and parse one YAML file (`InputError` when it cannot be read, decoded or parsed)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file does not exist", file=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", file=str(path)) from None
    return parse_yaml(decode_utf8(raw, str(path)), str(path))


def validate(model: type[M], data: Any, source: str) -> M:
    """`data` as a `model`, or the first problem as an `InputError` (see `problem`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise problem(exc, model, source) from None


def problem(exc: ValidationError, model: type[BaseModel], source: str) -> InputError:
    """The first error of `exc` in plain words: ``file: where: rule`` (see `describe`)."""
    where, rule = describe(exc, model)
    return InputError(rule, file=source, item=".".join(str(p) for p in where) or None)


def describe(exc: ValidationError, model: type[BaseModel]) -> tuple[tuple[str | int, ...], str]:
    """``(where, rule)`` of the first error of `exc`: an unknown key names the key and the closest known one
    (``where`` is its parent), a missing key its name, a type error its value (`rule_of`). An unknown key is
    reported before anything else: a misspelt key also makes the intended one missing, and the misspelling
    is the problem to fix."""
    errors = exc.errors()
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(err["loc"])
    if err["type"] == "extra_forbidden" and loc:
        return loc[:-1], unknown_key(str(loc[-1]), _known_keys(model, loc[:-1]))
    if err["type"] == "missing" and loc:
        return loc[:-1], f"missing required key {loc[-1]!r}"
    return loc, rule_of(err)


def unknown_key(key: str, known: Iterable[str]) -> str:
    """``unknown key 'familes'; did you mean 'families'?`` (the closest known keys, `core.suggest`), else the
    known keys."""
    names = sorted(known)
    close = close_matches(key, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else (f" (known keys: {', '.join(names)})" if names else "")
    return f"unknown key {key!r}{hint}"


NULL_HINT = ("YAML read an unquoted null (or ~, or nothing after the colon) as no value; quote it ('null') if "
             "you mean the word")


def rule_of(err: Mapping[str, Any]) -> str:
    """A validation error's rule with a hint: a value YAML read as null says so, any other type error names
    the value it got."""
    msg = str(err["msg"]).removeprefix("Value error, ")
    kind = str(err.get("type", ""))
    if not (kind.endswith("_type") or kind.endswith("_parsing")) or "input" not in err:
        return msg
    if err["input"] is None:
        return f"{msg}; {NULL_HINT}"
    shown = repr(err["input"])
    return f"{msg} (got {shown if len(shown) <= 60 else shown[:57] + '...'})"


def _leaves(annotation: Any) -> list[Any]:
    """The concrete types inside Optional/Union/Annotated."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _leaves(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [t for arg in typing.get_args(annotation) for t in _leaves(arg)]
    return [annotation]


def _step(annotation: Any, key: Any) -> list[Any]:
    """The types one location step (`key`) below `annotation`."""
    out: list[Any] = []
    for leaf in _leaves(annotation):
        origin, args = typing.get_origin(leaf), typing.get_args(leaf)
        if isinstance(leaf, type) and issubclass(leaf, BaseModel):
            field = leaf.model_fields.get(str(key)) or next(
                (f for f in leaf.model_fields.values() if f.alias == key), None)
            if field is not None:
                out.append(field.annotation)
        elif origin in (list, tuple, set, frozenset) and isinstance(key, int) and args:
            out.append(args[0])
        elif origin is dict and len(args) == 2:
            out.append(args[1])
    return out


def _known_keys(model: type[BaseModel], parent: tuple[Any, ...]) -> set[str]:
    """The keys the object at `parent` may hold (the union over the models it can be)."""
    current: list[Any] = [model]
    for key in parent:
        current = [t for ann in current for t in _step(ann, key)]
    keys: set[str] = set()
    for ann in current:
        for leaf in _leaves(ann):
            if isinstance(leaf, type) and issubclass(leaf, BaseModel):
                keys |= {f.alias or name for name, f in leaf.model_fields.items()}
    return keys
