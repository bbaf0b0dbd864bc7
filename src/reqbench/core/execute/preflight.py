"""Preflight: everything a run needs is checked before anything is created (no run directory on failure).

In order, each failure an `InputError` (exit 2) that names what is missing and how to fix it:

0. no option names or holds a credential (`credentials`): keys come from the environment only;
1. isolation: a real agent without bubblewrap needs ``--unsafe-no-sandbox`` (`sandbox.isolation_gate`);
2. the agent builds from its options (a bad option fails here, not on the first row);
3. its program exists: a preset's binary (``claude``, ``codex``, ...) or the first word of a `command`
   template is on PATH;
4. its model is one its calls may use: priced under the protocol's dollar budget (unless
   ``--allow-unpriced``), allowed by the model gateway (`model_checks`); only then does the preset's
   program run, for its version (``BINARY --version``, recorded);
5. endpoints answer and take the key (skipped with ``--offline``, which never calls out): the agent's
   ``base_url`` (for a preset, the upstream its model gateway forwards to, the provider's own URL by
   default) and, for ``--judge llm:MODEL``, the judge's (``REQBENCH_BASE_URL`` / ``OPENAI_BASE_URL``).
   One authenticated ``GET /models`` each, with the key the run would send: 401 or 403 stops the run
   naming the environment variable the key came from, so a wrong key is not found only after every row
   was tried three times. Any other HTTP answer counts (404: the server has no listing, but it is there);
   a refused connection or a timeout does not. A model-calling agent needs an endpoint (``--base-url``
   or its environment variable), and a provider's public endpoint (a preset's default) needs a key.

The result, `AgentFacts`, is recorded in the run's provenance.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import asdict, dataclass
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.execute.agent_step import build_agent
from reqbench.core.execute.credentials import CHAT_KEYS, MESSAGES_KEYS, refuse_inline_credentials
from reqbench.core.execute.model_checks import check_models
from reqbench.core.execute.types import RunOptions
from reqbench.core.judges.spec import parse_judge_spec
from reqbench.core.sandbox import available_isolation, isolation_gate, run_sandboxed

ENDPOINT_TIMEOUT = 3.0
INSTALL_HINTS = {
    "claude": "npm install -g @anthropic-ai/claude-code",
    "codex": "npm install -g @openai/codex",
    "mini": "pip install mini-swe-agent",
    "openhands": "reqbench agents install openhands",
    "aider": "pip install aider-chat",
}


@dataclass(frozen=True)
class AgentFacts:
    """What preflight established about the agent of a run (stored in its provenance)."""

    agent: str
    program: str | None
    program_path: str | None
    version: str | None
    isolation: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def preflight(options: RunOptions, dollar_budget: float | None = None) -> AgentFacts:
    """Run every check of the module docstring for `options` (`dollar_budget`: the protocol's per row, USD,
    `core.execute.settings.check_settings`); returns the facts to record."""
    refuse_inline_credentials(options.agent, options.agent_options, options.judge)
    isolation_gate(options.agent, unsafe_no_sandbox=options.unsafe_no_sandbox)
    if options.judge:
        parse_judge_spec(options.judge)  # an unknown judge name stops the run before anything is created
    agent = build_agent(options.agent_config)
    program = _program(agent)
    path = version = None
    if program is not None:
        path = shutil.which(program)
        if path is None:
            hint = INSTALL_HINTS.get(os.path.basename(program))
            raise InputError(f"agent {options.agent!r} runs {program!r}, which is not on PATH; "
                             + (f"install it ({hint}) or " if hint else "install it or ")
                             + "pass --agent-opt binary=PATH", item="--agent")
    check_models(agent, options, dollar_budget)  # before the agent's own program runs, even its --version
    if path is not None and getattr(agent, "binary", None):
        version = _version(path)
    if not options.offline:
        base, key = agent_endpoint(agent, options)
        if base:
            check_endpoint(base, what="the agent's model endpoint (--base-url)", key=key,
                           api=str(getattr(agent, "api", "chat")))
        if options.judge.startswith("llm:"):
            judge_base = os.environ.get("REQBENCH_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
            if not judge_base:
                raise InputError("the llm judge needs an endpoint: set REQBENCH_BASE_URL (or OPENAI_BASE_URL)",
                                 item=f"--judge {options.judge}")
            check_endpoint(judge_base, what=f"the judge's endpoint (--judge {options.judge})",
                           key=env_key(CHAT_KEYS))
    return AgentFacts(agent=options.agent, program=program, program_path=path, version=version,
                      isolation=available_isolation())


def _program(agent: Any) -> str | None:
    """The program an agent starts: a preset's binary, or a `command` template's first word."""
    binary = getattr(agent, "binary", None)
    if binary:
        return str(binary)
    template = getattr(agent, "argv_template", None)
    if isinstance(template, list) and template:
        return str(template[0])
    if isinstance(template, str):
        try:
            words = shlex.split(template)
        except ValueError:
            return None
        first = next((w for w in words if "=" not in w), None)  # skip VAR=value prefixes
        if first and "{" not in first and first not in ("exec", "env", "command"):
            return first
    return None


def _version(path: str) -> str | None:
    """``BINARY --version``, first line. The binary is the agent under test, so even this runs in the
    sandbox (no network, scrubbed environment, its install directory read-only), never on the host."""
    from reqbench.core.agents.preset_base import install_dirs
    from reqbench.core.agents.state import state_folder

    with state_folder("version") as cwd:  # HOME and TMPDIR: the sandbox's tmpfs
        proc = run_sandboxed([path, "--version"], cwd, timeout=20, bind_named_files=True,
                             readonly_binds={d: d for d in install_dirs(path, [cwd])})
    text = (proc.stdout or proc.stderr).decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text and proc.exit_code == 0 else None


@dataclass(frozen=True)
class Key:
    """An API key and where it came from (an environment variable, an agent option), for the error."""

    value: str | None
    source: str


def public_endpoints() -> frozenset[str]:
    """Where a preset's calls go without ``--base-url``: the providers' own endpoints, which need a key."""
    from reqbench.core.agents.preset_base import DEFAULT_UPSTREAM  # a preset was built: already imported

    return frozenset(DEFAULT_UPSTREAM.values())




def env_key(names: tuple[str, ...]) -> Key:
    """The first of `names` set in the environment (None and all the names when none is)."""
    for name in names:
        if os.environ.get(name):
            return Key(os.environ[name], name)
    return Key(None, " or ".join(names) + " (none is set)")


def agent_endpoint(agent: Any, options: RunOptions) -> tuple[str | None, Key]:
    """The endpoint the agent's model calls reach (None: it calls none) and the key they carry; `InputError`
    for a model-calling agent without an endpoint, or a preset bound for a provider's own with no key."""
    key = agent_key(agent)
    upstream = getattr(agent, "upstream", None)
    if callable(upstream):  # a preset: its model gateway forwards to this endpoint
        base = str(upstream().base_url)
        if not key.value and base in public_endpoints():
            raise InputError(f"agent {options.agent!r} calls {base} with no key: set "
                             f"{key.source.split(' (')[0]} in the environment", item="preflight")
        return base, key
    config = getattr(getattr(agent, "client", None), "config", None)
    if config is None:  # no model client of its own
        given = options.agent_config.spec.options.get("base_url")
        return (str(given) if given else None), key
    if getattr(config, "offline", False):  # replay only: it calls nothing
        return None, key
    configured = getattr(config, "base_url", None)
    if not configured:
        raise InputError(f"agent {options.agent!r} has no model endpoint: pass --base-url URL or set "
                         "REQBENCH_BASE_URL (or OPENAI_BASE_URL)", item="preflight")
    return str(configured), key


