"""What every third-party CLI preset shares: one sandboxed tool run, its model gateway, its session.

A preset's tool runs in the sandbox (`reqbench.core.sandbox.run_sandboxed`) with the workspace as working
directory, the prompt passed by file or stdin, HOME and TMPDIR on the sandbox's size-limited tmpfs, and the
files the harness reads back or the tool resumes from (prompt, config, trajectory, session state) in a
private state folder outside the workspace (`state`), so they never show up in the diff: one per run or
session, measured against the agent scratch bound after every turn (over it: the agent's ERROR) and
removed link-safely at the end. The tool gets **no
network but the run's model gateway** (DESIGN §11): each run (or session) starts a gateway
(`core.llm.gateway.scope.row_gateway`) that holds the provider key and the row's budget, the sandbox
reaches it through the relay of `core.sandbox.bridge`, and the tool is told the relay's URL and a
per-row token instead of a key. Tokens and cost come from the gateway's records, never from the tool's
self-report (kept as a trajectory note). A row whose gateway budget ran out ends ``TIMEOUT`` with
``budget exhausted`` in its detail; an offline run that asked for an unrecorded call raises
`OfflineCacheMiss` unless the tool still completed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, TrajectoryEvent, Usage
from reqbench.core.agents.llm_agent import task_prompt
from reqbench.core.agents.preset_output import Parsed
from reqbench.core.agents.state import empty, make_state_folder, overflow, release, state_folder
from reqbench.core.agents.versions import PACKAGES, cached_binary
from reqbench.core.errors import InputError
from reqbench.core.llm.errors import OfflineCacheMiss
from reqbench.core.llm.gateway import Gateway, Lease, ModelPolicy, RowBudget, Upstream
from reqbench.core.llm.gateway.scope import row_gateway
from reqbench.core.sandbox import available_isolation, bridge, run_sandboxed
from reqbench.core.sandbox.view import View
from reqbench.core.workspace.fileio import read_regular, remove_tree, write_private

STAGES = ("diagnostic", "coding")
PASS_ENV = ("PATH", "LANG", "LC_ALL", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")
DEFAULT_UPSTREAM = {"messages": "https://api.anthropic.com", "chat": "https://api.openai.com/v1",
                    "responses": "https://api.openai.com/v1"}


@dataclass
class Invocation:
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin_file: Path | None = None


@dataclass(frozen=True)
class Endpoint:
    """What the tool is told about its model: the gateway relay's URL (no path) and its row token."""

    url: str
    token: str


@dataclass
class GatewayUse:
    gateway: Gateway
    lease: Lease


