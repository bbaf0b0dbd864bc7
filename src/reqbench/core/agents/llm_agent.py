"""The built-in ``llm`` agent: a small shell-tool loop over the OpenAI-compatible client.

In the spirit of mini-swe-agent: the model answers each turn with a short thought and exactly one
action, either

* a shell command in a fenced ``bash`` block — run in a fresh shell in the workspace (sandboxed,
  network off); the observation (exit code + capped output) is the next user message; or
* a fenced ``reply`` block — the final answer to the user (a Phase-A JSON response, a reply to a
  simulated user); it ends the turn.

Control flow uses two small exception families. *Non-terminating* (`FormatError`: not exactly one
action; `CommandTimeout`) are fed back to the model and the loop continues. *Terminating* (`Finished`)
end the run with a status: a reply -> COMPLETED; a step/token/cost/time budget exhausted -> TIMEOUT;
the provider failing after the client's retries -> PROVIDER_ERROR. Under a dollar budget the model must have
a price (the model gateway's rule, `ChatClient.unpriced_refusal`), else no call is made and the run stops
with an `InputError` (preflight refuses the same configuration before a run starts). The trajectory (typed events with
usage) is saved in a ``finally:`` after every step when a path is given, so a crash loses nothing.

`start_session` keeps one message history across `send` calls (journey's multi-turn conversations).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, TrajectoryEvent, Usage
from reqbench.core.agents.declared import takes
from reqbench.core.agents.option_text import SAMPLING_RULES, option_number
from reqbench.core.errors import InputError
from reqbench.core.hashing import write_json
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.errors import MalformedOutput, ProviderError
from reqbench.core.sandbox import run_sandboxed

SYSTEM_PROMPT = """You are a careful software engineer working in a project directory.
Every reply you write contains a short explanation of your reasoning followed by exactly ONE action:

1. A shell command, in one fenced block marked bash:
```bash
grep -rn "def parse" src/
```
   It runs in a fresh shell whose working directory is the project directory (no network; changes
   of directory or environment do not persist between commands). You then see its exit code and
   output. Edit files with shell tools (sed, cat with a heredoc, python scripts).

2. Your final answer, in one fenced block marked reply:
```reply
What you tell the user, or exactly the response format the task asks for.
```
   This ends your turn, so only reply when the work is done.

Never put two actions in one message."""

DIAGNOSTIC_PROMPT = """You are a careful software engineer analysing a task. This stage has no tools: you
cannot run commands or read files beyond what the user message contains.
Write a short explanation of your reasoning, then your final answer in one fenced block marked reply:
```reply
Exactly the response format the task asks for.
```
Never write more than one reply block."""

NO_SHELL = ("This stage allows no commands. Answer with one ```reply block containing your final answer.")
STAGE_PROMPTS = {"coding": SYSTEM_PROMPT, "diagnostic": DIAGNOSTIC_PROMPT}

FORMAT_ERROR = ("Your message must contain exactly one action: one ```bash block with a command, or one "
                "```reply block with your final answer. Found {n}. Please answer again.")
ACTION_RE = re.compile(r"```(bash|reply)[ \t]*\n(.*?)```", re.DOTALL)


class FormatError(Exception):
    """Not exactly one action in the model's message (fed back)."""


class CommandTimeout(Exception):
    """A command ran past its time limit (fed back)."""