def agent_key(agent: Any) -> Key:
    """The key the agent's calls will carry, as the agent reads it from the environment (an option never holds
    one: `credentials`)."""
    return env_key(MESSAGES_KEYS if getattr(agent, "api", "chat") == "messages" else CHAT_KEYS)


def check_endpoint(base_url: str, *, what: str, key: Key | None = None, api: str = "chat") -> None:
    """`InputError` unless an HTTP server answers at `base_url` within the timeout, and, given the run's
    `key`, does not refuse it (401/403) on ``GET /models``."""
    import httpx  # only a run against a model endpoint asks; every other run starts without it

    url = base_url.rstrip("/") + "/models"
    headers: dict[str, str] = {}
    if key is not None and key.value:
        if api == "messages":
            headers = {"x-api-key": key.value, "anthropic-version": "2023-06-01"}
        else:
            headers = {"Authorization": f"Bearer {key.value}"}
    try:
        response = httpx.get(url, timeout=ENDPOINT_TIMEOUT, headers=headers)
    except httpx.HTTPError as exc:
        raise InputError(f"{what} {base_url} does not answer ({type(exc).__name__}: {exc}); start it or fix the "
                         "URL", item="preflight") from None
    if key is not None and response.status_code in (401, 403):
        given = f"the key from {key.source}" if key.value else f"no key: set {key.source.split(' (')[0]}"
        raise InputError(f"{what} {base_url} refused {given} (HTTP {response.status_code} on GET /models); "
                         "fix the key before the run starts", item="preflight")
