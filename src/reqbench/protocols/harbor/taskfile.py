"""One Harbor task folder read into a typed record (`HarborTask`), from its ``task.toml`` (Harbor's
`TaskConfig`, schema 1.x: ``harbor/models/task/config.py``) and its files.

Only the fields that mean something here are modelled; `unmapped` names every other field that is set,
one line each, so nothing a task says is dropped silently. Layout (Harbor's `TaskPaths`):
``instruction.md``, ``environment/`` (Dockerfile), ``tests/test.sh``, ``solution/solve.sh``; a multi-step
task declares ``[[steps]]`` and holds ``steps/<name>/{instruction.md, tests/, solution/}``, a step's tests
laid over the task's ``tests/``.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError

AGENT_TIMEOUT = 1800.0
"""Harbor leaves ``[agent].timeout_sec`` unset by default; reqbench's default agent budget applies."""
VERIFIER_TIMEOUT = 600.0
"""Harbor's default ``[verifier].timeout_sec``."""
STEP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

# What each field means here (kept in one place: the importer reports everything else).
HONOURED = {
    "schema_version", "version", "task.name", "task.description", "task.version", "task.authors", "task.keywords",
    "metadata", "source", "agent.timeout_sec", "agent.network_mode", "verifier.timeout_sec", "verifier.env",
    "verifier.network_mode", "environment.docker_image", "environment.workdir", "environment.network_mode",
    "environment.os", "environment.allow_internet", "solution.env", "multi_step_reward_strategy", "steps",
}
STEP_HONOURED = {"name", "agent.timeout_sec", "verifier.timeout_sec", "verifier.env",
                 "min_reward"}
WHY_NOT = {
    "network_mode": "rows run offline (the agent reaches only the model gateway); only no-network is honoured "
                    "exactly",
    "allowed_hosts": "rows run offline; an allow-list cannot be granted",
    "user": "the agent and the verifier run as the sandbox's user",
    "cpus": "no CPU quota per row", "memory_mb": "the sandbox's memory cap applies (REQBENCH_SANDBOX_MEMORY)",
    "storage_mb": "the workspace limits apply", "gpus": "no GPUs", "gpu_types": "no GPUs", "tpu": "no TPUs",
    "mcp_servers": "no MCP servers are started", "healthcheck": "no services to check",
    "skills_dir": "no agent skills are installed", "build_timeout_sec": "environments build once, before any row",
    "env": "host variables are never passed to the agent (the sandbox's environment is an allow-list)",
    "environment_mode": "the verifier always runs in the pristine environment plus the submission",
    "environment": "a separate verifier environment is not built; the task's environment is used",
    "collect": "no compose services", "artifacts": "the run stores the diff, trajectory and verifier log",
}


@dataclass(frozen=True)
class Phase:
    """One agent phase and its verifier (a single-step task has one)."""

    name: str
    instruction: str
    tests: tuple[Path, ...]
    """Test folders laid over one another, in order (the task's, then the step's)."""
    solution: Path | None
    agent_timeout: float
    verifier_timeout: float
    verifier_env: dict[str, str]
    min_reward: float | dict[str, float] | None = None


@dataclass(frozen=True)
class HarborTask:
    """A Harbor task as reqbench runs it."""

    name: str
    path: Path
    phases: tuple[Phase, ...]
    multi_step: bool
    reward_strategy: str
    workdir: str | None
    solution_env: dict[str, str]
    docker_image: str | None
    unmapped: tuple[str, ...] = field(default=())


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value and key not in ("metadata", "env"):
            out.update(_flat(value, name + "."))
        else:
            out[name] = value
    return out


def _why(name: str) -> str:
    return WHY_NOT.get(name.rsplit(".", 1)[-1], "not used by reqbench")


def unmapped_fields(config: dict[str, Any], where: str = "") -> list[str]:
    """One line per field that is set and has no meaning here, with the reason."""
    lines = []
    for name, value in _flat({k: v for k, v in config.items() if k != "steps"}).items():
        if name in HONOURED or value in (None, [], {}, ""):
            continue
        if name == "environment.network_mode" and value == "no-network":
            continue
        lines.append(f"{where}{name} = {value!r}: {_why(name)}")
    for name in ("agent.network_mode", "verifier.network_mode", "environment.network_mode"):
        value = _flat(config).get(name)
        if value not in (None, "no-network"):
            lines.append(f"{where}{name} = {value!r}: {WHY_NOT['network_mode']}")
    return lines


