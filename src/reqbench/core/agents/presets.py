"""Presets for third-party CLI agents: the exact command line each runs, and how its output is read.

Every preset runs its tool in the sandbox (`cli_process.run_cli`; network allowed, since the tool
talks to its model provider) with the workspace as working directory, the prompt passed by file or
stdin (never as one huge argument), and private files (prompt, config, trajectory, and a fresh HOME
holding the tool's own state) in a scratch directory *outside* the workspace so they never show up in
the diff. Only the workspace, the scratch directory and the paths in the ``writable`` option are
writable; credentials come from ``api_key`` or the ``env`` option, never from the user's HOME. Budget
``wall_seconds`` is the process timeout (timeout -> TIMEOUT); exit 0 -> COMPLETED unless the tool's
own output says otherwise; a provider failure the tool reports -> PROVIDER_ERROR; else ERROR.

Claude Code and Codex use the effective switches of ReqMemBench Table 14 (appendix D.1) for the two
stages: ``stage="diagnostic"`` (read-only, no tools / read-only sandbox) and ``stage="coding"``
(edit + shell tools, no web). Tool-use restrictions, not OS isolation, as in the paper. Both can
resume a session, so they implement `start_session` (the persistence switches are dropped in session
mode, because resuming needs the stored session; the tool's state lives in the scratch directory).

=================  ==========================================================================
preset             command (``{prompt}`` = scratch prompt file, ``{scratch}`` = scratch dir)
=================  ==========================================================================
claude-code        see `CLAUDE_FLAGS`; ``claude -p --output-format json <stage flags> < {prompt}``
codex              see `CODEX_FLAGS`; ``codex exec --json <stage flags> -C {workspace} - < {prompt}``
mini-swe-agent     ``mini -y --exit-immediately -c mini.yaml -c {scratch}/mini-config.yaml
                   -m MODEL -o {scratch}/trajectory.json``
openhands          ``openhands --headless --json --override-with-envs -f {prompt}``
aider              ``aider --yes-always --no-auto-commits --message-file {prompt} ...``
=================  ==========================================================================
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.agents.cli_process import run_cli
from reqbench.core.agents.llm_agent import task_prompt
from reqbench.core.agents.preset_output import (
    Parsed,
    parse_aider,
    parse_claude,
    parse_codex,
    parse_mini,
    parse_openhands,
)
from reqbench.core.errors import InputError
from reqbench.core.llm.pricing import call_cost, load_prices
from reqbench.core.workspace.safe_io import read_regular, write_private

STAGES = ("diagnostic", "coding")
CODING_TOOLS = "Read,Edit,Write,Glob,Grep,PowerShell,Bash"

CLAUDE_FLAGS: dict[str, list[str]] = {
    "diagnostic": ["--restricted", "--no-session-persistence", "--disable-slash-commands",
                   "--permission-mode", "dontAsk", "--permission-prompts", "none", "--tools", "",
                   "--disallowedTools", "mcp__*", "--strict-mcp-config", "--no-chrome"],
    "coding": ["--restricted", "--no-session-persistence", "--permission-mode", "dontAsk",
               "--tools", CODING_TOOLS, "--allowedTools", CODING_TOOLS,
               "--disallowedTools", "mcp__*,WebFetch,WebSearch", "--strict-mcp-config", "--no-chrome"],
}
"""ReqMemBench Table 14, Claude Code rows."""

CODEX_FLAGS: dict[str, list[str]] = {
    "diagnostic": ["--ephemeral", "--ignore-user-config", "--ignore-rules", "--skip-git-repo-check",
                   "--sandbox", "read-only"],
    "coding": ["--ephemeral", "--ignore-user-config", "--ignore-rules", "--skip-git-repo-check",
               "--sandbox", "danger-full-access"],
}
"""ReqMemBench Table 14, Codex CLI rows (the effective coding sandbox recorded in the process logs)."""

PASS_ENV = ("PATH", "LANG", "LC_ALL", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


@dataclass
class Invocation:
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin_file: Path | None = None


class CLIPreset(ABC):
    """Shared run logic; a subclass supplies `invocation` (its command line) and `parse`."""

    name = "cli"
    binary = ""
    resumable = False
    staged = False
    """Whether `stage` changes the command (Claude Code and Codex: Table 14)."""
    extra_at = 1
    """Where `extra_args` are inserted into the argv (after the binary, or after its subcommand)."""

    def __init__(self, *, model: str | None = None, stage: str = "coding", base_url: str | None = None,
                 api_key: str | None = None, binary: str | None = None, extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None, keep_scratch: bool = False,
                 writable: list[str | Path] | None = None) -> None:
        if stage not in STAGES:
            raise InputError(f"stage must be one of {list(STAGES)}, not {stage!r}",
                             item=f"--agent {self.name}")
        self.model, self.stage, self.base_url, self.api_key = model, stage, base_url, api_key
        self.binary = binary or self.binary
        self.extra_args = list(extra_args or [])
        self.extra_env = dict(env or {})
        self.keep_scratch = keep_scratch
        self.writable = [Path(p) for p in writable or []]

    # -- per tool ------------------------------------------------------------------------------------
    @abstractmethod
    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        """The command line, extra environment and stdin file of one turn (`resume`: session id,
        ``""`` for the first turn of a session, None outside sessions)."""

    @abstractmethod
    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        """Usage, reply, session id, events and (when the output decides it) the status."""

    def command_line(self) -> str:
        """The command this preset runs, with placeholders (for ``reqbench agents``)."""
        inv = self.invocation(Path("{workspace}"), Path("{scratch}"), Path("{prompt}"), Budget(), None)
        argv = [*inv.argv[:self.extra_at], *self.extra_args, *inv.argv[self.extra_at:]]
        text = " ".join(shlex.quote(a) for a in argv)
        return f"{text} < {{prompt}}" if inv.stdin_file else text

    # -- shared --------------------------------------------------------------------------------------
    def base_env(self, scratch: Path) -> dict[str, str]:
        """Allow-listed variables, a private writable HOME in the scratch dir, then the user's `env`."""
        home = scratch / "home"
        home.mkdir(exist_ok=True)
        env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
        env["HOME"] = str(home)
        env.update(self.extra_env)
        return env

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        scratch = Path(tempfile.mkdtemp(prefix=f"reqbench-{self.name}-"))
        try:
            return self._turn(workspace, scratch, task_prompt(workspace, inputs), budget, None,
                              hide=[Path(p) for p in inputs.context.get("hide", ())])[0]
        finally:
            if not self.keep_scratch:
                shutil.rmtree(scratch, ignore_errors=True)

    def _turn(self, workspace: Path, scratch: Path, prompt_text: str, budget: Budget,
              resume: str | None, hide: list[Path] | None = None) -> tuple[AgentResult, str | None]:
        """One tool invocation; `hide` folders (the protocol's suite and run) appear empty to it."""
        prompt = scratch / "prompt.md"
        write_private(prompt, prompt_text)  # the scratch folder is the agent's: never write through a link
        inv = self.invocation(workspace, scratch, prompt, budget, resume)
        argv = [*inv.argv[:self.extra_at], *self.extra_args, *inv.argv[self.extra_at:]]
        env = {**self.base_env(scratch), **inv.env}
        if shutil.which(argv[0], path=env.get("PATH")) is None:
            return AgentResult(status=AgentStatus.ERROR, detail=f"{argv[0]!r} not found on PATH; install "
                               f"{self.name} or pass binary=PATH"), None
        writable = [workspace, scratch, *self.writable]
        proc = run_cli(argv, workspace, env=env, stdin_file=inv.stdin_file, timeout=budget.wall_seconds,
                       writable=writable, readonly=_install_dir(argv[0], writable), hide=hide,
                       trusted_command=True)
        parsed = self.parse(proc.stdout, proc.stderr, scratch)
        if parsed.usage.cost_usd is None and self.model:
            parsed.usage.cost_usd = call_cost(self.model, parsed.usage.prompt_tokens,
                                              parsed.usage.completion_tokens, load_prices())
        if proc.start_error:
            status, detail = AgentStatus.ERROR, f"{self.binary}: could not start: {proc.start_error}"
        elif proc.timed_out:
            status, detail = AgentStatus.TIMEOUT, f"wall-clock budget of {budget.wall_seconds:g}s exhausted"
        elif parsed.status is not None:
            status, detail = parsed.status, parsed.detail
        elif proc.exit_code == 0:
            status, detail = AgentStatus.COMPLETED, parsed.detail
        else:
            status, detail = AgentStatus.ERROR, parsed.detail or f"exit code {proc.exit_code}: " \
                f"{proc.stderr.strip()[-500:]}"
        result = AgentResult(status=status, trajectory=parsed.events, usage=parsed.usage,
                             wall_seconds=proc.wall_seconds, reply=parsed.reply, detail=detail)
        return result, parsed.session_id


