"""One check's launch taken apart: what each layer a row's check adds costs on top of the sandboxed floor's
launch (`bench_floor.py`), each side the same pytest run over a bundled family's hidden tests on a tree with
the reference patch applied, the sides alternated round by round in one run:

* ``bwrap``: the sandboxed floor's launch -- bubblewrap with reqbench's base options and the host part of a
  check's view, ``python -P -m pytest`` inside, no guard;
* ``+guard``: pytest started through the guard (``reqbench_pytest``, the guard's folder bound read-only, its
  evidence pipe and token pipe passed and drained);
* ``+limits shell``: the one ``/bin/sh`` exec in front that sets ``oom_score_adj`` and the rlimits
  (`limits.TreeLimits.prefix`, without its cgroup joins);
* ``+cgroups``: that shell also joins a fresh group in every hierarchy reqbench uses here (pids, memory),
  made before the launch and removed after it, outside the timing -- what a row's check does;
* ``join during set-up``: the same groups joined from outside while bubblewrap builds the view
  (``--block-fd``: the sandbox's two processes are moved, then released to run the command) -- an
  alternative to the shell's joins, measured here, not what reqbench does.

Moving a process into a cgroup waits for an RCU grace period in the kernel (the first write to a
``cgroup.procs`` takes ``cgroup_threadgroup_rwsem`` for writing; later writes within the grace period do
not wait), which on a small virtual machine is ~10-15 ms: this benchmark prints it as ``+cgroups`` over
``+limits shell``.

    python benchmarks/bench_launch.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_floor import sandbox_prefix  # noqa: E402
from floor_loop import remove_group  # noqa: E402
from ratios import figure  # noqa: E402

SIDES = ("bwrap", "+guard", "+limits shell", "+cgroups", "join during set-up")
SHELL = '{ echo 500 > /proc/self/oom_score_adj; } 2>/dev/null; ulimit -c 0 && ulimit -f 8388608 && exec "$@"'


class Lab:
    """The tree, the hidden tests, the guard and the command lines every side launches."""

    def __init__(self, work: Path, bwrap: list[str]) -> None:
        from reqbench.core.bundled import bundled_suite
        from reqbench.core.checks.guarddir import guard_dir
        from reqbench.core.sandbox.cgroups import parents
        from reqbench.protocols.specpath.suite import PROTOCOL

        family = next(iter(PROTOCOL.load(bundled_suite("specpath")).families.values()))
        self.work, self.tree = work, work / "workspace"
        shutil.copytree(family.base_repo, self.tree)
        subprocess.run(["git", "apply", str(family.root / family.spec.reference_patch)], cwd=self.tree, check=True)
        for folder in ("output", "sandbox/home", "sandbox/tmp"):
            (work / folder).mkdir(parents=True)
        hidden, guard, ini = work / "hidden", work / "guard", work / "floor.ini"
        ini.write_text("[pytest]\n")
        self.parents = [p.path for p in parents()]
        self.view = [*bwrap, "--bind", str(self.tree), str(self.tree), "--bind", str(work / "sandbox"),
                     str(work / "sandbox"), "--bind", str(work / "output"), str(work / "output"),
                     "--ro-bind", str(family.hidden_dir), str(hidden), "--ro-bind", str(guard_dir()), str(guard),
                     "--ro-bind", str(ini), str(ini), "--chdir", str(self.tree)]
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                    "HOME": str(work / "sandbox/home"), "TMPDIR": str(work / "sandbox/tmp"),
                    "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        self.plain = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ini),
                      "--rootdir", str(hidden), str(hidden)]
        self.guarded = [sys.executable, "-P", "-m", "reqbench_pytest", "-p", "no:cacheprovider", "-c",
                        str(guard / "pytest.ini"), "--rootdir", str(hidden), "--confcutdir", str(work), "-q",
                        str(hidden)]
        self.guard = guard

    def launch(self, side: str) -> float:
        """Wall seconds of one launch of `side`, from the start of the process to its exit."""
        env, fds, groups = dict(self.env), [], []
        if side == "bwrap":
            env["PYTHONPATH"] = str(self.tree / "src")
            argv = [*self.view, "--", *self.plain]
        else:
            env.update(PYTHONPATH=str(self.guard), REQBENCH_GUARD_PYTHONPATH=str(self.tree / "src"))
            evidence_r, evidence_w = os.pipe()
            token_r, token_w = os.pipe()
            os.write(token_w, b"0" * 32)
            os.close(token_w)
            env["REQBENCH_GUARD_FDS"] = f"{evidence_w}:{token_r}"
            fds = [evidence_w, token_r]
            argv = [*self.view, "--", *self.guarded]
            if side in ("+cgroups", "join during set-up"):
                groups = [self._group(parent) for parent in self.parents]
            if side in ("+limits shell", "+cgroups"):
                joins = "".join(f"echo $$ > {g}/cgroup.procs && " for g in groups)
                argv = ["/bin/sh", "-c", SHELL.replace("ulimit -c 0", joins + "ulimit -c 0"), "sh", *argv]
            elif side == "join during set-up":
                status_r, status_w = os.pipe()
                block_r, block_w = os.pipe()
                argv = ["/bin/sh", "-c", SHELL, "sh", argv[0], "--json-status-fd", str(status_w), "--block-fd",
                        str(block_r), *argv[1:]]
                fds += [status_w, block_r]
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, pass_fds=fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in fds[2:]:
            os.close(fd)
        if side == "join during set-up":
            head = b""
            while not head.endswith(b"\n") and (chunk := os.read(status_r, 4096)):
                head += chunk
            for group in groups:
                for pid in (proc.pid, json.loads(head)["child-pid"]):
                    (group / "cgroup.procs").write_text(str(pid))
            os.write(block_w, b"x")
            os.close(block_w)
        if fds:
            os.close(fds[0])
            os.close(fds[1])
            while os.read(evidence_r, 65536):
                pass
            os.close(evidence_r)
        code = proc.wait()
        seconds = time.perf_counter() - started
        if side == "join during set-up":
            os.close(status_r)
        for group in groups:
            remove_group(group)
        if code != 0:
            raise SystemExit(f"{side}: exit {code}")
        return seconds

    @staticmethod
    def _group(parent: Path) -> Path:
        group = parent / f"reqbench-bench-{uuid.uuid4().hex}"
        group.mkdir()
        return group


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3 if os.environ.get("REQBENCH_BENCH_QUICK") else 30)
    args = parser.parse_args()
    bwrap = sandbox_prefix()
    if bwrap is None:
        print("bubblewrap does not run here: nothing to take apart")
        return
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="bench-launch-", dir=shm) as tmp:
        lab = Lab(Path(tmp), bwrap)
        sides = list(SIDES) if lab.parents else list(SIDES[:3])
        if not lab.parents:
            print("no writable cgroup here: the cgroup sides are not measured")
        for side in sides:  # warm every side once
            lab.launch(side)
        times: dict[str, list[float]] = {side: [] for side in sides}
        for n in range(args.rounds):
            for side in sides[n % len(sides):] + sides[:n % len(sides)]:
                times[side].append(lab.launch(side))
    median = {side: statistics.median(t) for side, t in times.items()}
    print(f"[{args.rounds} rounds] median launch: " + ", ".join(f"{s} {1000 * m:.1f} ms" for s, m in median.items()))
    previous = "bwrap"
    for side in sides[1:]:
        base = "+limits shell" if side == "join during set-up" else previous
        figure(f"launch: {side} above {base}", 1000 * (median[side] - median[base]), f"the {base} launch",
               1000 * median[base], unit="ms")
        previous = side if side != "join during set-up" else previous
    figure("launch: a check's whole launch above the sandboxed floor's", 1000 * (median[sides[min(3, len(sides) - 1)]]
           - median["bwrap"]), "the sandboxed floor's launch", 1000 * median["bwrap"], unit="ms")


if __name__ == "__main__":
    main()
