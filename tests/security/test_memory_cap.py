"""Red-team tests: a sandboxed tree cannot take the machine's memory, leave its cap, or pass its kill off as
the harness's trouble (SECURITY.md, "exhausts the host's memory").

Every attack runs real processes in the real sandbox under a small cap (200 MiB) and allocates 1 GiB,
touching every page. With a memory cgroup the kernel kills the tree at the cap and the result says so;
where none can be made, each process has ``RLIMIT_DATA`` instead and the allocation fails.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.command import CommandAgent
from reqbench.core.agents.llm_agent import run_shell
from reqbench.core.agents.registry import make_agent
from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.sandbox import group_supply, launch, limits, run_sandboxed
from reqbench.core.sandbox.limits import TreeLimits

pytestmark = pytest.mark.usefixtures("require_bwrap")

CAP = 200 * 1024**2
HOG = "b = bytearray(1024**3); b[::4096] = b'x' * (len(b) // 4096); print('allocated 1 GiB')"
ATTACK = Path(__file__).with_name("memory_cap_attack.py")


def cap_mode() -> str | None:
    """How this machine caps a tree's memory: "cgroup", "rlimit" or None."""
    tree = TreeLimits.create(CAP)
    tree.end()
    return tree.memory_by


@pytest.fixture
def cgroup_cap() -> None:
    if cap_mode() != "cgroup":
        pytest.skip("no writable memory cgroup here: only the per-process RLIMIT_DATA fallback applies")