class CLISession:
    """A resumable CLI conversation: the first `send` starts it, later ones resume its session id."""

    def __init__(self, preset: CLIPreset, workspace: Path) -> None:
        self.preset, self.workspace = preset, workspace
        self.scratch = Path(tempfile.mkdtemp(prefix=f"reqbench-{preset.name}-session-"))
        self.session_id: str | None = None

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        result, sid = self.preset._turn(self.workspace, self.scratch, user_message, budget,
                                        self.session_id or "")
        self.session_id = sid or self.session_id
        return result

    def close(self) -> None:
        if not self.preset.keep_scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


class ResumablePreset(CLIPreset):
    """A preset whose tool can resume its own session: it offers `start_session` (journey). Presets
    without it have no `start_session` at all, so callers fall back to re-running the agent."""

    resumable = True

    def start_session(self, workspace: Path) -> CLISession:
        return CLISession(self, workspace)


class ClaudeCode(ResumablePreset):
    name, binary, staged = "claude-code", "claude", True

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        flags = list(CLAUDE_FLAGS[self.stage])
        env: dict[str, str] = {}
        if resume is not None:  # session mode: keep the session so it can be resumed, privately
            flags.remove("--no-session-persistence")
            env["CLAUDE_CONFIG_DIR"] = str(scratch / "claude-config")
            flags += ["--resume", resume] if resume else []
        argv = [self.binary, "-p", "--output-format", "json", *flags]
        argv += ["--model", self.model] if self.model else []
        argv += ["--max-turns", str(budget.max_steps)] if budget.max_steps else []
        if self.base_url:
            env["ANTHROPIC_BASE_URL"] = self.base_url
        if self.api_key:
            env["ANTHROPIC_API_KEY"] = self.api_key
        return Invocation(argv, env, stdin_file=prompt)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_claude(stdout)


