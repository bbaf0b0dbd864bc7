"""Point judges for L2: ``offline`` (reference-similarity heuristic, the default), ``replay:FILE``,
``llm[:MODEL]`` (the checklist prompt over the OpenAI-compatible client)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.l2 import PointJudge


def make_point_judge(spec: str, reference: Callable[[], Mapping[str, EvidencePackage]]) -> PointJudge:
    """Build a judge from its spec. `reference` lazily yields the reference packages (offline only)."""
    name, _, arg = spec.partition(":")
    if name in ("offline", "exact", ""):
        from reqbench.protocols.pace.judges.offline import OfflineJudge

        return OfflineJudge(reference())
    if name == "replay":
        from reqbench.protocols.pace.judges.replay import ReplayJudge

        if not arg:
            raise InputError("replay judge needs a file: replay:FILE", item=spec)
        return ReplayJudge(Path(arg))
    if name == "llm":
        from reqbench.protocols.pace.judges.llm import LLMPointJudge

        return LLMPointJudge(model=arg or None)
    raise InputError("unknown judge (offline | replay:FILE | llm[:MODEL])", item=spec)
