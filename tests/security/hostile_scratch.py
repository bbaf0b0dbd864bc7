"""Hostile agents aimed at the host through their HOME and TMPDIR, and a look for what they left behind.

`PLANTER` is a Python agent (run by the `command` agent, or as a fake preset binary) that leaves, in its
HOME, its TMPDIR and every folder named on its command line after ``--chat-history-file`` (a preset's
state folder), a folder ``$MARK`` holding a 10,000-deep tree, 100,000 files, a FIFO and a link to the host
folder ``$HOST_DIR``. `FILLER` writes ``$FILL_BYTES`` to each target instead. `leftovers` finds anything
named ``$MARK`` in the places the host could keep an agent's scratch; `assert_nothing_left` also looks
through every ``reqbench-*`` entry that appeared since a listing taken before the step. Variables
``TARGETS`` (names of the variables holding the target folders), ``DEPTH`` and ``FILES`` tune them.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

TARGETS = r'''
import os, sys
targets = [os.environ[v] for v in os.environ.get("TARGETS", "HOME TMPDIR").split()]
if "--chat-history-file" in sys.argv:  # a preset's state folder
    targets.append(os.path.dirname(sys.argv[sys.argv.index("--chat-history-file") + 1]))
for target in targets:
    os.makedirs(target, exist_ok=True)
'''

PLANTER = TARGETS + r'''
DEPTH, FILES = int(os.environ.get("DEPTH", "10000")), int(os.environ.get("FILES", "100000"))
for target in targets:
    base = os.path.join(target, os.environ["MARK"])
    os.mkdir(base)
    os.chdir(base)
    for _ in range(DEPTH):
        os.mkdir("d")
        os.chdir("d")
    files = os.path.join(base, "files")
    os.mkdir(files)
    for i in range(FILES):
        os.close(os.open(os.path.join(files, str(i)), os.O_CREAT | os.O_WRONLY, 0o644))
    os.mkfifo(os.path.join(base, "fifo"))
    os.symlink(os.environ["HOST_DIR"], os.path.join(base, "host-link"))
    os.chmod(base, 0)  # and closed to everyone
print("planted", len(targets))
'''

FILLER = TARGETS + r'''
chunk = b"x" * (1 << 20)
for target in targets:
    written = 0
    try:
        with open(os.path.join(target, os.environ["MARK"]), "wb") as fh:
            while written < int(os.environ["FILL_BYTES"]):
                fh.write(chunk)
                written += len(chunk)
    except OSError as exc:
        print(target, "stopped at", written, exc.strerror, file=sys.stderr)
print("filled")
'''


def script(tmp_path: Path, name: str, body: str) -> Path:
    """`body` as an executable Python script (a `command` template or a fake preset binary)."""
    exe = tmp_path / "bin" / name
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(f"#!{sys.executable}\n{body}")
    exe.chmod(0o755)
    return exe


def host_places() -> list[Path]:
    """Folders where the host keeps (or once kept) agents' scratch: the temporary folders and the
    memory-backed scratch base."""
    places = {Path("/tmp"), Path(tempfile.gettempdir()), Path(f"/dev/shm/reqbench-{os.geteuid()}")}
    return [p for p in places if p.is_dir()]


def reqbench_entries() -> set[Path]:
    """The ``reqbench-*`` entries of the host's temporary folders and scratch base, now."""
    return {p for place in host_places() for p in place.glob("reqbench-*")}


def leftovers(mark: str, roots: set[Path] | None = None, depth: int = 4) -> list[Path]:
    """Entries named `mark` up to `depth` levels below `roots` (default: the ``reqbench-*`` entries of the
    temporary folders, and the scratch base); links are not followed."""
    found: list[Path] = []
    if roots is None:
        base = Path(f"/dev/shm/reqbench-{os.geteuid()}")
        roots = {*reqbench_entries(), *([base] if base.is_dir() else [])}
    stack = [(p, 0) for p in roots]
    while stack:
        folder, level = stack.pop()
        if folder.name == mark:
            found.append(folder)
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name == mark:
                found.append(Path(entry.path))
            elif level < depth and entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), level + 1))
    return found


def assert_nothing_left(mark: str, before: set[Path]) -> None:
    """Nothing named `mark` anywhere an agent's scratch could lie, and no ``reqbench-*`` entry that appeared
    since the listing `before` holds it (entries other processes of the machine make come and go)."""
    assert leftovers(mark) == []
    assert leftovers(mark, reqbench_entries() - before, depth=8) == []
