"""Finding a suite (``demo:NAME`` or a path) and the protocol of a suite or of a run.

Protocols come from the registry (`reqbench.core.registry`, entry-point group ``reqbench.protocols``): a
package that registers one there is found here with no change to reqbench.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml
from reqbench.protocols.base import SuiteProtocol, available_protocols, detect_protocol, load_protocol


def suite_spec(value: Path) -> Path:
    """Typer callback of every suite/task argument: ``demo:NAME[/TASK]`` is a bundled suite, found from any
    working directory (`reqbench.core.bundled`); any other value is a path, unchanged."""
    return resolve_suite(value)


def all_protocols() -> list[SuiteProtocol]:
    return available_protocols()


MARKERS = ("suite.yaml", "family.yaml", "instance.yaml", "case.yaml")


def marker_problem(path: Path) -> InputError | None:
    """Why a suite's marker file names no known protocol, in plain words with line and column: invalid
    UTF-8, a YAML syntax error, a missing or unknown ``protocol:`` (listing the known ones)."""

    root = Path(path)
    marker = next((root / m for m in MARKERS if (root / m).is_file()), None)
    if marker is None:
        return None
    try:
        data = read_yaml(marker)
    except InputError as exc:
        return exc
    known = [p.name for p in all_protocols()]
    name = data.get("protocol") if isinstance(data, dict) else None
    if name is None:  # protocols may recognise their own files without it (detection decides)
        return None
    if name not in known:
        return InputError(f"unknown protocol {name!r}; known protocols: {', '.join(known)}", file=str(marker))
    return None


def protocol_for_suite(path: Path) -> SuiteProtocol:
    problem = marker_problem(path)
    if problem is not None:
        raise problem
    return detect_protocol(path)


def protocol_by_name(name: str) -> SuiteProtocol:
    try:
        return load_protocol(name)
    except InputError as exc:
        raise InputError(f"the run's protocol is not available in this installation ({exc})",
                         item=name) from exc
