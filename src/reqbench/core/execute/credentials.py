"""Credentials are never options: the rule that refuses them before anything is created.

A run stores its options: in ``run.sqlite``, in a study's ``study.json``, and from there in every report,
export, CSV and viewer page. A provider key given as ``--agent-opt api_key=...`` (or in a study file's
``agent_opts``, or as ``reqbench study add``'s ``opt.KEY=VALUE``) would be written in plain text in all of
them. So keys are read only from the environment (`CHAT_KEYS`, `MESSAGES_KEYS`), and an option is refused
(exit 2, nothing created, the value never repeated) when

* its name looks like a credential: one of its words (the name split at ``.``, ``_``, ``-`` and
  lowerCamel humps) is in `CREDENTIAL_WORDS`, or the name ends in ``apikey``; at any depth, so
  ``env={OPENAI_API_KEY: ...}`` is refused too;
* or its value looks like one, anywhere in its text (`CREDENTIAL_VALUES`: ``sk-...`` and ``sk-ant-...``
  keys, ``Bearer ...``, the prefixes of other providers' keys, a URL with a password, a private key), or
  carries an assignment or a command-line flag named like a credential (``OPENAI_API_KEY=...``,
  ``--api-key ...``).

The agent spec (``--agent``, whose argument is free text: ``command:TEMPLATE``, ``claude-code:MODEL``) and
the judge spec (``--judge``) are stored like options, so both are held to the value rule. The refusal names
the environment variable the agent reads its key from (`key_variables`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from reqbench.core.errors import InputError

CHAT_KEYS = ("REQBENCH_API_KEY", "OPENAI_API_KEY")
"""Where the model client, the ``llm`` agent, the ``llm:`` judge and OpenAI-API presets read their key, in
order."""
MESSAGES_KEYS = ("ANTHROPIC_API_KEY", "REQBENCH_API_KEY")
"""Where Anthropic-API presets (Claude Code) read theirs."""

CREDENTIAL_WORDS = frozenset({
    "key", "apikey", "token", "secret", "secrets", "password", "passwd", "passphrase", "pwd", "auth",
    "authorization", "bearer", "credential", "credentials", "cookie"})
"""Words that make an option's name a credential's (``api_key``, ``token``, ``auth``, ``GITHUB_TOKEN``)."""

CREDENTIAL_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((what, re.compile(pattern)) for what, pattern in (
    ("an sk- API key", r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}"),
    ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    ("a GitHub token", r"\b(?:gh[opusr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("an AWS access key", r"\bA(?:KIA|SIA)[0-9A-Z]{16}\b"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{30,}"),
    ("a provider API key", r"\b(?:hf|gsk|r8)_[A-Za-z0-9]{20,}|\b(?:pplx|nvapi|xai)-[A-Za-z0-9_-]{20,}"),
    ("a URL with a password", r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@"),
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
))
"""What a credential's value looks like, with the words the refusal uses for it (never the value itself)."""

_NAMED_IN_TEXT = re.compile(r"(?<![\w-])--?([A-Za-z][\w-]*)|\b([A-Za-z_][\w-]*)=")
"""A command-line flag (``--api-key``) or an assignment (``OPENAI_API_KEY=``) inside an option's text."""
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_credential_name(name: str) -> bool:
    """Whether `name` (an option, a dotted ``PROTOCOL.KEY``, an environment variable) names a credential."""
    words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", _HUMP.sub("_", name)) if w]
    return any(w in CREDENTIAL_WORDS for w in words) or "".join(words).endswith("apikey")


def credential_in_text(text: str) -> str | None:
    """What in `text` looks like a credential (``an sk- API key``, ``a flag named 'api-key'``), or None."""
    for what, pattern in CREDENTIAL_VALUES:
        if pattern.search(text):
            return what
    for match in _NAMED_IN_TEXT.finditer(text):
        name = match.group(1) or match.group(2)
        if is_credential_name(name):
            return f"a setting named {name!r}"
    return None


def find_credential(options: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(where, why)`` of the first option that names or holds a credential, or None."""
    for path, value in _leaves(options, ""):
        name = path.rsplit(".", 1)[-1].split("[", 1)[0]
        if name and is_credential_name(name):
            return path, "is named like a credential"
        found = credential_in_text(value) if isinstance(value, str) else None
        if found is not None:
            return path, f"holds what looks like {found}"
    return None


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every ``(dotted path, value)`` of nested mappings and lists; a mapping's keys are names too."""
    if isinstance(value, Mapping):
        if not value and path:
            yield path, value
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{index}]")
    else:
        yield path, value


def key_variables(agent: str) -> tuple[str, ...]:
    """The environment variables the agent of spec `agent` reads its key from, in order."""
    name = agent.partition(":")[0].partition("@")[0]
    from reqbench.core.agents.presets import PRESETS  # the preset table, only when a credential is refused

    preset = PRESETS.get(name)
    return MESSAGES_KEYS if preset is not None and preset.api == "messages" else CHAT_KEYS


def credential_refusal(agent: str, agent_options: Mapping[str, Any], judge: str = "",
                       option: str = "--agent-opt") -> tuple[str, str] | None:
    """``(item, one sentence)`` refusing an inline credential among a run's options, or None."""
    found = find_credential(agent_options)
    for flag, text in (("--agent", agent), ("--judge", judge)):
        why = credential_in_text(text) if found is None and text else None
        if why is not None:
            found, option = (flag, f"holds what looks like {why}"), ""
    if found is None:
        return None
    where, why = found
    item = f"{option} {where}".strip()
    variables = " (or ".join(key_variables(agent)) + ")"
    return item, (f"this option {why}; credentials are never taken as options (every run, study file and "
                  f"report stores its options), so set {variables} in the environment instead")


def refuse_inline_credentials(agent: str, agent_options: Mapping[str, Any], judge: str = "") -> None:
    """`InputError` (exit 2) for an option that names or holds a credential (`credential_refusal`)."""
    refusal = credential_refusal(agent, agent_options, judge)
    if refusal is not None:
        raise InputError(refusal[1], item=refusal[0])
