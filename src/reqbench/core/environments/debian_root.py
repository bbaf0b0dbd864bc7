"""The ``debian`` kind: a root file system made by mmdebstrap from the host's apt mirror (or the spec's)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from reqbench.core.environments.layers import run_logged
from reqbench.core.environments.model import DebianSpec
from reqbench.core.errors import InputError

_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
_DEFAULT_MIRROR = "http://deb.debian.org/debian"


def host_mirror() -> str:
    """The first Debian mirror of the host's apt sources (deb822 ``URIs:`` or one-line ``deb URL``)."""
    files: list[Path] = []
    for source in _SOURCES:
        if source.is_dir():
            files += sorted(p for p in source.iterdir() if p.suffix in (".list", ".sources"))
        elif source.is_file():
            files.append(source)
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in re.finditer(r"^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, re.MULTILINE):
            url = match.group(1)
            if "security" not in url:
                return url
    return _DEFAULT_MIRROR


def build_debian(spec: DebianSpec, target: Path, *, origin: str, log: Path) -> None:
    """mmdebstrap `spec` into `target` (which must not exist yet)."""
    exe = shutil.which("mmdebstrap")
    if exe is None:
        raise InputError("the debian kind needs mmdebstrap, which is not installed (apt-get install mmdebstrap)",
                         file=origin, item="environment.debian")
    argv = [exe, "--quiet", f"--variant={spec.variant}", "--mode=root", "--format=directory"]
    if spec.packages:
        argv.append("--include=" + ",".join(spec.packages))
    argv += [spec.suite, str(target), spec.mirror or host_mirror()]
    run_logged(argv, what="environment.debian", log=log)
