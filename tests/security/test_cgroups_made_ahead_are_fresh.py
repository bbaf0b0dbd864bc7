"""Red team: cgroups made ahead of their launch (`core.sandbox.group_supply`) are as fresh as ones made on
the spot. A tree that filled its memory group, left a process behind or wrote into its group's files
hands nothing to the next tree: every launch gets a group of its own that no process has been in, with
no memory charged, sealed before the launch, and removed once its tree is gone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core import idle
from reqbench.core.sandbox import cgroups, group_supply, launch, run_sandboxed
from reqbench.core.sandbox.limits import TreeLimits

FILL = ("head -c 30000000 /dev/zero > \"$TMPDIR/fill\"; "  # 30 MB of tmpfs charged to the memory group
        "(sleep 30 &) ; "  # a process left behind
        "for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do echo 1 > \"$f\"; done 2>/dev/null; "
        "echo done")


def _usage(group: cgroups.Group) -> int | None:
    """Memory ever charged to `group` (v1 high-water mark, v2 peak); None where it has no memory controller."""
    if "memory" not in group.controllers:
        return None
    for name in ("memory.max_usage_in_bytes", "memory.peak"):
        path = group.path / name
        if path.exists():
            return int(path.read_text())
    return None


@pytest.fixture
def handed_out(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, object]]]:
    """Each group as the launcher gets it: its path, members, memory charged and owner at that moment."""
    if not cgroups.parents():
        pytest.skip("no writable cgroup on this machine")
    group_supply.drain()
    seen: list[dict[str, object]] = []
    create = TreeLimits.create

    def recording(memory_bytes: int | None = None) -> TreeLimits:
        tree = create(memory_bytes)
        for g in tree.groups:
            seen.append({"path": g.path, "members": g.procs.read_text().split(), "usage": _usage(g),
                         "owner": g.path.stat().st_uid})
        return tree

    monkeypatch.setattr(launch.TreeLimits, "create", staticmethod(recording))
    yield seen
    group_supply.drain()


def test_each_launch_gets_a_fresh_sealed_group_and_nothing_carries_over(tmp_path: Path,
                                                                        handed_out: list[dict[str, object]]) -> None:
    with idle.working():  # as in a row: chores run only while the launches wait
        results = [run_sandboxed(FILL, tmp_path, timeout=60, memory_bytes=512 * 1024**2) for _ in range(4)]
    assert all(r.stdout.strip().endswith(b"done") for r in results), results
    paths = [g["path"] for g in handed_out]
    assert len(paths) == len(set(paths)) >= 4  # never the same group twice
    for group in handed_out:
        assert group["members"] == []  # no process had joined it
        assert group["usage"] in (None, 0)  # no memory charged: not a group a tree used
        if os.geteuid() == 0:
            assert group["owner"] == cgroups.SEALED_ID  # sealed before the launch
    assert len(group_supply.in_stock()) >= 1  # the next launch's groups are waiting, made ahead
    group_supply.settle()
    assert not any(Path(str(p)).exists() for p in paths)  # every used group removed, its members gone


def test_concurrent_launches_each_get_their_own_fresh_group(tmp_path: Path,
                                                            handed_out: list[dict[str, object]]) -> None:
    """Two hostile trees at a time, as rows at concurrency 2: the stock then holds several groups per
    parent and caps, and each is still handed out once, unused, uncharged and sealed."""
    from concurrent.futures import ThreadPoolExecutor

    def hostile(n: int) -> bytes:
        folder = tmp_path / f"launch-{n}"
        folder.mkdir()
        with idle.working():
            return run_sandboxed(FILL, folder, timeout=60, memory_bytes=512 * 1024**2).stdout

    with ThreadPoolExecutor(2) as pool:
        outputs = list(pool.map(hostile, range(6)))
    assert all(out.strip().endswith(b"done") for out in outputs), outputs
    paths = [g["path"] for g in handed_out]
    assert len(paths) == len(set(paths)) >= 6
    for group in handed_out:
        assert group["members"] == [] and group["usage"] in (None, 0)
        if os.geteuid() == 0:
            assert group["owner"] == cgroups.SEALED_ID
    group_supply.settle()
    assert not any(Path(str(p)).exists() for p in paths)
