"""PACE report artefacts: the symptom x signal heatmap (PNG) and a plain-text case summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.protocols.pace.attribution import SIGNALS, SYMPTOMS, cooccurrence


def heatmap_png(cases: list[dict[str, Any]], path: Path, title: str = "symptom x signal (cases)") -> Path:
    """Write the co-occurrence heatmap of `cases` (scored case dicts) to `path` with matplotlib Agg."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = cooccurrence(cases)
    data = [[table[s][g] for g in SIGNALS] for s in SYMPTOMS]
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    im = ax.imshow(data, cmap="Blues", vmin=0, vmax=max(1, max(max(r) for r in data)))
    ax.set_xticks(range(len(SIGNALS)), [g.replace("_", "\n") for g in SIGNALS], fontsize=7)
    ax.set_yticks(range(len(SYMPTOMS)), [s.replace("_", " ") for s in SYMPTOMS], fontsize=8)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            ax.text(j, i, str(v), ha="center", va="center", fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def render_case(result: dict[str, Any]) -> str:
    """A human summary of one scored case (`reqbench pace score` without --json)."""
    lines = [f"NOTE: {result['judge_notice']}"] if result.get("judge_notice") else []
    lines += [
        f"case {result['case_id']}: score {_fmt(result['score'])}, complete {result['complete']}, "
        f"judge {result['judge']}"
    ]
    for p in result["points"]:
        lines.append(
            f"  {p['point_id']:<8} {p['verdict']:<10} w={p['weight']:<5g} {p['stage']}  "
            f"{(p['reasoning'] or '')[:100]}"
        )
    if result.get("unresolved"):
        lines.append(f"  unresolved (score blocked): {', '.join(result['unresolved'])}")
    return "\n".join(lines)


def _fmt(v: float | None) -> str:
    return "blocked (unresolved)" if v is None else f"{v:.2f}"