def _finite(value: Any) -> bool:
    """A TOML number that is one: not a boolean, and not nan or inf (TOML spells both; a NaN timeout or gate
    passes or fails every comparison)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number(value: Any, default: float, item: str, file: Path) -> float:
    if value is None:
        return default
    if not _finite(value) or value <= 0:
        raise InputError("must be a positive number of seconds", file=str(file), item=item)
    return float(value)


def _text(path: Path, item: str) -> str:
    if not path.is_file():
        raise InputError("missing (Harbor needs an instruction for every task and step)", file=str(path), item=item)
    return path.read_text(encoding="utf-8")


def _env(value: Any, file: Path, item: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InputError("must be a table of strings", file=str(file), item=item)
    return {str(k): v for k, v in value.items()}


def _min_reward(value: Any, file: Path, item: str) -> float | dict[str, float] | None:
    if value is None or _finite(value):
        return None if value is None else float(value)
    if isinstance(value, dict) and all(_finite(v) for v in value.values()):
        return {str(k): float(v) for k, v in value.items()}
    raise InputError("must be a finite number or a table of finite numbers", file=str(file), item=item)


def read_config(path: Path) -> dict[str, Any]:
    file = path / "task.toml"
    if not file.is_file():
        raise InputError("not a Harbor task (no task.toml)", file=str(file))
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not TOML ({exc})", file=str(file)) from None


def _phase(task: Path, config: dict[str, Any], step: dict[str, Any] | None, file: Path) -> Phase:
    top_agent, top_ver = config.get("agent") or {}, config.get("verifier") or {}
    tests: tuple[Path, ...] = (task / "tests",)
    if step is None:
        name, base = "task", task
    else:
        name = str(step.get("name", ""))
        if not STEP_NAME.match(name):
            raise InputError("a step name is one portable folder name", file=str(file), item=f"steps.{name!r}")
        base = task / "steps" / name
        tests = tuple(p for p in (task / "tests", base / "tests") if p.is_dir())
    agent, ver = (step or {}).get("agent") or top_agent, (step or {}).get("verifier") or top_ver
    item = f"step {name!r}"
    timeouts = (_number(agent.get("timeout_sec", top_agent.get("timeout_sec")), AGENT_TIMEOUT,
                        f"{item} agent.timeout_sec", file),
                _number(ver.get("timeout_sec", top_ver.get("timeout_sec")), VERIFIER_TIMEOUT,
                        f"{item} verifier.timeout_sec", file))
    verifier_env = {**_env(top_ver.get("env"), file, "verifier.env"),
                    **_env(ver.get("env"), file, f"{item} verifier.env")}
    if not any((p / "test.sh").is_file() for p in tests):
        raise InputError("no tests/test.sh for this step", file=str(base), item=item)
    return Phase(name, _text(base / "instruction.md", item), tests,
                 (base / "solution") if (base / "solution" / "solve.sh").is_file() else None,
                 *timeouts, verifier_env,
                 _min_reward((step or {}).get("min_reward"), file, f"{item} min_reward"))


def read_task(path: Path) -> HarborTask:
    """The task at `path`; an `InputError` naming the file and field for anything Harbor would refuse."""
    path = Path(path)
    config, file = read_config(path), path / "task.toml"
    env = config.get("environment") or {}
    if str(env.get("os", "linux")).lower() != "linux":
        raise InputError("only linux tasks run here", file=str(file), item="environment.os")
    steps = config.get("steps") or []
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise InputError("[[steps]] must be tables", file=str(file), item="steps")
    names = [str(s.get("name", "")).casefold() for s in steps]
    if len(set(names)) != len(names):
        raise InputError("step names must be unique", file=str(file), item="steps")
    strategy = config.get("multi_step_reward_strategy") or "mean"
    if strategy not in ("mean", "final"):
        raise InputError("must be 'mean' or 'final'", file=str(file), item="multi_step_reward_strategy")
    phases = tuple(_phase(path, config, s, file) for s in steps) if steps else (_phase(path, config, None, file),)
    unmapped = unmapped_fields(config)
    unmapped += [f"{phase.name}: verifier.env {key} = {value!r}: host variables are not resolved; passed as written"
                 for phase in phases for key, value in phase.verifier_env.items() if "${" in value]
    for step in steps:
        extra = {k: v for k, v in step.items() if k not in ("name", "min_reward")}
        unmapped += [line for line in unmapped_fields(extra, f"steps.{step.get('name')}.")
                     if line.split(" = ")[0].split(".", 2)[-1] not in STEP_HONOURED]
    task_info = config.get("task") or {}
    name = str(task_info.get("name") or path.name).replace("/", "__")
    return HarborTask(name, path, phases, bool(steps), strategy, env.get("workdir"),
                      _env((config.get("solution") or {}).get("env"), file, "solution.env"),
                      env.get("docker_image"), tuple(unmapped))
