"""Finding a suite (``demo:NAME`` or a path) and the protocol of a suite or of a run.

Protocols come from the registry (`reqbench.core.registry`, entry-point group ``reqbench.protocols``): a
package that registers one there is found here with no change to reqbench.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.protocols.base import SuiteProtocol, available_protocols, load_protocol
from reqbench.protocols.lookup import MARKERS, marker_problem, protocol_for_suite

__all__ = ["MARKERS", "all_protocols", "marker_problem", "protocol_by_name", "protocol_for_suite", "suite_spec"]


def suite_spec(value: Path) -> Path:
    """Typer callback of every suite/task argument: ``demo:NAME[/TASK]`` is a bundled suite, found from any
    working directory (`reqbench.core.bundled`); any other value is a path, unchanged."""
    return resolve_suite(value)


def all_protocols() -> list[SuiteProtocol]:
    return available_protocols()


def protocol_by_name(name: str) -> SuiteProtocol:
    try:
        return load_protocol(name)
    except InputError as exc:
        raise InputError(f"the run's protocol is not available in this installation ({exc})",
                         item=name) from exc
