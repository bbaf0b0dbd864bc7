"""`core.sandbox.warm`: the per-process sandbox caches filled ahead of the first launch, which then
decides nothing anew."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.sandbox import available_isolation, run_sandboxed, view
from reqbench.core.sandbox.cgroups import parents
from reqbench.core.sandbox.limits import default_memory
from reqbench.core.sandbox.warm import warm_up


def test_warm_up_fills_the_caches_a_launch_uses(tmp_path: Path) -> None:
    available_isolation.cache_clear()
    parents.cache_clear()
    default_memory.cache_clear()
    view._host_parts.clear()
    assert warm_up() == (available_isolation() == "bwrap")
    assert available_isolation.cache_info().currsize == 1
    assert parents.cache_info().currsize == 1 and default_memory.cache_info().currsize == 1
    built = dict(view._host_parts)
    assert len(built) == (1 if available_isolation() == "bwrap" else 0)
    result = run_sandboxed(["true"], tmp_path)
    assert result.exit_code == 0
    assert view._host_parts == built  # the launch found its host part made: nothing built twice
    assert available_isolation.cache_info().misses == 1 and parents.cache_info().misses == 1
