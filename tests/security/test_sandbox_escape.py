"""One test per way out of the sandbox a root agent would try (DESIGN §10), each named after the threat."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reqbench
from reqbench.core.agents.llm_agent import run_shell
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.cgroups import parents
from reqbench.core.sandbox.view import View

pytestmark = pytest.mark.usefixtures("require_bwrap")


def sh(script: str, cwd: Path, **kw: object) -> tuple[int | None, str]:
    res = run_sandboxed(script, cwd, timeout=kw.pop("timeout", 60), **kw)  # type: ignore[arg-type]
    return res.exit_code, (res.stdout + res.stderr).decode("utf-8", "replace")


def test_root_agent_has_no_capabilities(tmp_path: Path) -> None:
    code, out = sh("grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status", tmp_path)
    assert code == 0
    assert all(line.split()[1] == "0000000000000000" for line in out.splitlines()), out


def test_root_agent_cannot_unmount_remount_or_mount(tmp_path: Path) -> None:
    attempts = ["umount -l /tmp", "umount -l /proc", "mount -o remount,rw /usr", "mount -t tmpfs none /mnt",
                "mount --bind /usr /tmp/x"]
    for attempt in attempts:
        code, out = sh(f"mkdir -p /tmp/x; {attempt}", tmp_path)
        assert code not in (0, None), (attempt, out)
    code, out = sh("touch /usr/forged 2>&1; echo x > /etc/forged 2>&1; true", tmp_path)
    assert not Path("/usr/forged").exists() and not Path("/etc/forged").exists()


def test_root_agent_cannot_enter_the_harness_namespaces(tmp_path: Path) -> None:
    for attempt in ("nsenter -t 1 -a true", f"nsenter -t {os.getpid()} -n -m true", "unshare -m true",
                    "unshare -r -m true", "chroot / true"):
        code, out = sh(attempt, tmp_path)
        assert code not in (0, None), (attempt, out)


def test_agent_sees_no_harness_process_and_no_harness_environment(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CANARY_SECRET", "canary-in-the-harness")
    code, out = sh("ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; "
                   f"ls /proc/{os.getpid()} 2>&1", tmp_path)
    assert "canary-in-the-harness" not in out
    assert int(out.split()[0]) < 10  # only the sandbox's own few processes


def test_agent_cannot_reach_host_sockets_or_the_harness_home(tmp_path: Path) -> None:
    code, out = sh("ls /run /var/run /root/.cache /home 2>&1; find / -xdev -type s 2>/dev/null | head", tmp_path)
    assert "No such file" in out and ".sock" not in out


def test_agent_cannot_see_sibling_workspaces_or_the_run_folder(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "work" / "row-b").mkdir(parents=True)
    (run_dir / "work" / "row-b" / "answer.txt").write_text("secret of another row")
    (run_dir / "run.sqlite").write_text("db")
    mine = run_dir / "work" / "row-a"
    mine.mkdir()
    code, listing = sh(f"ls {run_dir} {run_dir}/work", mine)
    code, out = sh(f"cat {run_dir}/work/row-b/answer.txt", mine)
    assert "run.sqlite" not in listing and "row-b" not in listing and "row-a" in listing
    assert code != 0 and "secret of another row" not in out


def test_agent_cannot_import_the_installed_harness_or_its_bundled_suites(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    package = Path(reqbench.__file__).parent
    # Expose the package's parent as a toolchain directory, as a site-packages install would: the
    # package itself must still be masked.
    monkeypatch.setenv("REQBENCH_SANDBOX_RO", str(package.parent))
    code, out = sh(f"ls {package} | wc -l; cd {package.parent} && {sys.executable} -c 'import reqbench.core' 2>&1",
                   tmp_path)
    assert out.split()[0] == "0" and "ModuleNotFoundError" in out
    assert package in View(cwd=tmp_path, writable=[]).masked([package.parent])


def test_llm_shell_command_naming_a_host_file_does_not_bind_it(tmp_path: Path) -> None:
    secret = Path("/var/tmp") / f"reqbench-answer-{os.getpid()}.txt"
    secret.write_text("the answer")
    try:
        ws = tmp_path / "ws"
        ws.mkdir()
        code, output, _ = run_shell(f"cat {secret}", ws, timeout=30)
    finally:
        secret.unlink()
    assert code != 0 and "the answer" not in output


def test_daemon_that_clears_its_environment_dies_with_the_step(tmp_path: Path) -> None:
    code, _ = sh("(setsid env -i /bin/sh -c 'sleep 1; echo late > late.txt' >/dev/null 2>&1 &); exit 0", tmp_path)
    assert code == 0
    time.sleep(1.6)
    assert not (tmp_path / "late.txt").exists()


def test_fork_bomb_is_capped_and_swept(tmp_path: Path) -> None:
    if not any("pids" in p.controllers for p in parents()):
        pytest.skip("no writable pids cgroup on this machine")
    bomb = f"bomb{os.getpid()}x"
    started = time.monotonic()
    code, out = sh(f"bash -c '{bomb}(){{ {bomb}|{bomb}& }}; {bomb}'; sleep 2; exit 0", tmp_path, timeout=8)
    assert time.monotonic() - started < 30
    assert "Resource temporarily unavailable" in out  # the cap was reached, inside the sandbox
    left = subprocess.run(["pgrep", "-c", "-f", bomb], capture_output=True, text=True).stdout.strip()
    assert left in ("", "0")  # and nothing of it is left on the host


def test_flooding_tmp_hits_the_sandbox_limit_not_the_host(tmp_path: Path) -> None:
    code, out = sh("head -c 3000000000 /dev/zero > /tmp/flood; echo rc=$?", tmp_path, timeout=60)
    assert "No space left" in out or "File too large" in out


def test_a_single_huge_file_is_refused_by_the_file_size_limit(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from reqbench.core.sandbox import limits

    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1_000_000)
    code, out = sh("head -c 2000000 /dev/zero > big.bin; echo rc=$?", tmp_path)
    assert (tmp_path / "big.bin").stat().st_size <= 1_000_000


def test_agent_binary_version_probe_runs_sandboxed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Preflight asks the agent's own binary for its version: that is agent code, so it runs in the sandbox
    (it cannot write on the host or read the harness's secrets)."""
    from reqbench.core.execute.preflight import _version

    monkeypatch.setenv("REQBENCH_CANARY_SECRET", "canary-version-probe")
    pwned = tmp_path / "pwned"
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho owned > {pwned}\necho \"2.1.332 ${{REQBENCH_CANARY_SECRET:-none}}\"\n")
    fake.chmod(0o755)
    assert _version(str(fake)) == "2.1.332 none"
    assert not pwned.exists()