class Codex(ResumablePreset):
    name, binary, staged, extra_at = "codex", "codex", True, 2

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        flags = list(CODEX_FLAGS[self.stage])
        env: dict[str, str] = {}
        if resume is not None:
            flags.remove("--ephemeral")
            env["CODEX_HOME"] = str(scratch / "codex-home")
            (scratch / "codex-home").mkdir(exist_ok=True)
        argv = [self.binary, "exec", "--json", *flags, "-C", str(workspace)]
        argv += ["--model", self.model] if self.model else []
        argv += ["resume", resume, "-"] if resume else ["-"]
        if self.base_url:
            env["OPENAI_BASE_URL"] = self.base_url
        if self.api_key:
            env["OPENAI_API_KEY"] = self.api_key
        return Invocation(argv, env, stdin_file=prompt)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_codex(stdout)


class MiniSweAgent(CLIPreset):
    """mini-swe-agent v2 (``mini``), non-interactive, its LiteLLM model pointed at `base_url`."""

    name, binary = "mini-swe-agent", "mini"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        if not self.model:
            raise InputError("mini-swe-agent needs --model PROVIDER/NAME (e.g. openai/gpt-4o)",
                             item="--agent mini-swe-agent")
        return super().run(workspace, inputs, budget)

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        config: dict[str, Any] = {
            "run": {"task": read_regular(prompt, root=scratch).decode("utf-8", "replace")
                    if prompt.is_file() and not prompt.is_symlink() else "{prompt}"},
            "agent": {"step_limit": budget.max_steps or 0, "cost_limit": budget.max_cost_usd or 0,
                      "wall_time_limit_seconds": int(budget.wall_seconds or 0)},
            "environment": {"cwd": str(workspace)},
            "model": {"cost_tracking": "ignore_errors",
                      "model_kwargs": {"api_base": self.base_url} if self.base_url else {}},
        }
        cfg_file = scratch / "mini-config.yaml"
        if scratch.is_dir():
            write_private(cfg_file, yaml.safe_dump(config, sort_keys=True))
        env = {"MSWEA_CONFIGURED": "true", "MSWEA_SILENT_STARTUP": "1",
               "MSWEA_GLOBAL_CONFIG_DIR": str(scratch / "mini-home"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "MSWEA_COST_TRACKING": "ignore_errors", "PAGER": "cat"}
        if self.api_key:
            env["OPENAI_API_KEY"] = self.api_key
        argv = [self.binary, "-y", "--exit-immediately", "-c", "mini.yaml", "-c", str(cfg_file),
                "-m", self.model or "{model}", "-o", str(scratch / "trajectory.json")]
        return Invocation(argv, env)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_mini(scratch / "trajectory.json")


class OpenHands(CLIPreset):
    name, binary = "openhands", "openhands"

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        env = {"LLM_MODEL": self.model or "", "LLM_BASE_URL": self.base_url or "",
               "LLM_API_KEY": self.api_key or ""}
        return Invocation([self.binary, "--headless", "--json", "--override-with-envs", "-f", str(prompt)],
                          {k: v for k, v in env.items() if v})

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_openhands(stdout)


class Aider(CLIPreset):
    name, binary = "aider", "aider"

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None) -> Invocation:
        argv = [self.binary, "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
                "--no-check-update", "--no-analytics", "--no-show-model-warnings", "--no-pretty",
                "--no-stream", "--no-fancy-input", "--chat-history-file", str(scratch / "chat.md"),
                "--input-history-file", str(scratch / "input.history"), "--message-file", str(prompt)]
        argv += ["--model", self.model] if self.model else []
        argv += ["--openai-api-base", self.base_url] if self.base_url else []
        env = {"OPENAI_API_KEY": self.api_key} if self.api_key else {}
        return Invocation(argv, env)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_aider(stdout)


