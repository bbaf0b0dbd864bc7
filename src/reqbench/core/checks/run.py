"""`run_check`: a check on a fresh snapshot of a tree, in the sandbox, with the guard for `{pytest}` checks.

The check sees its snapshot (read-write) and output folder below a private scratch folder, the hidden
directory read-only at ``<scratch>/hidden`` and, for a ``{pytest}`` check, the guard directory
(`guarddir`) read-only at ``<scratch>/guard``. Under bubblewrap both are bind mounts of the one copy the
harness keeps (the suite's hidden directory itself, the process's verified guard directory): a check
cannot write either, so nothing is copied per check. Without bubblewrap nothing can be bound read-only:
each check then gets its own copies in its scratch folder, as the hostile code it runs could change them.
A hidden directory a process without capabilities could not read in full, or holding a special file, is
copied too (`sandbox_can_read`): the copy is the harness's own, readable, and drops special files.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.checks.envguard import environment_guard_files
from reqbench.core.checks.evidence import GuardEvidence, judge_pytest, parse_guard_records
from reqbench.core.checks.guarddir import INI_NAME, guard_dir, write_guard_files
from reqbench.core.checks.models import (
    CHANNEL_CAP_BYTES,
    DEFAULT_PROTECTED,
    GUARD_RUNNER,
    Check,
    CheckResult,
    CheckStatus,
    render_command,
    status_from_exit,
)
from reqbench.core.checks.protected import restore_protected
from reqbench.core.checks.reports import read_junit, read_probe_json
from reqbench.core.errors import HarnessError, InputError
from reqbench.core.sandbox import ProcessResult, available_isolation, run_sandboxed
from reqbench.core.sandbox.direct import plain_words
from reqbench.core.sandbox.environment import EnvironmentMount, current_row_environment
from reqbench.core.workspace import copy_tree
from reqbench.core.workspace.discard import discard

# ---------------------------------------------------------------------------------------------------
# Running a check

SANDBOX_HOME = "sandbox"
"""The folder of a check's scratch tree holding its process's HOME and TMPDIR (removed with the tree)."""


@dataclass(frozen=True)
class FixedPaths:
    """Where a check written for a container expects its trees (bubblewrap only): the hidden directory
    read-only, the output directory and the snapshot read-write, each besides its own scratch path."""

    hidden: str | None = None
    output: str | None = None
    workspace: str | None = None

    def binds(self, hidden: Path | None, output: Path, snapshot: Path,
              environment: EnvironmentMount | None = None) -> tuple[dict[Path, Path], dict[Path, Path]]:
        """(read-only, read-write) binds for the launch, in `environment` (None: the host's system)."""
        if available_isolation() != "bwrap":
            raise InputError("a check with fixed paths (a container's /tests, /logs/verifier) needs bubblewrap")
        for inside in (self.hidden, self.output, self.workspace):
            if inside:
                _mount_point_in_root(inside, environment)
        readonly = {hidden: Path(self.hidden)} if hidden is not None and self.hidden else {}
        writable = {output: Path(self.output)} if self.output else {}
        if self.workspace:
            writable[snapshot] = Path(self.workspace)
        return readonly, writable


def _mount_point_in_root(inside: str, environment: EnvironmentMount | None) -> None:
    """A fixed path below a folder an environment's root gives (``/srv/app`` in a Debian root) needs its
    mount point there already: the root is bound read-only, so none can be made. At the top level (``/tests``,
    ``/logs``) the sandbox makes its own. `InputError` naming the path otherwise."""
    if environment is None or environment.root is None:
        return
    parts = inside.strip("/").split("/")
    if len(parts) > 1 and parts[0] in environment.root_tops() and \
            not os.path.isdir(os.path.join(environment.root, *parts)):
        raise InputError(f"the environment's root has no folder {inside} to bind it on (make it in the "
                         "environment's setup)", item=f"environment {environment.key[:12]}")


def run_check(check: Check, workspace: Path, hidden_dir: Path | None = None, *,
              env: dict[str, str] | None = None, base: Path | None = None,
              consume: bool = False, environment: EnvironmentMount | None = None, at: FixedPaths | None = None,
              output_to: Path | None = None) -> CheckResult:
    """Run `check` on a snapshot copy of `workspace` and map the evidence to a `CheckResult`.

    `environment` is the task's environment, always pristine (read-only; None: the row's,
    `sandbox.environment.row_environment`, else the host's): with an interpreter of its own, ``{python}``
    is that interpreter and ``{pytest}`` runs the guard with it.

    `base` is the tree the submission started from: protected paths of the snapshot are restored from
    it before the check runs (without a base nothing can be restored and nothing is recorded).

    `consume=True` is for a tree the harness itself made for this check alone and that no agent process
    was ever given (e.g. a fresh base with a frozen patch applied): instead of being copied it is moved
    into the check's private scratch directory for the run and moved back after it, protected paths
    restored and whatever the check wrote left in it, so the caller must discard it afterwards. Where it
    cannot be moved (another file system, a mount point) it is copied as usual. Never pass it for a
    tree an agent worked in: a process of the agent could still hold it open.
    """
    item = f"check {check.name!r}"
    if hidden_dir is not None and not Path(hidden_dir).is_dir():
        raise InputError("hidden directory not found", file=str(hidden_dir), item=item)
    report_name = check.report_name()
    workspace = Path(workspace)
    parent = str(workspace.absolute().parent) if consume else None
    scratch = tempdirs.make("check", parent)
    try:
        snapshot, output = scratch / "workspace", scratch / "output"
        moved = consume and _move(workspace, snapshot)
        if not moved:
            copy_tree(workspace, snapshot)
        mount = environment if environment is not None else current_row_environment()
        if mount is not None and mount.writable:
            raise HarnessError("a check runs only in the pristine environment")
        try:
            result = _run_in(check, snapshot, output, scratch, hidden_dir, env, base, report_name, item, mount, at)
            if output_to is not None:
                _keep_output(output, Path(output_to))
            return result
        finally:
            if moved:
                _move(snapshot, workspace)  # else something took its old path: the scratch goes with it
    finally:
        discard(scratch)  # the check's processes are gone: removed in the background


def _keep_output(output: Path, dest: Path) -> None:
    """Copy what the check wrote (hostile: links stay links, special files dropped) under the workspace
    limits; past them the copy stops where it is and the caller finds what it holds."""
    from reqbench.core.errors import WorkspaceLimitExceeded
    from reqbench.core.workspace.limits import DEFAULT_LIMITS

    try:
        copy_tree(output, dest, DEFAULT_LIMITS)
    except WorkspaceLimitExceeded:
        pass


def _move(src: Path, dest: Path) -> bool:
    """Rename the directory `src` to `dest` (same file system, not a mount point); False where that is
    impossible, and for a link (its target would be checked in place)."""
    if src.is_symlink() or not src.is_dir():
        return False
    try:
        os.rename(src, dest)
    except OSError:
        return False
    return True


def _run_in(check: Check, snapshot: Path, output: Path, scratch: Path, hidden_dir: Path | None,
            env: dict[str, str] | None, base: Path | None, report_name: str, item: str,
            mount: EnvironmentMount | None, at: FixedPaths | None = None) -> CheckResult:
    """The check on `snapshot` (already in place below `scratch`), in `mount` (None: the host's)."""
    output.mkdir()
    (scratch / SANDBOX_HOME).mkdir()
    touched = (restore_protected(snapshot, Path(base), [*DEFAULT_PROTECTED, *check.protected])
               if base is not None else [])
    values = {"workspace": str(snapshot), "output": str(output),
              "junit": str(output / report_name),
              "python": mount.python if mount is not None and mount.python else sys.executable}
    binds: dict[Path, Path] = {}
    run_env = {"REQBENCH_WORKSPACE": str(snapshot), "REQBENCH_OUTPUT": str(output)}
    roots = [snapshot]
    if hidden_dir is not None:
        hidden, source = scratch / "hidden", Path(os.path.abspath(hidden_dir))
        if available_isolation() == "bwrap" and sandbox_can_read(source):
            binds[source] = hidden  # the suite's directory itself, read-only at the scratch path
        else:  # nothing is read-only without bubblewrap, or a copy is needed to read it: a private copy
            copy_tree(source, hidden)
            binds[hidden] = hidden
        values["hidden"] = str(hidden)
        run_env["REQBENCH_HIDDEN"] = str(hidden)
        roots.append(source)
    run_env.update(env or {})
    if not check.runs_pytest:
        command = render_command(check.command, values, item=item)
        fixed_ro, fixed_rw = (at.binds(Path(os.path.abspath(hidden_dir)) if hidden_dir is not None else None,
                                       output, snapshot, mount) if at is not None else ({}, {}))
        proc = run_sandboxed(command, snapshot, timeout=check.timeout_seconds, env=run_env,
                             writable=[output], readonly_binds={**binds, **fixed_ro},
                             writable_binds=fixed_rw, network=False,
                             bind_named_files=True, scratch_dir=scratch / SANDBOX_HOME, environment=mount)
        result = _plain_result(check, proc, output, report_name, roots)
    else:
        proc, ev = _run_guarded(check, scratch, snapshot, output, values, binds, run_env,
                                roots[1] if hidden_dir is not None else None, item, mount)
        status, probes, detail = judge_pytest(ev, proc, check.expected_tests, check.timeout_seconds)
        result = CheckResult(status, proc.exit_code, round(proc.wall_seconds, 3), probes, detail,
                             proc.stdout_tail(), proc.stderr_tail())
        result.collection_errors = sorted(set(ev.collect_errors))
        result.skipped_tests = ev.skipped()
        result.unexpected_exit = (status is CheckStatus.FAIL and proc.exit_code not in (None, 0, 1)
                                  and not proc.timed_out and not proc.oom_killed)
        if result.collection_errors:
            result.detail += _missing_module(result.stdout_tail, mount)
    result.protected_touched = touched
    result.timed_out = proc.timed_out
    if touched:
        result.detail = (result.detail + f"; protected paths restored: {touched[:10]}").lstrip("; ")
    return result


def _plain_result(check: Check, proc: ProcessResult, output: Path, report_name: str,
                  roots: list[Path]) -> CheckResult:
    result = CheckResult(status=status_from_exit(proc.exit_code), exit_code=proc.exit_code,
                         wall_seconds=round(proc.wall_seconds, 3), stdout_tail=proc.stdout_tail(),
                         stderr_tail=proc.stderr_tail())
    if proc.timed_out:
        result.detail = f"timed out after {check.timeout_seconds:g}s"
    elif proc.start_error:
        result.detail = proc.start_error
    elif proc.oom_killed:  # the kernel killed the code under test at the memory cap
        result.detail = proc.memory_note()
        if result.status is CheckStatus.HARNESS_ERROR:  # its crash, not the harness's: a FAIL, no probe passes
            result.status, result.probes = CheckStatus.FAIL, {} if check.probes is not None else None
            return result
    elif result.status is CheckStatus.HARNESS_ERROR:
        result.detail = f"exit code {proc.exit_code} (only 0 and 1 are valid check results)"
        result.unexpected_exit = True
    if check.probes is not None and result.status is not CheckStatus.HARNESS_ERROR:
        report = output / report_name
        try:
            probes = read_junit(report, roots) if check.probes == "junit" else read_probe_json(report)
        except ValueError as exc:
            result.status = CheckStatus.HARNESS_ERROR
            result.detail = f"probe report {report_name}: {exc}"
            return result
        if not probes:
            result.status = CheckStatus.HARNESS_ERROR
            result.detail = f"probe report {report_name} lists no probes (empty bucket)"
            return result
        result.probes = probes
    return result


def _run_guarded(check: Check, scratch: Path, snapshot: Path, output: Path, values: dict[str, str],
                 binds: dict[Path, Path], run_env: dict[str, str], hidden_source: Path | None,
                 item: str, mount: EnvironmentMount | None) -> tuple[ProcessResult, GuardEvidence]:
    """Run a ``{pytest}`` command with the guard (read-only at ``<scratch>/guard``) and its channel;
    return the process and the records. In an environment with an interpreter, that interpreter runs the
    guard's sources as a script (`guarddir`)."""
    guard = scratch / "guard"
    own_python = mount.python if mount is not None else None
    runner = [sys.executable, "-P", "-m", GUARD_RUNNER]
    if own_python is not None and mount is not None:  # an environment needs bubblewrap (`plan`)
        compiled = environment_guard_files(mount)
        flavour = f"env:{mount.key}:{own_python}" if compiled is not None else None
        binds = {**binds, guard_dir(source=compiled is None, flavour=flavour, files=compiled): guard}
        runner = [own_python, str(guard / f"{GUARD_RUNNER}.{'pyc' if compiled is not None else 'py'}")]
    elif available_isolation() == "bwrap":
        binds = {**binds, guard_dir(): guard}
    else:
        write_guard_files(guard)
        binds = {**binds, guard: guard}
    ini = guard / INI_NAME  # harness-side: no workspace configuration is read
    want = check.rootdir or ("hidden" if "hidden" in values else "workspace")
    if want == "hidden" and "hidden" not in values:
        raise InputError("rootdir 'hidden' needs a hidden directory", item=item)
    root = values["hidden"] if want == "hidden" else str(snapshot)
    values = {**values, "pytest": shlex.join([
        *runner, "-p", "no:cacheprovider",
        "-c", str(ini), "--rootdir", root, "--confcutdir", str(scratch)])}
    command = render_command(check.command, values, item=item)
    missing = _missing_hidden_paths(command, values.get("hidden"), hidden_source)
    if missing:  # the suite names hidden tests that are not there: nothing the submission did
        return (ProcessResult(None, False, f"the check names missing hidden paths {missing[:3]}", None, None,
                              0.0, "none"), GuardEvidence())
    token = secrets.token_hex(16)
    read_fd, write_fd = os.pipe()
    token_r, token_w = os.pipe()
    os.write(token_w, token.encode())
    os.close(token_w)
    run_env = {**run_env, "PYTHONPATH": str(guard), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "REQBENCH_GUARD_FDS": f"{write_fd}:{token_r}",
               "REQBENCH_GUARD_PYTHONPATH": os.pathsep.join(
                   str(snapshot / p) if p != "." else str(snapshot) for p in check.pythonpath)}
    try:
        proc = run_sandboxed(command, snapshot, timeout=check.timeout_seconds, env=run_env,
                             writable=[output], readonly_binds=binds, network=False,
                             pass_fds=(write_fd, token_r), channel_fd=read_fd,
                             channel_cap_bytes=CHANNEL_CAP_BYTES, bind_named_files=True,
                             scratch_dir=scratch / SANDBOX_HOME, environment=mount)
    finally:  # the write end and the token went to the process (`run_sandboxed` closed them here)
        os.close(read_fd)
    return proc, parse_guard_records(proc.channel, token, overflow=proc.channel_overflow)


_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z0-9_.]{1,100})'")


