"""Run one untrusted process under the harness's rules: the trust boundary of reqbench (DESIGN §10).

Everything an agent runs (a `command` template, a preset CLI, each shell command of the `llm` agent)
and every check (which runs the submission's code) goes through `run_sandboxed`; a protocol cannot
opt out. With bubblewrap the process gets:

* an **allow-list view** of the file system (`view`): system directories and the harness's Python
  toolchain read-only, its working directory read-write, named input files read-only, a private
  ``/tmp`` and ``HOME`` -- and nothing else (no suite, run folder, cache, harness home, other
  workspaces, host sockets); the installed reqbench package is masked even where the toolchain is
  bound, because it may hold bundled answers; a launch without a scratch folder of its own (every
  agent step) has HOME and TMPDIR on a size-limited tmpfs inside the sandbox, never on the host
  (`scratch`);
* **no privileges**: every capability dropped, new user/PID/IPC/UTS/cgroup/network namespaces, a new
  session, killed with its parent; it cannot mount, unmount, remount or enter another namespace;
* **nothing survives**: when the command ends, the PID namespace's init exits and the kernel kills
  every process left in it (daemons included); a pids cgroup caps and sweeps processes where the
  machine allows one (`limits`);
* a **memory cap** on the whole tree (a memory cgroup, else ``RLIMIT_DATA`` per process; `limits`), in
  every isolation mode: over it the kernel kills the tree and `ProcessResult.oom_killed` says so;
* an **allow-listed environment** (`process.scrubbed_env`) and **no network** unless asked for;
* optionally a **task environment** (`environment`): its root as the system directories, its layers and
  variables -- read-only for checks, a per-row overlay for agent steps (`envoverlay`).

Without bubblewrap the process runs under ``unshare -n`` or plainly: no file-system protection. The
runner refuses to run real agents that way unless the user says ``--unsafe-no-sandbox``
(`isolation.isolation_gate`); control agents and the checks of their harness-made submissions may.
"""

from reqbench.core.sandbox.isolation import (
    CONTROL_AGENTS,
    Isolation,
    SandboxUnavailable,
    available_isolation,
    isolation_gate,
    require_isolation,
)
from reqbench.core.sandbox.launch import scrubbed_env
from reqbench.core.sandbox.process import describe, run_sandboxed
from reqbench.core.sandbox.result import ProcessResult, SandboxOptions

__all__ = ["CONTROL_AGENTS", "Isolation", "ProcessResult", "SandboxOptions", "SandboxUnavailable",
           "available_isolation", "describe", "isolation_gate", "require_isolation",
           "run_sandboxed", "scrubbed_env"]
