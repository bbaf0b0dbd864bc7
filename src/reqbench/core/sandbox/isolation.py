"""Which isolation this machine gives, and the gate that refuses to run a real agent without it.

`available_isolation` probes once per process for the strongest mode (``REQBENCH_SANDBOX=bwrap|
unshare|none`` forces one). `isolation_gate` is called by the runner before anything is created: a
real or `command` agent without bubblewrap is an `InputError` (exit 2) naming what is missing and how
to install it, unless the user passed ``--unsafe-no-sandbox`` (which the run records and every report
prints). Control agents (`CONTROL_AGENTS`) are harness code: they and the checks of their submissions
run wherever the machine allows.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from functools import cache
from typing import Literal

from reqbench.core.errors import InputError

log = logging.getLogger(__name__)

Isolation = Literal["bwrap", "unshare", "none"]

CONTROL_AGENTS = frozenset({"null", "reference", "replay"})
"""Agents that are harness code (they change nothing, apply the suite's reference, or replay a stored
patch): they may run without the sandbox."""

PROBE_ARGV = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
              "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]


class SandboxUnavailable(InputError):
    """A real agent was asked to run where the sandbox cannot isolate it (exit 2)."""


def _probe(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=20, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@cache
def available_isolation() -> Isolation:
    """The strongest isolation that works here (cached; ``REQBENCH_SANDBOX`` forces one)."""
    forced = os.environ.get("REQBENCH_SANDBOX")
    if forced in ("bwrap", "unshare", "none"):
        return forced  # type: ignore[return-value]
    if shutil.which("bwrap") and _probe(PROBE_ARGV):
        return "bwrap"
    if shutil.which("unshare") and _probe(["unshare", "-n", "true"]):
        log.warning("bubblewrap unavailable: processes get no network but no file-system protection")
        return "unshare"
    log.warning("no sandbox available (bwrap, unshare): processes run unisolated")
    return "none"


def agent_is_control(agent_spec: str) -> bool:
    """Whether the agent spec (``name`` or ``name:arg``) names a control agent."""
    return agent_spec.partition(":")[0] in CONTROL_AGENTS


def isolation_gate(agent_spec: str, *, unsafe_no_sandbox: bool) -> None:
    """Refuse a real agent without bubblewrap (see module docstring); returns when the run may go on."""
    if agent_is_control(agent_spec):
        return
    require_isolation(f"agent {agent_spec!r}", "the agent could read the suite's answers and forge its score",
                      item="--agent", unsafe_no_sandbox=unsafe_no_sandbox)


def require_isolation(what: str, risk: str, *, item: str, unsafe_no_sandbox: bool) -> None:
    """Refuse to run `what` (hostile code: an agent, a delivery's own commands) where bubblewrap cannot
    isolate it, unless the user passed ``--unsafe-no-sandbox``; `risk` says what it could do unisolated and
    `item` names the input that brought it. `SandboxUnavailable` (exit 2) otherwise."""
    if unsafe_no_sandbox:
        return
    mode = available_isolation()
    if mode == "bwrap":
        return
    why = ("REQBENCH_SANDBOX forces " + mode if os.environ.get("REQBENCH_SANDBOX") == mode
           else "bubblewrap is not installed or cannot create namespaces here")
    raise SandboxUnavailable(
        f"cannot isolate {what}: {why}. Without bubblewrap {risk}. Install it (Debian/Ubuntu: apt-get "
        "install bubblewrap; Fedora: dnf install bubblewrap) and make sure user or root namespaces are "
        "allowed, or pass --unsafe-no-sandbox to run anyway (recorded in the run and printed in every report)",
        item=item)