class CLIPreset(ABC):
    """Shared run logic; a subclass supplies `invocation` (its command line) and `parse`."""

    name = "cli"
    binary = ""
    api = "chat"
    """The model API the tool speaks (``chat``, ``responses`` or ``messages``)."""
    resumable = False
    staged = False
    """Whether `stage` changes the command (Claude Code and Codex: Table 14)."""
    extra_at = 1
    """Where `extra_args` are inserted into the argv (after the binary, or after its subcommand)."""
    native_step_cap = False
    """Whether the tool's command line takes `Budget.max_steps` (Claude Code ``--max-turns``, mini-swe-agent
    ``step_limit``). Without one the gateway caps the row's model calls at `max_steps` instead (one agent
    iteration is one model call), unless `Budget.max_model_calls` sets that cap itself."""
    state_globs: tuple[str, ...] = ()
    """Top-level workspace entries the tool writes as its own state (caches), not as part of the work:
    removed after each turn unless they were there before, so they never reach the submission."""

    def __init__(self, *, model: str | None = None, stage: str = "coding", base_url: str | None = None,
                 api_key: str | None = None, binary: str | None = None, extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None, keep_scratch: bool = False,
                 writable: list[str | Path] | None = None, version: str | None = None) -> None:
        if stage not in STAGES:
            raise InputError(f"stage must be one of {list(STAGES)}, not {stage!r}",
                             item=f"--agent {self.name}")
        self.model, self.stage, self.base_url, self.api_key = model, stage, base_url, api_key
        self.version = version or (PACKAGES[self.name].pinned if self.name in PACKAGES else None)
        self.binary = binary or self._default_binary()
        self.extra_args = list(extra_args or [])
        self.extra_env = dict(env or {})
        self.keep_scratch = keep_scratch
        self.writable = [Path(p) for p in writable or []]

    def _default_binary(self) -> str:
        cached = cached_binary(self.name, self.version) if self.name in PACKAGES else None
        return str(cached) if cached is not None else type(self).binary

    # -- per tool ------------------------------------------------------------------------------------
    @abstractmethod
    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        """The command line, extra environment and stdin file of one turn (`resume`: session id,
        ``""`` for the first turn of a session, None outside sessions)."""

    @abstractmethod
    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        """Usage, reply, session id, events and (when the output decides it) the status."""

    def command_line(self) -> str:
        """The command this preset runs, with placeholders (for ``reqbench agents``)."""
        inv = self.invocation(Path("{workspace}"), Path("{scratch}"), Path("{prompt}"), Budget(), None,
                              Endpoint("{gateway}", "{token}"))
        argv = [*inv.argv[:self.extra_at], *self.extra_args, *inv.argv[self.extra_at:]]
        text = " ".join(shlex.quote(a) for a in argv)
        return f"{text} < {{prompt}}" if inv.stdin_file else text

    # -- shared --------------------------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        """Allow-listed variables, then the user's `env` (HOME and TMPDIR are the sandbox's own tmpfs)."""
        env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
        env.update(self.extra_env)
        return env

    def upstream(self) -> Upstream:
        """Where the gateway forwards this tool's calls; the key stays in the harness process."""
        env = os.environ
        if self.api == "messages":
            url = self.base_url or env.get("ANTHROPIC_BASE_URL") or env.get("REQBENCH_BASE_URL")
            key = self.api_key or env.get("ANTHROPIC_API_KEY") or env.get("REQBENCH_API_KEY")
        else:
            url = self.base_url or env.get("REQBENCH_BASE_URL") or env.get("OPENAI_BASE_URL")
            key = self.api_key or env.get("REQBENCH_API_KEY") or env.get("OPENAI_API_KEY")
        return Upstream(base_url=url or DEFAULT_UPSTREAM[self.api], api_key=key)

    def call_cap(self, budget: Budget) -> int | None:
        """The model calls the gateway allows a run: `Budget.max_model_calls`, else the iteration cap
        `Budget.max_steps` for a tool that cannot take it on its command line (`native_step_cap`)."""
        if budget.max_model_calls is not None or self.native_step_cap:
            return budget.max_model_calls
        return budget.max_steps

    @contextmanager
    def gateway(self, budget: Budget, workspace: Path) -> Iterator[GatewayUse]:
        row_budget = RowBudget(max_tokens=budget.max_tokens, max_cost_usd=budget.max_cost_usd,
                               max_calls=self.call_cap(budget))
        with row_gateway(self.upstream(), row_budget, workspace=workspace,
                         models=self.model_policy()) as (gw, lease):
            yield GatewayUse(gw, lease)

    def model_policy(self) -> ModelPolicy:
        """The models this tool's calls may use: the run's ``model`` and the tool's auxiliary models."""
        package = PACKAGES.get(self.name)
        return ModelPolicy(self.model, package.auxiliary_models if package is not None else ())

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        with state_folder(self.name, keep=self.keep_scratch) as scratch, self.gateway(budget, workspace) as gw:
            # every input file whole (ReqMemBench D.1: no runner-side truncation or summarisation); a prompt
            # over the model's context ends as `context_overflow`, never silently cut
            return self._turn(workspace, scratch, task_prompt(workspace, inputs, file_cap=None), budget, None, gw,
                              hide=[Path(p) for p in inputs.context.get("hide", ())])[0]

    def _turn(self, workspace: Path, scratch: Path, prompt_text: str, budget: Budget, resume: str | None,
              gw: GatewayUse, hide: list[Path] | None = None) -> tuple[AgentResult, str | None]:
        """One tool invocation; `hide` folders (the protocol's suite and run) appear empty to it."""
        prompt = scratch / "prompt.md"
        write_private(prompt, prompt_text)  # the scratch folder is the agent's: never write through a link
        port = bridge.sandbox_port(available_isolation() != "none")
        inv = self.invocation(workspace, scratch, prompt, budget, resume,
                              Endpoint(bridge.base_url(port), gw.lease.token))
        argv = [*inv.argv[:self.extra_at], *self.extra_args, *inv.argv[self.extra_at:]]
        env = {**self.base_env(), **inv.env}
        if shutil.which(argv[0], path=env.get("PATH")) is None:
            return AgentResult(status=AgentStatus.ERROR, detail=f"{argv[0]!r} not found on PATH; install "
                               f"{self.name} (reqbench agents install {self.name}) or pass binary=PATH"), None
        before = gw.lease.measured()
        had_state = self._state_entries(workspace)
        writable = [workspace, scratch, *self.writable]
        proc = run_sandboxed(argv, workspace, timeout=budget.wall_seconds, env=env, stdin_file=inv.stdin_file,
                             writable=writable, readonly_binds={d: d for d in install_dirs(argv[0], writable)},
                             hide=list(hide or []), bind_named_files=True, network=False,
                             gateway_socket=gw.gateway.socket_path, gateway_port=port)
        for entry in self._state_entries(workspace) - had_state:
            remove_tree(entry)  # link-safe: a planted symlink is removed, never followed
        over = overflow(scratch)
        if over:  # the tool's files went past the bound: none of them is read or kept
            empty(scratch)
        stdout, stderr = proc.stdout_text(), proc.stderr_text()
        parsed = self.parse(stdout, stderr, scratch)
        step = gw.lease.measured().since(before)  # what this step used, as the gateway measured it
        exhausted = step.budget_exhausted
        if proc.start_error:
            status, detail = AgentStatus.ERROR, f"{self.binary}: could not start: {proc.start_error}"
        elif proc.timed_out:
            status, detail = AgentStatus.TIMEOUT, f"wall-clock budget of {budget.wall_seconds:g}s exhausted"
        elif exhausted:
            status, detail = AgentStatus.TIMEOUT, exhausted
        elif over or proc.limit_notes():  # past the state folder's bound, the scratch or the memory cap
            notes = [over, proc.limit_notes(), parsed.detail or f"exit code {proc.exit_code}"]
            status, detail = AgentStatus.ERROR, "; ".join(filter(None, notes))
        elif parsed.status is not None:
            status, detail = parsed.status, parsed.detail
        elif proc.exit_code == 0:
            status, detail = AgentStatus.COMPLETED, parsed.detail
        elif step.provider_errors:
            status, detail = AgentStatus.PROVIDER_ERROR, parsed.detail or "the model provider failed"
        else:
            status, detail = AgentStatus.ERROR, parsed.detail or f"exit code {proc.exit_code}: {stderr.strip()[-500:]}"
        if step.offline_misses and status is not AgentStatus.COMPLETED:
            raise OfflineCacheMiss(gw.lease.row_key, self.model or self.name)
        usage = Usage(prompt_tokens=step.prompt_tokens, completion_tokens=step.completion_tokens,
                      cost_usd=step.cost_usd)
        note = TrajectoryEvent("note", {"agent": self.name, "version": self.version, "binary": argv[0],
                                        "gateway": step.to_dict(), "self_reported_usage": parsed.usage.to_dict()})
        too_long = status is not AgentStatus.COMPLETED and step.context_overflows > 0
        if too_long:
            detail = "the prompt is longer than the model's context (the provider refused it); " + detail
        result = AgentResult(status=status, trajectory=[note, *parsed.events], usage=usage,
                             wall_seconds=proc.wall_seconds, reply=parsed.reply, detail=detail,
                             context_overflow=too_long)
        return result, parsed.session_id


    def _state_entries(self, workspace: Path) -> set[Path]:
        return {p for pattern in self.state_globs for p in workspace.glob(pattern)}