@pytest.fixture
def groups_seen(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The cgroups the launcher makes for each command, recorded as they are made."""
    seen: list[Path] = []
    create = TreeLimits.create

    def recording(memory_bytes: int | None = None) -> TreeLimits:
        tree = create(memory_bytes)
        seen.extend(g.path for g in tree.groups)
        return tree

    monkeypatch.setattr(launch.TreeLimits, "create", staticmethod(recording))
    return seen


@pytest.fixture
def small_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`REQBENCH_SANDBOX_MEMORY=200M` for callers that set no cap of their own (checks, agents)."""
    monkeypatch.setenv(limits.MEMORY_ENV, "200M")
    limits.default_memory.cache_clear()
    yield
    limits.default_memory.cache_clear()


def test_allocating_beyond_the_cap_kills_the_tree_and_the_result_names_memory(tmp_path: Path,
                                                                            groups_seen: list[Path]) -> None:
    mode = cap_mode()
    if mode is None:
        pytest.skip("no memory cgroup and no rlimit fallback")
    result = run_sandboxed(["python3", "-c", HOG], tmp_path, timeout=120, memory_bytes=CAP)
    assert b"allocated" not in result.stdout
    if mode == "cgroup":
        assert result.exit_code == 137 and result.oom_killed, result
        assert "memory cap of 200 MiB" in result.memory_note()
        group_supply.settle()  # emptied groups are removed in the background
        assert groups_seen and not any(p.exists() for p in groups_seen)  # removed with its members
    else:
        assert result.exit_code == 1 and b"MemoryError" in result.stderr
    assert run_sandboxed("echo alive", tmp_path, timeout=60).stdout == b"alive\n"  # the harness carries on


def test_where_no_cgroup_can_be_made_each_process_gets_rlimit_data(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "parents", lambda: ())  # a machine without writable cgroups
    result = run_sandboxed(["python3", "-c", HOG], tmp_path, timeout=120, memory_bytes=CAP)
    assert result.exit_code == 1 and b"MemoryError" in result.stderr and not result.oom_killed
    if shutil.which("node"):  # a V8 runtime, which reserves far more address space than it uses, starts
        node = run_sandboxed(["node", "-e", "console.log(40 + 2)"], tmp_path, timeout=60, memory_bytes=CAP)
        assert node.stdout == b"42\n", node


@pytest.mark.usefixtures("cgroup_cap")
def test_children_cannot_split_an_allocation_the_cap_is_the_tree_s(tmp_path: Path) -> None:
    child = "b = bytearray(90 * 2**20); b[::4096] = b'x' * (len(b) // 4096); import time; time.sleep(4)"
    script = f"for i in 1 2 3 4; do python3 -c \"{child}\" & done; wait; echo done"
    result = run_sandboxed(script, tmp_path, timeout=120, memory_bytes=CAP)
    assert result.oom_killed, result  # 4 x 90 MiB > 200 MiB although each process is far below it


@pytest.mark.usefixtures("cgroup_cap")
def test_files_in_the_private_tmp_count_toward_the_cap(tmp_path: Path) -> None:
    result = run_sandboxed("head -c 600000000 /dev/zero > /tmp/fill; echo rc=$?", tmp_path, timeout=120,
                           memory_bytes=CAP)
    assert result.oom_killed or b"No space left" in result.stderr, result


def test_no_cgroup_file_is_visible_in_the_view(tmp_path: Path) -> None:
    script = textwrap.dedent("""\
        import os
        for path in ("/sys/fs/cgroup/memory/cgroup.procs", "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                     "/sys/fs/cgroup/cgroup.procs"):
            try:
                open(path, "w").write(str(os.getpid()))
                print("WROTE", path)
            except OSError as exc:
                print("refused", exc.strerror)
        print(os.path.exists("/sys"))
        print(open("/proc/self/cgroup").read())""")
    result = run_sandboxed(["python3", "-c", script], tmp_path, timeout=60, memory_bytes=CAP)
    lines = result.stdout.decode().splitlines()
    assert lines[:3] == ["refused No such file or directory"] * 3, lines
    assert lines[3] == "False"
    assert lines[4:] and all(entry.endswith(":/") for entry in lines[4:] if entry)  # no host cgroup path


@pytest.mark.usefixtures("cgroup_cap")
def test_a_nested_user_namespace_cannot_raise_or_leave_its_cgroup(tmp_path: Path) -> None:
    """bubblewrap shows no /sys, but a process may make its own user and cgroup namespaces and mount
    cgroupfs rooted at its group. The group's files belong to an id it does not have: every write fails,
    and the 1 GiB allocation after the attack is still killed at the cap."""
    result = run_sandboxed(["python3", str(ATTACK), str(CAP), str(limits.MAX_PIDS)], tmp_path, timeout=120,
                           memory_bytes=CAP, bind_named_files=True)
    out = result.stdout.decode()
    assert "WROTE" not in out and "MADE" not in out, out
    assert "refused" in out or "no user namespace" in out, out
    assert "allocated" not in out and result.oom_killed, (out, result.stderr)


def test_the_tree_is_preferred_by_the_oom_killer_of_the_machine(tmp_path: Path) -> None:
    result = run_sandboxed("cat /proc/self/oom_score_adj; echo 0 > /proc/self/oom_score_adj; "
                           "cat /proc/self/oom_score_adj", tmp_path, timeout=60)
    first, after = result.stdout.decode().split()
    assert first == str(limits.OOM_SCORE_ADJ)
    effective = int(Path("/proc/self/status").read_text().split("CapEff:")[1].split()[0], 16)
    if effective & (1 << 24):  # CAP_SYS_RESOURCE: the harness's write set the floor too
        assert after == first


# --- the callers: a kill at the cap is the submission's or the agent's failure, never the harness's


@pytest.fixture
def calc(tmp_path: Path) -> dict[str, Path]:
    base = tmp_path / "base"
    (base / "calc").mkdir(parents=True)
    (base / "calc" / "__init__.py").write_text("def add(a, b):\n    raise NotImplementedError\n")
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n\n"
                                         "def test_zero():\n    assert add(0, 0) == 0\n")
    return {"base": base, "hidden": hidden, "root": tmp_path}


