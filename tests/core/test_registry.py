"""The registry: entry points of reqbench and of installed plugins; a broken plugin is named, never silent, a
name two packages claim is an error, and the installed distributions are read once for every kind."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

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


def _install(site: Path, package: str, entries: str) -> None:
    """A distribution's metadata as an installer leaves it (``NAME-VERSION.dist-info``), on `site`."""
    info = site / f"{package}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entries, encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` whose distributions the registry sees (its cache forgotten before and after)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.refresh()
    yield tmp_path
    monkeypatch.undo()
    registry.refresh()


def test_a_name_two_installed_packages_claim_is_an_error_naming_both(site: Path) -> None:
    _install(site, "clash_a", "[reqbench.protocols]\nclash = clash_a:PROTOCOL\n")
    _install(site, "clash_b", "[reqbench.protocols]\nclash = clash_b:PROTOCOL\n")
    with pytest.raises(InputError, match=r"protocol 'clash' is registered twice \(clash_[ab]:PROTOCOL and "
                                         r"clash_[ab]:PROTOCOL\)"):
        registry.names("protocols")
    assert "reference" in registry.names("agents")  # the other kinds are unaffected


def test_the_installed_distributions_are_read_once_for_every_kind(site: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _install(site, "extra_agent", "[reqbench.agents]\nextra = extra_agent:make\n")
    reads: list[dict[str, Any]] = []

    def counted(**params: Any) -> Any:
        reads.append(params)
        return entry_points(**params)

    monkeypatch.setattr(registry, "entry_points", counted)
    for kind in registry.GROUPS:
        registry.names(kind)
    assert len(reads) == 1
    assert registry.entry_value("agents", "extra") == "extra_agent:make"