def _install_dir(binary: str, writable: list[Path]) -> list[Path]:
    """A tool given by path may live where the sandbox hides it (under /tmp): its install directory
    (the virtualenv when it is one, else the binary's directory) is shown read-only, unless that would
    cover a writable path."""
    if not os.path.isabs(binary):
        return []
    bin_dir = Path(binary).resolve().parent
    root = bin_dir.parent if (bin_dir.parent / "pyvenv.cfg").exists() else bin_dir
    if any(p.resolve().is_relative_to(root) for p in writable):
        return []
    return [root]


PRESETS: dict[str, type[CLIPreset]] = {c.name: c for c in (ClaudeCode, Codex, MiniSweAgent, OpenHands, Aider)}


def _make(cls: type[CLIPreset], opts: dict[str, Any]) -> CLIPreset:
    opts = dict(opts)
    if "arg" in opts:  # ``claude-code:MODEL``
        opts.setdefault("model", opts.pop("arg"))
    if isinstance(opts.get("extra_args"), str):
        opts["extra_args"] = shlex.split(opts["extra_args"])
    if isinstance(opts.get("keep_scratch"), str):
        opts["keep_scratch"] = opts["keep_scratch"].lower() in ("1", "true", "yes")
    if isinstance(opts.get("env"), str):  # --agent-opt env=K=V,K2=V2
        pairs = [p.partition("=") for p in opts["env"].split(",") if p.strip()]
        if any(not sep or not k.strip() for k, sep, _ in pairs):
            raise InputError(f"env {opts['env']!r} is not KEY=VALUE[,KEY=VALUE...]",
                             item=f"agent {cls.name!r}")
        opts["env"] = {k.strip(): v for k, _, v in pairs}
    if isinstance(opts.get("writable"), str):
        opts["writable"] = opts["writable"].split(os.pathsep)
    known = {"model", "stage", "base_url", "api_key", "binary", "extra_args", "env", "keep_scratch",
             "writable"}
    unknown = sorted(set(opts) - known)
    if unknown:
        raise InputError(f"unknown option(s) {unknown} for agent {cls.name!r}; known: {sorted(known)}",
                         item="--agent-opt")
    return cls(**opts)


def make_claude_code(**opts: Any) -> CLIPreset:
    """Claude Code (``claude -p``) with ReqMemBench Table 14 switches; ``stage=diagnostic|coding``."""
    return _make(ClaudeCode, opts)


def make_codex(**opts: Any) -> CLIPreset:
    """Codex CLI (``codex exec``) with ReqMemBench Table 14 switches; ``stage=diagnostic|coding``."""
    return _make(Codex, opts)


def make_mini_swe_agent(**opts: Any) -> CLIPreset:
    """mini-swe-agent (``mini``) non-interactive, LiteLLM model at ``base_url``."""
    return _make(MiniSweAgent, opts)


def make_openhands(**opts: Any) -> CLIPreset:
    """OpenHands CLI in headless JSON mode, LLM settings from the environment."""
    return _make(OpenHands, opts)


def make_aider(**opts: Any) -> CLIPreset:
    """Aider, one message from a file, no commits, answers yes to every prompt."""
    return _make(Aider, opts)
