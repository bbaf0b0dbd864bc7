"""Run INSIDE the sandbox by `test_memory_cap.py`: try to lift the tree's caps through cgroupfs, then
allocate 1 GiB. Usage: memory_cap_attack.py MEMORY_CAP_BYTES MAX_PIDS.

It makes its own user, mount and cgroup namespaces (full capabilities inside them), mounts cgroupfs
(rooted at the tree's own group) and tries to raise the limits, turn the OOM killer off, move itself,
make a sub-group and take the files over. Lines: ``WROTE``/``MADE`` (an attack worked), ``refused``.
It writes only where the mounted root carries exactly the caps the test gave (the tree's own group),
so a failed defence can never touch a cgroup of the harness.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWCGROUP = 0x10000000, 0x00020000, 0x02000000
MNT = "/tmp/cg"
cap, max_pids = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)


def attempt(what: str, action: object) -> None:
    try:
        action()  # type: ignore[operator]
        print(f"WROTE {what}" if not what.startswith("mkdir") else f"MADE {what}", flush=True)
    except OSError as exc:
        print(f"refused {what}: {exc.strerror}", flush=True)


def write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def mounted(fstype: bytes, options: bytes | None) -> bool:
    return libc.mount(b"none", MNT.encode(), fstype, 0, options) == 0


if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) != 0:
    print("no user namespace:", os.strerror(ctypes.get_errno()), flush=True)
else:
    os.makedirs(MNT, exist_ok=True)
    targets = [(b"cgroup", b"memory", "memory.limit_in_bytes", cap,
                ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"], "memory.oom_control"),
               (b"cgroup", b"pids", "pids.max", max_pids, ["pids.max"], None),
               (b"cgroup2", None, "memory.max", cap, ["memory.max", "memory.swap.max", "pids.max"], None)]
    for fstype, options, marker, expected, limit_files, oom_file in targets:
        if not mounted(fstype, options):
            print(f"cannot mount {fstype!r} {options!r}", flush=True)
            continue
        try:
            ours = open(f"{MNT}/{marker}").read().strip() == expected
        except OSError:
            ours = False
        if ours:
            for name in limit_files:
                if os.path.exists(f"{MNT}/{name}"):
                    attempt(name, lambda n=name: write(f"{MNT}/{n}", "max" if "max" in n else "99999999999"))
            if oom_file:
                attempt(oom_file, lambda f=oom_file: write(f"{MNT}/{f}", "1"))
            attempt("cgroup.procs", lambda: write(f"{MNT}/cgroup.procs", str(os.getpid())))
            attempt("mkdir sub-group", lambda: os.mkdir(f"{MNT}/escape"))
            attempt(f"chmod {marker}", lambda m=marker: os.chmod(f"{MNT}/{m}", 0o666))
            print(f"{marker} still {open(f'{MNT}/{marker}').read().strip()}", flush=True)
        libc.umount2(MNT.encode(), 0)

b = bytearray(1024**3)
b[::4096] = b"x" * (len(b) // 4096)
print("allocated 1 GiB", flush=True)
