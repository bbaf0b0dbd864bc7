"""The suites bundled with reqbench (package data under ``reqbench/examples``) and the ``demo:`` suite spec.

``bundled_suite("specpath")`` is the installed directory of a bundled suite (or of one task inside it:
``bundled_suite("specpath/slugkit")``), found through `importlib.resources`, so it works from any working
directory and in a plain ``pip install reqbench``. ``resolve_suite("demo:specpath")`` turns the command-line
spec into that directory; any other argument is an ordinary path and is returned unchanged.

Bundled suites contain their answers (reference patches, hidden tests): callers locate them, never print
their contents.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path, PurePosixPath

from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

BUNDLED_PREFIX = "demo:"
_PACKAGE = "reqbench"
_FOLDER = "examples"


def bundled_root() -> Path:
    """The directory holding every bundled suite (``.../site-packages/reqbench/examples``)."""
    return Path(str(resources.files(_PACKAGE).joinpath(_FOLDER)))


def bundled_names() -> list[str]:
    """The bundled suites, one per protocol folder (e.g. ``journey``, ``pace``, ``specpath``, ``takeover``)."""
    root = bundled_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) \
        if root.is_dir() else []


def bundled_suite(name: str) -> Path:
    """The directory of bundled suite `name` (``specpath``) or of a task in it (``specpath/slugkit``).

    The path is returned whether or not it exists (`reqbench demo` reports a missing suite as a failure);
    a name that is empty, absolute or climbs out of the bundle (``..``) is an InputError.
    """
    parts = PurePosixPath(name.strip()).parts
    if not parts or parts[0] == "/" or any(part in ("..", ".") for part in parts):
        known = ", ".join(bundled_names()) or "none installed"
        raise InputError(f"expected a bundled suite name ({known})", item=f"{BUNDLED_PREFIX}{name}")
    return bundled_root().joinpath(*parts)


def as_spec(path: Path) -> str:
    """How a user names `path` on the command line: ``demo:NAME/TASK`` inside the bundle, else the path."""
    root = bundled_root().resolve()
    try:
        inside = Path(path).resolve().relative_to(root)
    except ValueError:
        return str(path)
    return f"{BUNDLED_PREFIX}{inside.as_posix()}"


def resolve_suite(spec: str | Path) -> Path:
    """``demo:NAME[/TASK]`` -> the bundled directory (an InputError naming the bundled suites when there is
    no such suite); anything else -> the path as given."""
    text = str(spec)
    if not text.startswith(BUNDLED_PREFIX):
        return Path(spec)
    name = text[len(BUNDLED_PREFIX):]
    path = bundled_suite(name)
    if not path.is_dir():
        known = ", ".join(f"{BUNDLED_PREFIX}{n}" for n in bundled_names()) or "none installed"
        parent = path.parent if "/" in name.strip("/") else bundled_root()
        nearby = [as_spec(p) for p in parent.iterdir() if p.is_dir()] if parent.is_dir() else []
        raise InputError(f"no such bundled suite{did_you_mean(text, nearby)} (bundled: {known})", item=text)
    return path
