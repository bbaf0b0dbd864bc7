"""Presets for third-party CLI agents: the exact command line each runs, and how its output is read.

What every preset shares -- the sandboxed run, the model gateway as the tool's only network, the
scratch directory, sessions, usage measured by the gateway -- is `preset_base`. Here: each tool's
command line, how it is pointed at the gateway (base URL + per-row token, never a provider key), and
which parser reads its output. Versions are pinned in `versions` (``--agent claude-code@VERSION``).

Claude Code and Codex use the effective switches of ReqMemBench Table 14 (appendix D.1) for the two
stages: ``stage="diagnostic"`` (read-only, no tools / read-only sandbox) and ``stage="coding"``
(edit + shell tools, no web). Tool-use restrictions, not OS isolation, as in the paper. Both can
resume a session, so they implement `start_session` (the persistence switches are dropped in session
mode, because resuming needs the stored session; the tool's state lives in the scratch directory).
OpenHands resumes its conversation too (it always persists it, in the scratch directory).

=================  ==========================================================================
preset             command (``{prompt}`` = scratch prompt file, ``{scratch}`` = scratch dir)
                   and how it reaches the gateway (``{gateway}`` = relay URL, ``{token}``)
=================  ==========================================================================
claude-code        see `CLAUDE_FLAGS`; ``claude -p --output-format json <stage flags> < {prompt}``;
                   ``ANTHROPIC_BASE_URL={gateway}``, ``ANTHROPIC_API_KEY={token}`` (Messages API)
codex              see `CODEX_FLAGS`; ``codex exec --json <stage flags> -c model_provider=reqbench
                   -c model_providers.reqbench.base_url={gateway}/v1 ... -C {workspace} - < {prompt}``
                   (Responses API; token in ``REQBENCH_GATEWAY_TOKEN``)
mini-swe-agent     ``mini -y --exit-immediately -c mini.yaml -c {scratch}/mini-config.yaml
                   -m MODEL -o {scratch}/trajectory.json``; LiteLLM ``api_base={gateway}/v1``
openhands          ``openhands --headless --json --override-with-envs -f {prompt}``;
                   ``LLM_MODEL=MODEL``, ``LLM_BASE_URL={gateway}/v1``, ``LLM_API_KEY={token}``,
                   ``OPENHANDS_PERSISTENCE_DIR={scratch}/openhands`` (Chat Completions; status from
                   its conversation state, see `openhands_output`); sessions add ``--resume ID``
aider              ``aider --yes-always --no-auto-commits --message-file {prompt}
                   --openai-api-base {gateway}/v1 ...``; ``OPENAI_API_KEY={token}``; trajectory
                   from its chat history file ``{scratch}/chat.md``
=================  ==========================================================================
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget
from reqbench.core.agents.declared import takes
from reqbench.core.agents.openhands_output import parse_openhands
from reqbench.core.agents.preset_base import (
    STAGES,
    CLIPreset,
    CLISession,
    Endpoint,
    Invocation,
    ResumablePreset,
)
from reqbench.core.agents.preset_output import (
    Parsed,
    parse_aider,
    parse_claude,
    parse_codex,
    parse_mini,
)
from reqbench.core.errors import InputError
from reqbench.core.workspace.fileio import read_regular, write_private

__all__ = ["CLAUDE_FLAGS", "CODEX_FLAGS", "PRESETS", "STAGES", "CLIPreset"]
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

CLAUDE_QUIET = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}
"""No update checks, telemetry or error reports: the gateway is the only address the tool can reach."""

CODEX_FLAGS: dict[str, list[str]] = {
    "diagnostic": ["--ephemeral", "--ignore-user-config", "--ignore-rules", "--skip-git-repo-check",
                   "--sandbox", "read-only"],
    "coding": ["--ephemeral", "--ignore-user-config", "--ignore-rules", "--skip-git-repo-check",
               "--sandbox", "danger-full-access"],
}
"""ReqMemBench Table 14, Codex CLI rows (the effective coding sandbox recorded in the process logs)."""

class ClaudeCode(ResumablePreset):
    name, binary, staged, api = "claude-code", "claude", True, "messages"
    native_step_cap = True

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        flags = list(CLAUDE_FLAGS[self.stage])
        env: dict[str, str] = {}
        if resume is not None:  # session mode: keep the session so it can be resumed, privately
            flags.remove("--no-session-persistence")
            env["CLAUDE_CONFIG_DIR"] = str(scratch / "claude-config")
            flags += ["--resume", resume] if resume else []
        argv = [self.binary, "-p", "--output-format", "json", *flags]
        argv += ["--model", self.model] if self.model else []
        argv += ["--max-turns", str(budget.max_steps)] if budget.max_steps else []
        env.update({"ANTHROPIC_BASE_URL": endpoint.url, "ANTHROPIC_API_KEY": endpoint.token,
                    **CLAUDE_QUIET})
        return Invocation(argv, env, stdin_file=prompt)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_claude(stdout)


class Codex(ResumablePreset):
    name, binary, staged, extra_at, api = "codex", "codex", True, 2, "responses"

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        flags = list(CODEX_FLAGS[self.stage])
        env: dict[str, str] = {}
        if resume is not None:
            flags.remove("--ephemeral")
            env["CODEX_HOME"] = str(scratch / "codex-home")
            (scratch / "codex-home").mkdir(exist_ok=True)
        argv = [self.binary, "exec", "--json", *flags, *codex_provider(endpoint.url), "-C", str(workspace)]
        argv += ["--model", self.model] if self.model else []
        argv += ["resume", resume, "-"] if resume else ["-"]
        env["REQBENCH_GATEWAY_TOKEN"] = endpoint.token
        return Invocation(argv, env, stdin_file=prompt)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_codex(stdout)


def codex_provider(url: str) -> list[str]:
    """``-c`` overrides defining the gateway as Codex's model provider (Responses wire API)."""
    settings = {"model_provider": '"reqbench"', "model_providers.reqbench.name": '"reqbench gateway"',
                "model_providers.reqbench.base_url": f'"{url}/v1"',
                "model_providers.reqbench.env_key": '"REQBENCH_GATEWAY_TOKEN"',
                "model_providers.reqbench.wire_api": '"responses"'}
    return [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]


