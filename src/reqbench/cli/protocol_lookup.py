"""Finding a suite (``demo:NAME`` or a path) and the protocol of a suite or of a run.

Protocols come from the registry (`reqbench.core.registry`, entry-point group ``reqbench.protocols``): a
package that registers one there is found here with no change to reqbench.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.protocols.base import available_protocols, detect_protocol, load_protocol


def suite_spec(value: Path) -> Path:
    """Typer callback of every suite/task argument: ``demo:NAME[/TASK]`` is a bundled suite, found from any
    working directory (`reqbench.core.bundled`); any other value is a path, unchanged."""
    return resolve_suite(value)


def all_protocols() -> list[Any]:
    return available_protocols()


def protocol_for_suite(path: Path) -> Any:
    return detect_protocol(path)


def protocol_by_name(name: str) -> Any:
    try:
        return load_protocol(name)
    except InputError as exc:
        raise InputError(f"the run's protocol is not available in this installation ({exc})",
                         item=name) from exc
