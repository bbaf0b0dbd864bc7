"""The registry: entry points of reqbench and of installed plugins; a broken plugin is named, never silent."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from reqbench.core import registry
from reqbench.core.errors import InputError


def test_reqbench_declares_its_own_protocols_agents_judges_and_schemas_as_entry_points() -> None:
    assert {"takeover", "specpath", "journey", "pace"} <= set(registry.names("protocols"))
    assert {"null", "reference", "replay", "command", "llm", "claude-code"} <= set(registry.names("agents"))
    assert {"exact", "replay", "llm"} <= set(registry.names("judges"))
    assert "run-result-row" in registry.names("schemas")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(InputError, match="unknown protocol 'nosuch'; known: .*specpath"):
        registry.load("protocols", "nosuch")


def test_a_dotted_path_is_a_spec() -> None:
    assert registry.load("schemas", "reqbench.core.store.models:RunMeta").__name__ == "RunMeta"


def _fake(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    original = registry._entries
    broken = EntryPoint(name="broken", value=value, group="reqbench.protocols")
    monkeypatch.setattr(registry, "_entries", lambda kind: {**original(kind), "broken": broken}
                        if kind == "protocols" else original(kind))


def test_a_broken_plugin_is_skipped_with_a_warning_naming_it(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    _fake(monkeypatch, "no_such_plugin_module:PROTOCOL")
    loaded = registry.load_all("protocols")
    assert {p.name for p in loaded} >= {"takeover", "pace"}
    err = capsys.readouterr().err
    assert "plugin protocol 'broken' (no_such_plugin_module:PROTOCOL) failed to load" in err


def test_a_broken_reqbench_entry_is_an_error_not_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(monkeypatch, "reqbench.protocols.no_such_module:PROTOCOL")
    with pytest.raises(ModuleNotFoundError):
        registry.load_all("protocols")