def _submission(calc: dict[str, Path], name: str, add: str) -> Path:
    ws = calc["root"] / name
    (ws / "calc").mkdir(parents=True)
    (ws / "calc" / "__init__.py").write_text(textwrap.dedent(add))
    return ws


PYTEST_CHECK = Check(name="target", command="{pytest} -q {hidden}", timeout_seconds=120,
                     expected_tests=["test_calc.py::test_add", "test_calc.py::test_zero"])


@pytest.mark.usefixtures("cgroup_cap", "small_default")
def test_a_pytest_check_whose_code_blows_the_cap_fails_and_is_not_a_harness_error(calc: dict[str, Path]) -> None:
    hog = _submission(calc, "hog", f"def add(a, b):\n    {HOG}\n    return a + b\n")
    result = run_check(PYTEST_CHECK, hog, calc["hidden"], base=calc["base"])
    assert result.status is CheckStatus.FAIL, result.detail
    assert result.probes == {"test_calc.py::test_add": False, "test_calc.py::test_zero": False}
    assert "memory cap of 200 MiB" in result.detail
    honest = _submission(calc, "honest", "def add(a, b):\n    return a + b\n")
    assert run_check(PYTEST_CHECK, honest, calc["hidden"], base=calc["base"]).status is CheckStatus.PASS


@pytest.mark.usefixtures("cgroup_cap", "small_default")
def test_a_plain_check_killed_at_the_cap_fails_with_every_probe_failed(calc: dict[str, Path]) -> None:
    ws = _submission(calc, "plain", "def add(a, b):\n    return a + b\n")
    (ws / "verify.py").write_text(f"{HOG}\nimport json, os\n"
                                  "open(os.environ['REQBENCH_OUTPUT'] + '/results.json', 'w').write("
                                  "json.dumps({'add': True}))\n")
    probed = Check(name="target", command="{python} verify.py", timeout_seconds=120, probes="json")
    result = run_check(probed, ws, calc["hidden"], base=calc["base"])
    assert (result.status, result.probes) == (CheckStatus.FAIL, {}), result.detail
    assert "memory cap of 200 MiB" in result.detail
    plain = run_check(Check(name="build", command="{python} verify.py", timeout_seconds=120), ws)
    assert (plain.status, plain.probes) == (CheckStatus.FAIL, None)


@pytest.mark.usefixtures("cgroup_cap", "small_default")
def test_an_agent_step_killed_at_the_cap_is_the_agent_s_error_with_the_reason(tmp_path: Path) -> None:
    agent = CommandAgent(name="hog", argv_template=["python3", "-c", HOG])
    result = agent.run(tmp_path, AgentInputs(prompt="x"), Budget(wall_seconds=120))
    assert result.status is AgentStatus.ERROR
    assert "exit code 137" in result.detail and "memory cap of 200 MiB" in result.detail


@pytest.mark.usefixtures("cgroup_cap", "small_default")
def test_a_preset_turn_killed_at_the_cap_is_the_agent_s_error_with_the_reason(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "aider"
    exe.parent.mkdir()
    exe.write_text(f"#!/bin/sh\nexec python3 -c \"{HOG}\"\n")
    exe.chmod(0o755)
    ws = tmp_path / "ws"
    ws.mkdir()
    result = make_agent("aider", binary=str(exe)).run(ws, AgentInputs(prompt="x"), Budget(wall_seconds=120))
    assert result.status is AgentStatus.ERROR
    assert "memory cap of 200 MiB" in result.detail and "exit code 137" in result.detail, result.detail


@pytest.mark.usefixtures("cgroup_cap", "small_default")
def test_a_shell_command_of_the_llm_agent_killed_at_the_cap_tells_the_model_the_cap(tmp_path: Path) -> None:
    code, output, timed_out = run_shell(f'python3 -c "{HOG}"', tmp_path, 120)
    assert (code, timed_out) == (137, False)
    assert "memory cap of 200 MiB" in output