class CLISession:
    """A resumable CLI conversation: the first `send` starts it, later ones resume its session id. One
    gateway (and lease) serves the whole session."""

    def __init__(self, preset: CLIPreset, workspace: Path) -> None:
        self.preset, self.workspace = preset, workspace
        self.scratch = make_state_folder(f"{preset.name}-session", keep=preset.keep_scratch)
        self.session_id: str | None = None
        self._stack = ExitStack()
        self._use: GatewayUse | None = None
        self._end = weakref.finalize(self, _end_session, self._stack,
                                     None if preset.keep_scratch else self.scratch)
        """Ends the session once: at `close`, else when it is dropped or the process exits (while its
        threads still run), so a caller that never closes it leaves neither a gateway nor a folder."""

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        if self._use is None:
            self._use = self._stack.enter_context(self.preset.gateway(budget, self.workspace))
        result, sid = self.preset._turn(self.workspace, self.scratch, user_message, budget,
                                        self.session_id or "", self._use)
        self.session_id = sid or self.session_id
        return result

    def close(self) -> None:
        self._use = None
        self._end()


def _end_session(stack: ExitStack, folder: Path | None) -> None:
    """Close a session's gateway, then release its state `folder` (None: kept), even if closing failed."""
    try:
        stack.close()
    finally:
        if folder is not None:
            release(folder)


