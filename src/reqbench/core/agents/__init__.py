"""Agents: the interface (`base`), the registry and spec parser (`registry`), the control agents (null,
reference, replay), the `command` and `llm` agents and the CLI presets (claude-code, codex, ...)."""
