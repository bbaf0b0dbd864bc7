"""Finding a suite (``demo:NAME`` or a path) and the protocol of a suite or of a run, including extra
protocols named in the environment.

``REQBENCH_EXTRA_PROTOCOLS=module:attr[,module:attr...]`` adds protocol objects beyond the bundled
ones (a user's own protocol package, or a test protocol); they are tried before the bundled ones.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.protocols.base import available_protocols, detect_protocol, load_protocol

EXTRA_ENV = "REQBENCH_EXTRA_PROTOCOLS"


def suite_spec(value: Path) -> Path:
    """Typer callback of every suite/task argument: ``demo:NAME[/TASK]`` is a bundled suite, found from any
    working directory (`reqbench.core.bundled`); any other value is a path, unchanged."""
    return resolve_suite(value)


def extra_protocols() -> list[Any]:
    out = []
    for spec in filter(None, (s.strip() for s in os.environ.get(EXTRA_ENV, "").split(","))):
        module_name, _, attr = spec.partition(":")
        try:
            out.append(getattr(importlib.import_module(module_name), attr or "PROTOCOL"))
        except (ImportError, AttributeError) as exc:
            raise InputError(f"cannot load protocol ({exc})", file=EXTRA_ENV, item=spec) from exc
    return out


def all_protocols() -> list[Any]:
    return [*extra_protocols(), *available_protocols()]


def protocol_for_suite(path: Path) -> Any:
    for proto in extra_protocols():
        if proto.detect(path):
            return proto
    return detect_protocol(path)


def protocol_by_name(name: str) -> Any:
    for proto in extra_protocols():
        if proto.name == name:
            return proto
    try:
        return load_protocol(name)
    except ModuleNotFoundError as exc:
        raise InputError("the run's protocol is not available in this installation", item=name) from exc