def _missing_module(output: str, mount: EnvironmentMount | None) -> str:
    """A note naming the first module a collection error could not import, and where the check ran (so a
    task run without its environment reads as such, not as an unexplained 0). Informational only: the
    status never depends on what the tests printed."""
    found = _NO_MODULE.search(output)
    if found is None:
        return ""
    where = f"task environment {mount.key[:12]}" if mount is not None else "the host's Python (no task environment)"
    return f"; a test module could not import {found.group(1)!r} in {where}"


def sandbox_can_read(root: Path) -> bool:
    """Every entry below `root` is a directory, regular file or link that a process of this user without
    capabilities can read (directories: read and search) -- so binding `root` shows what a copy would.
    False for a special file (a copy drops it) or an entry only root's capabilities could read (a suite
    checked out with ``umask 077`` by another user, read by a harness running as root)."""
    uid, gids = os.getuid(), {os.getgid(), *os.getgroups()}
    pending = [os.fspath(root)]
    while pending:
        directory = pending.pop()
        try:
            if not _permits(os.stat(directory), uid, gids, 0o5):
                return False
            with os.scandir(directory) as listing:
                for entry in listing:
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
                    elif stat.S_ISREG(info.st_mode):
                        if not _permits(info, uid, gids, 0o4):
                            return False
                    elif not stat.S_ISLNK(info.st_mode):
                        return False
        except OSError:
            return False
    return True


def _permits(info: os.stat_result, uid: int, gids: set[int], wanted: int) -> bool:
    """The permission class of `uid`/`gids` on `info` (owner, else group, else others) grants `wanted`."""
    mode = info.st_mode
    bits = (mode >> 6 if info.st_uid == uid else mode >> 3 if info.st_gid in gids else mode) & 0o7
    return bits & wanted == wanted


def _missing_hidden_paths(command: str, hidden: str | None, source: Path | None) -> list[str]:
    """Words of `command` naming a path below the (read-only) hidden directory `hidden` that does not exist
    in its `source` on the host."""
    if not hidden or source is None:
        return []
    words = plain_words(command)
    if words is None:
        try:
            words = shlex.split(command)
        except ValueError:
            return []
    out = []
    for word in words:
        path = word.split("=", 1)[-1].split("::", 1)[0]
        if (path == hidden or path.startswith(hidden + "/")) and not any(c in path for c in "*?[$`") \
                and not os.path.exists(str(source) + path[len(hidden):]):
            out.append(path)
    return out