class ResumablePreset(CLIPreset):
    """A preset whose tool can resume its own session: it offers `start_session` (journey). Presets
    without it have no `start_session` at all, so callers fall back to re-running the agent."""

    resumable = True

    def start_session(self, workspace: Path) -> CLISession:
        return CLISession(self, workspace)


def install_dirs(binary: str, writable: list[Path]) -> list[Path]:
    """A tool given by path may live where the sandbox hides it (under /tmp, in the agents cache): its
    install directory (an npm prefix, a virtualenv, else the binary's directory) is shown read-only,
    unless that would cover a writable path. A virtualenv's interpreter is a link to the Python it was
    made from (a pyenv Python under HOME for OpenHands), so that Python's prefix is shown too."""
    if not os.path.isabs(binary):
        return []
    real = Path(binary).resolve()
    roots = [Path(binary).parent, real.parent]
    out: list[Path] = []
    for bin_dir in roots:
        if "node_modules" in bin_dir.parts:
            candidates = [Path(*bin_dir.parts[:bin_dir.parts.index("node_modules")])]
        elif (bin_dir.parent / "pyvenv.cfg").exists():
            candidates = [bin_dir.parent, *venv_base(bin_dir.parent)]
        else:
            candidates = [bin_dir]
        for root in candidates:
            if root not in out and not any(p.resolve().is_relative_to(root) for p in writable):
                out.append(root)
    return out


def venv_base(venv: Path) -> list[Path]:
    """The prefix of the Python a virtualenv was made from (``home = PREFIX/bin`` in its pyvenv.cfg), when
    it is a Python installation: ``PREFIX/lib/pythonX.Y`` exists and the prefix holds none of the
    directories the sandbox masks (reqbench itself, its cache) -- a planted pyvenv.cfg naming ``/`` or
    a home folder shows nothing."""
    try:
        lines = read_regular(venv / "pyvenv.cfg", root=venv).decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    home = next((line.split("=", 1)[1].strip() for line in lines
                 if line.split("=", 1)[0].strip() == "home" and "=" in line), "")
    if not home or not os.path.isabs(home) or Path(home).name != "bin":
        return []
    prefix = Path(os.path.realpath(home)).parent
    if prefix == Path("/") or not any(prefix.glob("lib/python3.*/os.py")):
        return []
    masked = View(cwd=venv, writable=[]).masked([prefix])
    return [] if masked else [prefix]