class Finished(Exception):
    """Ends the run with `status` (and the user-facing `reply` when there is one)."""

    def __init__(self, status: AgentStatus, detail: str = "", reply: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.reply = status, detail, reply


def parse_action(content: str) -> tuple[str, str]:
    """``("bash", command)`` or ``("reply", text)``; `FormatError` unless exactly one action."""
    found = ACTION_RE.findall(content)
    if len(found) != 1:
        raise FormatError(FORMAT_ERROR.format(n=len(found)))
    kind, body = found[0]
    return kind, body.strip() if kind == "bash" else body.rstrip("\n")


def task_prompt(workspace: Path, inputs: AgentInputs, file_cap: int | None = 60_000) -> str:
    """The first user message: the prompt, then each input file (path + text). The built-in agent caps each
    file at `file_cap` characters and says how much is left (it can read the rest with its shell); CLI
    presets pass ``None``: every file whole."""
    parts = [inputs.prompt.strip() or "Complete the task described in the input files."]
    for name, path in inputs.files.items():
        p = path if path.is_absolute() else workspace / path
        rel = p.relative_to(workspace) if p.is_relative_to(workspace) else p
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            parts.append(f"Input file {name} ({rel}): unreadable ({exc.strerror})")
            continue
        more = ""
        if file_cap is not None and len(text) > file_cap:
            more = f"\n[... {len(text) - file_cap} more characters; read the file]"
            text = text[:file_cap]
        parts.append(f"Input file {name} ({rel}):\n<file>\n{text}{more}\n</file>")
    return "\n\n".join(parts)


def run_shell(command: str, workspace: Path, timeout: float, *, readonly: list[Path] | None = None,
              hide: list[Path] | None = None) -> tuple[int, str, bool]:
    """Run `command` with bash in `workspace`, network off: ``(exit code, stdout+stderr, timed out)``.

    `readonly` paths (the input files) stay visible, `hide` folders (suite, run) appear empty."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb"}
    proc = run_sandboxed(["bash", "-c", command], workspace, timeout=timeout, env=env, network=False,
                         readonly_binds={p: p for p in readonly or []}, hide=list(hide or []))
    output = proc.stdout_text() + proc.stderr_text()
    if proc.start_error:
        output += f"\n[could not start: {proc.start_error}]"
    if proc.limit_notes():
        output += f"\n[{proc.limit_notes()}]"
    code = proc.exit_code if proc.exit_code is not None else -1
    return code, output, proc.timed_out


def observation(exit_code: int, output: str, cap: int) -> str:
    if len(output) > cap:
        half = cap // 2
        output = f"{output[:half]}\n[... {len(output) - cap} characters elided ...]\n{output[-half:]}"
    return f"exit code: {exit_code}\n<output>\n{output}</output>"


_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", ".venv"}


def workspace_state(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every workspace file outside tool caches: diffed around each command, so edits
    made through the shell are recorded on the command event (`files_changed`)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        for name in files:
            if name.endswith(".pyc"):
                continue
            path = os.path.join(dirpath, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            out[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
    return out


class LLMConversation:
    """One message history + workspace; `send` runs the loop until the model replies or a limit hits."""

    def __init__(self, agent: LLMAgent, workspace: Path, trajectory_path: Path | None = None,
                 sample: int | str = 0, inputs: AgentInputs | None = None) -> None:
        self.agent, self.workspace, self.trajectory_path = agent, workspace, trajectory_path
        context = inputs.context if inputs else {}
        self.hide = [Path(p) for p in context.get("hide", ())]
        self.readonly = [Path(p).absolute() for p in (inputs.files.values() if inputs else ())
                         if Path(p).is_absolute() and Path(p).exists()
                         and not Path(p).absolute().is_relative_to(Path(workspace).absolute())]
        self.sample = sample
        """Row key or repeat number: part of every cache key, so repeats are independent draws and a
        resumed row replays its own recording."""
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": agent.system_prompt}]
        self.trajectory: list[TrajectoryEvent] = []

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        """Add a user message and work until a reply (journey's Session protocol)."""
        start = time.monotonic()
        turn_start = len(self.trajectory)
        usage, steps, overflow = Usage(), 0, False
        self.messages.append({"role": "user", "content": user_message})
        self._event("message", {"role": "user", "content": user_message})
        try:
            while True:
                self._check_budget(budget, start, steps, usage)
                steps += 1
                try:
                    self._step(budget, start, usage)
                except (FormatError, CommandTimeout) as exc:
                    self.messages.append({"role": "user", "content": str(exc)})
                    self._event("note", {"error": type(exc).__name__, "content": str(exc)})
                finally:
                    self._save()
        except Finished as fin:
            status, detail, reply = fin.status, fin.detail, fin.reply
        except (ProviderError, MalformedOutput) as exc:
            status, detail, reply = AgentStatus.PROVIDER_ERROR, str(exc), None
            overflow = isinstance(exc, ProviderError) and exc.status == 400 and "context" in str(exc).lower()
        finally:
            self._save()
        return AgentResult(status=status, trajectory=self.trajectory[turn_start:], usage=usage,
                           wall_seconds=time.monotonic() - start, reply=reply, detail=detail,
                           context_overflow=overflow)

    def compact_history(self, keep: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        """Replace the chat history by ``keep(history)`` (a protocol's watermark policy, SWE-Journey B.1): the
        one sanctioned way to shorten this session's private state from outside."""
        self.messages = [dict(m) for m in keep([dict(m) for m in self.messages])]

    def close(self) -> None:
        self._save()

    def checkpoint(self) -> dict[str, Any]:
        """The message history (all a resumed conversation needs: the workspace is restored beside it)."""
        return {"messages": [dict(m) for m in self.messages]}

    def restore(self, state: dict[str, Any]) -> None:
        self.messages = [dict(m) for m in state.get("messages", self.messages)]

    def _step(self, budget: Budget, start: float, usage: Usage) -> None:
        a = self.agent
        rule = getattr(a.client, "unpriced_refusal", None)  # a client of the caller's own may not have it
        refusal = rule(a.model, budget.max_cost_usd) if callable(rule) else None
        if refusal is not None:  # the gateway's rule: a dollar budget is never silently unenforced
            raise InputError(refusal, item=f"--model {a.model}")
        resp = a.client.complete(self.messages, model=a.model, temperature=a.temperature, seed=a.seed,
                                 max_tokens=a.max_tokens, sample=self.sample)
        step_usage = Usage(resp.prompt_tokens, resp.completion_tokens, resp.cost_usd)
        usage.add(step_usage)
        self.messages.append({"role": "assistant", "content": resp.content})
        self._event("message", {"role": "assistant", "content": resp.content, "cache_key": resp.key,
                                "cached": resp.cached}, step_usage)
        kind, body = parse_action(resp.content)
        if kind == "reply":
            self._event("reply", {"content": body})
            raise Finished(AgentStatus.COMPLETED, "replied", reply=body)
        if a.stage == "diagnostic":
            raise FormatError(NO_SHELL)
        limit = a.command_timeout
        if budget.wall_seconds is not None:
            limit = min(limit, max(1.0, budget.wall_seconds - (time.monotonic() - start)))
        before = workspace_state(self.workspace)
        code, output, timed_out = run_shell(body, self.workspace, timeout=limit, readonly=self.readonly,
                                            hide=self.hide)
        after = workspace_state(self.workspace)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        self._event("command", {"command": body, "exit_code": code, "timed_out": timed_out,
                                "output": output[: a.output_cap], "files_changed": changed})
        if timed_out:
            raise CommandTimeout(f"The command timed out after {limit:g} seconds and was killed.\n"
                                 + observation(code, output, a.output_cap))
        self.messages.append({"role": "user", "content": observation(code, output, a.output_cap)})

    def _check_budget(self, budget: Budget, start: float, steps: int, usage: Usage) -> None:
        spent = {"step": steps, "token": usage.prompt_tokens + usage.completion_tokens,
                 "cost": usage.cost_usd or 0.0, "time": time.monotonic() - start}
        limits = {"step": budget.max_steps, "token": budget.max_tokens, "cost": budget.max_cost_usd,
                  "time": budget.wall_seconds}
        for what, limit in limits.items():
            if limit is not None and spent[what] >= limit:
                raise Finished(AgentStatus.TIMEOUT, f"{what} budget exhausted after {steps} steps")

    def _event(self, kind: str, data: dict[str, Any], usage: Usage | None = None) -> None:
        self.trajectory.append(TrajectoryEvent(kind, data, usage=usage))

    def _save(self) -> None:
        if self.trajectory_path is not None:
            write_json(self.trajectory_path, {"agent": self.agent.name, "model": self.agent.model,
                                              "events": [e.to_dict() for e in self.trajectory]})


GENERATION_CAP = 32_768
GREEDY_TEMPERATURE = 0.0
"""SWE-Journey B.1: assistants are evaluated "using greedy decoding and a 32,768-token generation cap";
these are the built-in agent's defaults (options ``temperature`` and ``max_tokens``, ``none`` = no cap)."""


class LLMAgent:
    """The ``llm`` agent. `run` is one conversation of one user message (the task prompt)."""

    name = "llm"

    def __init__(self, model: str, client: ChatClient, *, temperature: float | None = GREEDY_TEMPERATURE,
                 seed: int | None = None, max_tokens: int | None = GENERATION_CAP,
                 command_timeout: float = 120.0, output_cap: int = 10_000,
                 stage: str = "coding", system_prompt: str | None = None,
                 trajectory_path: Path | None = None) -> None:
        if stage not in STAGE_PROMPTS:
            raise InputError(f"stage must be one of {sorted(STAGE_PROMPTS)}, not {stage!r}",
                             item="agent 'llm'")
        self.model, self.client, self.stage = model, client, stage
        system_prompt = system_prompt or STAGE_PROMPTS[stage]
        self.temperature, self.seed, self.max_tokens = temperature, seed, max_tokens
        self.command_timeout, self.output_cap = command_timeout, output_cap
        self.system_prompt, self.trajectory_path = system_prompt, trajectory_path

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        path = inputs.context.get("trajectory_path") or self.trajectory_path
        sample = inputs.context.get("row_key") or inputs.context.get("repeat") or 0
        conv = LLMConversation(self, workspace, Path(path) if path else None, sample=sample, inputs=inputs)
        return conv.send(task_prompt(workspace, inputs), budget)

    def start_session(self, workspace: Path, trajectory_path: Path | None = None,
                      sample: int | str = 0) -> LLMConversation:
        return LLMConversation(self, workspace, trajectory_path or self.trajectory_path, sample=sample)


AGENT_OPTIONS = ("temperature", "seed", "max_tokens", "command_timeout", "output_cap", "trajectory_path", "stage")
"""The ``llm`` agent's own options; `CLIENT_OPTIONS` go to its model client."""
CLIENT_OPTIONS = tuple(f.name for f in fields(LLMConfig) if f.name != "base_url_hint")


@takes("model", "base_url", "api_key", "client", "arg", *AGENT_OPTIONS, *CLIENT_OPTIONS)
def make_llm_agent(model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                   **opts: Any) -> LLMAgent:
    """Built-in shell-tool + reply loop over the OpenAI-compatible client (model=openai/NAME, base_url).

    ``--agent llm --agent-opt model=openai/NAME --agent-opt base_url=URL`` (or ``--agent llm:MODEL``).

    Agent options: temperature (default 0: greedy), seed, max_tokens (default 32768; ``none``: no
    cap), command_timeout, output_cap, trajectory_path, client, and
    ``stage=diagnostic`` (no shell; the model may only reply) or ``coding`` (default). Any other
    option goes to the model client (`LLMConfig`: offline, cache, concurrency, attempts, timeout, ...).
    """
    model = model or opts.pop("arg", None)
    if not model:
        raise InputError("the llm agent needs a model (--model openai/NAME or --agent llm:NAME)",
                         item="--agent llm")
    agent_opts = {k: opts.pop(k) for k in AGENT_OPTIONS if k in opts}
    checks: dict[str, dict[str, Any]] = {  # `option_number`'s rules per option
        **SAMPLING_RULES, "command_timeout": {"unit": "seconds"}, "output_cap": {"unit": "bytes", "integer": True}}
    for key, rule in checks.items():
        if key in agent_opts:
            number = option_number(agent_opts[key], item=f"--agent-opt {key}", **rule)
            agent_opts[key] = int(number) if rule.get("integer") else number
    if "max_tokens" in agent_opts:
        cap = agent_opts["max_tokens"]
        agent_opts["max_tokens"] = None if str(cap).lower() in ("none", "0", "") else int(option_number(
            cap, item="--agent-opt max_tokens", unit="tokens", integer=True, alternative="none"))
    if "trajectory_path" in agent_opts:
        agent_opts["trajectory_path"] = Path(agent_opts["trajectory_path"])
    client = opts.pop("client", None) or ChatClient(LLMConfig.from_env(
        base_url=base_url, api_key=api_key, base_url_hint="pass `reqbench run --base-url URL`", **opts))
    return LLMAgent(model, client, **agent_opts)