class MiniSweAgent(CLIPreset):
    """mini-swe-agent v2 (``mini``), non-interactive, its LiteLLM model pointed at `base_url`."""

    name, binary = "mini-swe-agent", "mini"
    native_step_cap = True

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        if not self.model:
            raise InputError("mini-swe-agent needs --model PROVIDER/NAME (e.g. openai/gpt-4o)",
                             item="--agent mini-swe-agent")
        return super().run(workspace, inputs, budget)

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        config: dict[str, Any] = {
            "run": {"task": read_regular(prompt, root=scratch).decode("utf-8", "replace")
                    if prompt.is_file() and not prompt.is_symlink() else "{prompt}"},
            "agent": {"step_limit": budget.max_steps or 0, "cost_limit": budget.max_cost_usd or 0,
                      "wall_time_limit_seconds": int(budget.wall_seconds or 0)},
            "environment": {"cwd": str(workspace)},
            "model": {"cost_tracking": "ignore_errors",
                      "model_kwargs": {"api_base": f"{endpoint.url}/v1"}},
        }
        cfg_file = scratch / "mini-config.yaml"
        if scratch.is_dir():
            write_private(cfg_file, yaml.safe_dump(config, sort_keys=True))
        env = {"MSWEA_CONFIGURED": "true", "MSWEA_SILENT_STARTUP": "1",
               "MSWEA_GLOBAL_CONFIG_DIR": str(scratch / "mini-home"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "MSWEA_COST_TRACKING": "ignore_errors", "PAGER": "cat"}
        env["OPENAI_API_KEY"] = endpoint.token
        argv = [self.binary, "-y", "--exit-immediately", "-c", "mini.yaml", "-c", str(cfg_file),
                "-m", self.model or "{model}", "-o", str(scratch / "trajectory.json")]
        return Invocation(argv, env)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_mini(scratch / "trajectory.json")


class OpenHands(ResumablePreset):
    """The OpenHands CLI (1.x) headless: its default agent (terminal, file editor, task tracker; no
    browser) on a local workspace -- the process runtime, in our sandbox, no containers -- with the
    LLM settings taken from the environment (``--override-with-envs``), its settings and conversations
    in the scratch directory. A session's later turns add ``--resume CONVERSATION_ID`` (the
    conversation persisted in the session's scratch directory)."""

    name, binary = "openhands", "openhands"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        self._need_model()
        return super().run(workspace, inputs, budget)

    def start_session(self, workspace: Path) -> CLISession:
        self._need_model()
        return super().start_session(workspace)

    def _need_model(self) -> None:
        if not self.model:
            raise InputError("openhands needs --model PROVIDER/NAME (a LiteLLM model, e.g. openai/gpt-4o)",
                             item="--agent openhands")

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        env = {"LLM_MODEL": self.model or "{model}", "LLM_BASE_URL": f"{endpoint.url}/v1",
               "LLM_API_KEY": endpoint.token, **OPENHANDS_ENV,
               "OPENHANDS_PERSISTENCE_DIR": str(scratch / "openhands"), "OPENHANDS_WORK_DIR": str(workspace)}
        argv = [self.binary, "--headless", "--json", "--override-with-envs", "-f", str(prompt)]
        return Invocation(argv + (["--resume", resume] if resume else []), env)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        return parse_openhands(stdout, scratch / "openhands")


OPENHANDS_ENV = {"OPENHANDS_SUPPRESS_BANNER": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
"""No banner, and no fetch of LiteLLM's price list (the gateway is the only address the tool reaches; its
clone of the public skills from GitHub fails there at once and it carries on)."""


class Aider(CLIPreset):
    name, binary = "aider", "aider"
    state_globs = (".aider.tags.cache.v*",)  # its repo-map cache, written into the repository root

    def invocation(self, workspace: Path, scratch: Path, prompt: Path, budget: Budget,
                   resume: str | None, endpoint: Endpoint) -> Invocation:
        argv = [self.binary, "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
                "--no-check-update", "--no-analytics", "--no-show-model-warnings", "--no-pretty",
                "--no-stream", "--no-fancy-input", "--chat-history-file", str(scratch / "chat.md"),
                "--input-history-file", str(scratch / "input.history"), "--message-file", str(prompt)]
        argv += ["--model", self.model] if self.model else []
        argv += ["--openai-api-base", f"{endpoint.url}/v1"]
        env = {"OPENAI_API_KEY": endpoint.token}
        return Invocation(argv, env)

    def parse(self, stdout: str, stderr: str, scratch: Path) -> Parsed:
        try:  # the scratch folder is the agent's: read its chat history only as a regular file
            chat = read_regular(scratch / "chat.md", root=scratch).decode("utf-8", "replace")
        except OSError:
            chat = None
        return parse_aider(stdout, chat)


PRESET_OPTIONS = ("model", "stage", "base_url", "api_key", "binary", "extra_args", "env", "keep_scratch",
                  "writable", "version", "arg")
"""What every CLI preset takes (`declared.takes`, checked before it is built)."""
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
    return cls(**opts)


@takes(*PRESET_OPTIONS)
def make_claude_code(**opts: Any) -> CLIPreset:
    """Claude Code (``claude -p``) with ReqMemBench Table 14 switches; ``stage=diagnostic|coding``."""
    return _make(ClaudeCode, opts)


@takes(*PRESET_OPTIONS)
def make_codex(**opts: Any) -> CLIPreset:
    """Codex CLI (``codex exec``) with ReqMemBench Table 14 switches; ``stage=diagnostic|coding``."""
    return _make(Codex, opts)


@takes(*PRESET_OPTIONS)
def make_mini_swe_agent(**opts: Any) -> CLIPreset:
    """mini-swe-agent (``mini``) non-interactive, LiteLLM model at ``base_url``."""
    return _make(MiniSweAgent, opts)


@takes(*PRESET_OPTIONS)
def make_openhands(**opts: Any) -> CLIPreset:
    """OpenHands CLI 1.x headless (JSON events), a local process in the sandbox; needs ``--model``."""
    return _make(OpenHands, opts)


@takes(*PRESET_OPTIONS)
def make_aider(**opts: Any) -> CLIPreset:
    """Aider, one message from a file, no commits, answers yes to every prompt."""
    return _make(Aider, opts)
