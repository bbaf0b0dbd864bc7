"""The caps of a sandboxed tree: sizes, where cgroups are made (v1 and v2), the one-exec prefix and its units."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.sandbox import cgroups, group_supply, limits
from reqbench.core.sandbox.cgroups import Mount, chain, find_parents, memory_ceiling, parse_mounts, parse_own
from reqbench.core.sandbox.limits import TreeLimits, format_size, parse_size

MOUNTS = """\
sysfs /sys sysfs rw,nosuid 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
cgroup /sys/fs/cgroup/odd\\040name cgroup rw,pids 0 0
"""
OWN = "12:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n1:name=systemd:/s\n0::/user.slice/u\n"


def test_sizes_parse_with_binary_suffixes_and_print_back() -> None:
    assert parse_size("209715200", item="x") == 209_715_200
    assert parse_size("200M", item="x") == 200 * 1024**2
    assert parse_size("8g", item="x") == 8 * 1024**3
    assert parse_size(" 1GiB ", item="x") == 1024**3
    assert parse_size("0", item="x") == 0
    with pytest.raises(InputError, match=r"\$REQBENCH_SANDBOX_MEMORY: '1\.5G' is not a size"):
        parse_size("1.5G", item="$REQBENCH_SANDBOX_MEMORY")
    assert format_size(200 * 1024**2) == "200 MiB"
    assert format_size(8 * 1024**3) == "8 GiB"
    assert format_size(1536 * 1024**2) == "1.5 GiB"
    assert format_size(512) == "512 bytes"


def test_mounts_and_own_cgroups_are_read_from_the_proc_files() -> None:
    assert parse_mounts(MOUNTS) == [
        Mount(Path("/sys/fs/cgroup/memory"), 1, frozenset({"rw", "relatime", "memory"})),
        Mount(Path("/sys/fs/cgroup/cpu,cpuacct"), 1, frozenset({"rw", "cpu", "cpuacct"})),
        Mount(Path("/sys/fs/cgroup/unified"), 2, frozenset({"rw", "relatime"})),
        Mount(Path("/sys/fs/cgroup/odd name"), 1, frozenset({"rw", "pids"}))]
    assert parse_own(OWN) == {"pids": "/", "memory": "/process_api/abc", "cpu": "/x", "cpuacct": "/x",
                              "name=systemd": "/s", "": "/user.slice/u"}
    assert chain(Path("/m"), "/process_api/abc") == [Path("/m/process_api/abc"), Path("/m/process_api"),
                                                     Path("/m")]
    assert chain(Path("/m"), "/") == [Path("/m")]


def test_v1_groups_go_below_the_harness_own_cgroup(tmp_path: Path) -> None:
    memory, pids = tmp_path / "memory", tmp_path / "pids"
    (memory / "process_api" / "abc").mkdir(parents=True)
    pids.mkdir()
    mounts = [Mount(memory, 1, frozenset({"memory"})), Mount(pids, 1, frozenset({"pids"}))]
    found = find_parents(mounts, {"memory": "/process_api/abc", "pids": "/gone"}, ("pids", "memory"))
    assert [(p.path, p.version, p.controllers) for p in found] == [
        (pids, 1, ("pids",)),  # its own cgroup does not exist here: the nearest ancestor that does
        (memory / "process_api" / "abc", 1, ("memory",))]


def test_v2_controllers_share_one_group_where_the_parent_enables_them(tmp_path: Path) -> None:
    root = tmp_path / "v2"
    own = root / "user.slice" / "session"
    own.mkdir(parents=True)
    (own / "cgroup.subtree_control").write_text("")  # a leaf with processes enables nothing
    (root / "user.slice" / "cgroup.subtree_control").write_text("cpu memory pids\n")
    (root / "cgroup.subtree_control").write_text("cpu io memory pids\n")
    found = find_parents([Mount(root, 2, frozenset())], {"": "/user.slice/session"}, ("pids", "memory"))
    assert [(p.path, p.version, p.controllers) for p in found] == [(root / "user.slice", 2, ("pids", "memory"))]
    (root / "user.slice" / "cgroup.subtree_control").write_text("memory\n")
    found = find_parents([Mount(root, 2, frozenset())], {"": "/user.slice/session"}, ("pids", "memory"))
    assert [(p.path, p.controllers) for p in found] == [(root / "user.slice", ("memory",))]


def test_the_memory_ceiling_is_the_lowest_limit_on_the_way_up(tmp_path: Path) -> None:
    leaf = tmp_path / "a" / "b"
    leaf.mkdir(parents=True)
    (tmp_path / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    (tmp_path / "a" / "memory.limit_in_bytes").write_text("4294967296\n")
    (leaf / "memory.limit_in_bytes").write_text("6442450944\n")
    assert memory_ceiling(cgroups.Parent(leaf, 1, ("memory",), tmp_path)) == 4 * 1024**3
    (tmp_path / "a" / "memory.limit_in_bytes").unlink()
    assert memory_ceiling(cgroups.Parent(tmp_path / "a", 1, ("memory",), tmp_path)) is None
    (leaf / "memory.max").write_text("max\n")
    assert memory_ceiling(cgroups.Parent(leaf, 2, ("memory",), tmp_path)) is None


@pytest.fixture
def fresh_default() -> Iterator[None]:
    limits.default_memory.cache_clear()
    yield
    limits.default_memory.cache_clear()


@pytest.mark.usefixtures("fresh_default")
def test_default_cap_comes_from_the_knob_else_a_share_of_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_SANDBOX_MEMORY", "300M")
    assert limits.default_memory() == 300 * 1024**2
    limits.default_memory.cache_clear()
    monkeypatch.delenv("REQBENCH_SANDBOX_MEMORY")
    assert limits.default_memory() <= min(8 * 1024**3, limits.physical_memory() // 2)
    limits.default_memory.cache_clear()
    monkeypatch.setenv("REQBENCH_SANDBOX_MEMORY", "lots")
    with pytest.raises(InputError, match="REQBENCH_SANDBOX_MEMORY"):
        limits.default_memory()


def _limits_under(prefix: list[str]) -> dict[str, str]:
    """/proc/self/limits of a process started behind `prefix` (name -> "soft hard")."""
    out = subprocess.run([*prefix, "cat", "/proc/self/limits"], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines()[1:]:
        name, values = line[:26].strip(), line[26:].split()
        rows[name] = f"{values[0]} {values[1]}"
    return rows


def test_the_prefix_is_one_shell_whose_ulimit_units_give_the_byte_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 5 * 1024**3 + 512)
    fallback = TreeLimits(memory_bytes=300 * 1024**2, memory_by="rlimit").prefix()
    assert fallback[:2] == ["/bin/sh", "-c"] and len(fallback) == 4  # one exec, then "$@"
    rows = _limits_under(fallback)
    assert rows["Max file size"] == f"{5 * 1024**3 + 512} {5 * 1024**3 + 512}"  # ulimit -f: 512-byte blocks
    assert rows["Max core file size"] == "0 0"
    assert rows["Max data size"] == f"{300 * 1024**2} {300 * 1024**2}"  # ulimit -d: KiB
    rows = _limits_under(TreeLimits(memory_bytes=300 * 1024**2, memory_by="cgroup").prefix())
    assert rows["Max data size"] == "unlimited unlimited"  # the cgroup caps the tree: no per-process cap


@pytest.mark.skipif(shutil.which("java") is None, reason="no java here")
def test_a_jvm_runs_under_the_rlimit_fallback_where_an_address_space_cap_breaks_it(tmp_path: Path) -> None:
    """Why RLIMIT_DATA and not RLIMIT_AS: the JVM reserves GiBs of address space it never touches."""
    fallback = TreeLimits(memory_bytes=1024**3, memory_by="rlimit").prefix()
    assert subprocess.run([*fallback, "java", "-version"], capture_output=True, cwd=tmp_path).returncode == 0
    assert subprocess.run(["/bin/sh", "-c", f'ulimit -v {2 * 1024**2} && exec "$@"', "sh", "java", "-version"],
                          capture_output=True, cwd=tmp_path).returncode != 0


def test_a_tree_without_cgroups_still_joins_nothing_and_execs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "parents", lambda: ())
    tree = TreeLimits.create(200 * 1024**2)
    assert (tree.groups, tree.memory_by, tree.memory_bytes) == ([], "rlimit", 200 * 1024**2)
    assert "cgroup.procs" not in tree.prefix()[2]
    assert TreeLimits.create(0).memory_by is None
    with pytest.raises(InputError, match="not a memory cap"):
        TreeLimits.create(-1)


def test_a_real_group_carries_the_caps_is_sealed_and_removed() -> None:
    tree = TreeLimits.create(256 * 1024**2)
    if not tree.groups:
        pytest.skip("no writable cgroup on this machine")
    try:
        for group in tree.groups:
            assert group.path.is_dir()
            if "pids" in group.controllers:
                assert (group.path / "pids.max").read_text().strip() == str(limits.MAX_PIDS)
            if "memory" in group.controllers:
                name = "memory.limit_in_bytes" if group.version == 1 else "memory.max"
                assert int((group.path / name).read_text()) == 256 * 1024**2
            if os.geteuid() == 0:
                assert group.path.stat().st_uid == cgroups.SEALED_ID
                writable = [f for f in group.path.iterdir() if f.stat().st_mode & 0o222]
                assert group.path / "cgroup.procs" in writable
                assert {f.name: f.stat().st_uid for f in writable} == {f.name: cgroups.SEALED_ID for f in writable}
        assert tree.memory_by == ("cgroup" if any("memory" in g.controllers for g in tree.groups) else "rlimit")
    finally:
        paths = [g.path for g in tree.groups]
        assert tree.end() is False
    group_supply.settle()  # removed in the background
    assert not any(p.exists() for p in paths)
    assert tree.end() is False  # idempotent


def test_groups_a_killed_harness_left_are_swept_but_live_and_recent_ones_kept() -> None:
    found = cgroups.parents()
    if not found:
        pytest.skip("no writable cgroup on this machine")
    parent = found[0]
    stale, recent, busy = (cgroups.Group.make(parent, pids=64, memory=None) for _ in range(3))
    assert stale is not None and recent is not None and busy is not None
    member = subprocess.Popen(["sleep", "30"])
    try:
        (busy.path / "cgroup.procs").write_text(str(member.pid))
        past = time.time() - cgroups.STALE_SECONDS - 60  # as if made eleven minutes ago
        for group in (stale, busy):
            os.utime(group.path, (past, past))
        removed = cgroups.sweep_stale(parent)  # other processes' fresh groups are too young to touch
        assert stale.path.name in removed and not stale.path.exists()
        assert recent.path.exists() and busy.path.exists()  # too young; a member still runs
        assert recent.path.name not in removed and busy.path.name not in removed
    finally:
        member.kill()
        member.wait()
        for group in (stale, recent, busy):
            group.remove()


@pytest.mark.parametrize(("variable", "value", "rule"), [
    ("REQBENCH_SANDBOX_PIDS", "lots", "'lots' is not a number of processes (a whole number, at least 1)"),
    ("REQBENCH_SANDBOX_PIDS", "0", "'0' is not a number of processes (a whole number, at least 1)"),
    ("REQBENCH_SANDBOX_FSIZE", "2Q", "'2Q' is not a size (bytes, or a number with K, M, G or T)"),
    ("REQBENCH_SANDBOX_FSIZE", "0", "'0' is not a size above 0"),
])
def test_a_bad_cap_in_the_environment_is_one_error_naming_it(variable: str, value: str, rule: str) -> None:
    """Read when the sandbox is first imported: a command says which variable and why, no traceback."""
    env = {**os.environ, variable: value}
    proc = subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath", "--agent", "null", "--out",
                           "/nonexistent/never-made"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip() == f"error: ${variable}: {rule}", proc.stderr


def test_caps_in_the_environment_take_sizes_with_suffixes() -> None:
    env = {**os.environ, "REQBENCH_SANDBOX_FSIZE": "512M", "REQBENCH_SANDBOX_PIDS": "64"}
    out = subprocess.run([sys.executable, "-c", "from reqbench.core.sandbox import limits; "
                          "print(limits.MAX_FILE_BYTES, limits.MAX_PIDS)"], env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == [str(512 * 1024**2), "64"]
