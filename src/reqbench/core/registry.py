"""One registry for everything reqbench can be extended with: protocols, agents, judges, file schemas and
CLI command groups.

Each kind is a Python entry-point group (`GROUPS`). reqbench declares its own entries in its
``pyproject.toml`` exactly as a third-party package would, so a package adds a protocol, agent, judge or
schema by being installed -- no edit to reqbench, no environment variable. Wherever a name is expected,
a dotted path ``module:attribute`` works too ("any dotted path is a spec").

Entry values are imported only when asked for, so listing names is cheap; a name two installed packages
both claim is an error naming both, never a silent pick. The installed distributions are read once per
process for every kind together (`_installed`), not once per kind.
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Literal

from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

Kind = Literal["protocols", "agents", "judges", "schemas", "commands"]
GROUPS: dict[Kind, str] = {
    "protocols": "reqbench.protocols",
    "agents": "reqbench.agents",
    "judges": "reqbench.judges",
    "schemas": "reqbench.schemas",
    "commands": "reqbench.commands",
}
"""kind -> entry-point group. Values: a protocol object (``load(path)``/`SuiteProtocol`), an agent factory
(keyword options -> `Agent`), a judge factory (``arg`` -> `Judge`), a pydantic model, a typer app."""


@cache
def _installed() -> Any:
    """Every installed entry point (`importlib.metadata.entry_points`: one pass over the distributions on
    ``sys.path``, each name once); `_entries` selects a kind's group from it."""
    return entry_points()


@cache
def _entries(kind: Kind) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in _installed().select(group=GROUPS[kind]):
        other = found.get(ep.name)
        if other is not None and other.value != ep.value:
            raise InputError(f"{kind[:-1]} {ep.name!r} is registered twice ({other.value} and {ep.value}); "
                             "uninstall one of the packages", item=GROUPS[kind])
        found[ep.name] = ep
    return found


def names(kind: Kind) -> list[str]:
    """Registered names of `kind`, sorted."""
    return sorted(_entries(kind))


TEST_FIXTURE_KEYWORD = "reqbench-test-fixture"
"""A distribution whose keywords include this holds entries for tests only (reqbench's own test plugin,
``tests/plugin``): they load by name like any other, but are left out of what a user is shown."""
SHOW_TEST_FIXTURES = "REQBENCH_SHOW_TEST_FIXTURES"
"""Set to 1 to list test-fixture entries too (the test suite sets it)."""


def _is_test_fixture(entry: EntryPoint) -> bool:
    dist = getattr(entry, "dist", None)
    keywords = (dist.metadata.get("Keywords") or "") if dist is not None else ""
    return TEST_FIXTURE_KEYWORD in {k.strip() for k in keywords.split(",")}


def listed(kind: Kind) -> list[str]:
    """The names of `kind` a user is shown (``--help``, ``reqbench agents``, ``reqbench schema``, ``reqbench
    demo``): every registered name but a test fixture's (`TEST_FIXTURE_KEYWORD`), unless
    ``$REQBENCH_SHOW_TEST_FIXTURES`` is 1. Listed or not, every registered name loads."""
    if os.environ.get(SHOW_TEST_FIXTURES) == "1":
        return names(kind)
    return [name for name, entry in sorted(_entries(kind).items()) if not _is_test_fixture(entry)]


def entry_value(kind: Kind, name: str) -> str:
    """The ``module:attribute`` a registered name points at (for listings)."""
    return _entries(kind)[name].value


def load(kind: Kind, name: str) -> Any:
    """The object registered as `name` (or named by the dotted path ``module:attr``); `InputError` naming the
    known names when there is none."""
    entry = _entries(kind).get(name)
    if entry is not None:
        return entry.load()
    module_name, colon, attr = name.partition(":")
    if colon and "." in module_name and attr:
        try:
            return getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise InputError(f"cannot load {kind[:-1]} {name!r} ({exc})") from exc
    raise InputError(f"unknown {kind[:-1]} {name!r}{did_you_mean(name, names(kind))}; known: "
                     f"{', '.join(names(kind)) or 'none'}")


def load_all(kind: Kind) -> list[Any]:
    """Every registered object of `kind`, in name order.

    reqbench's own entries must load (a failure is a bug and raises). An installed plugin whose entry fails
    to import is skipped with a warning on stderr naming it and the error, so one broken package does not
    stop every command; it is never skipped silently."""
    return list(loadable(kind).values())


def _warn_broken(kind: Kind, name: str, value: str, exc: BaseException) -> None:
    print(f"warning: plugin {kind[:-1]} {name!r} ({value}) failed to load and is skipped: "
          f"{type(exc).__name__}: {exc}", file=sys.stderr)


def loadable(kind: Kind) -> dict[str, Any]:
    """name -> object for every entry of `kind` that loads (plugins that fail are warned about, as in
    `load_all`)."""
    out: dict[str, Any] = {}
    for name in names(kind):
        try:
            out[name] = load(kind, name)
        except Exception as exc:
            value = entry_value(kind, name)
            if value.startswith("reqbench."):
                raise
            _warn_broken(kind, name, value, exc)
    return out


def refresh() -> None:
    """Forget the cached entry lists (after installing a package into the running interpreter)."""
    _installed.cache_clear()
    _entries.cache_clear()
