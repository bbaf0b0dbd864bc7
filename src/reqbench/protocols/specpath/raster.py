"""The signature raster (SpecPath Fig. 3): one line per block, one cell group per condition, one cell per
probe (pass / fail / not scored), so the overlap that a single score discards stays visible. A scored
failure decided before the verifier ran (agent timeout, no patch, forbidden content, patch-apply failure:
no signature) is a failure, every probe red; grey is only for rows that were not scored (attrition) or
not run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reqbench.protocols.specpath.metrics import ResultRow
from reqbench.protocols.specpath.models import ALL_CONDITIONS

PASS, FAIL, MISSING, GAP = 2, 1, 0, 3


def cell_codes(cell: ResultRow | None, width: int) -> list[int]:
    """One condition's cells of a block (SpecPath §3, eq. 4-5 and Fig. 3): the probe signature when the
    verifier ran; a scored outcome without one (a fixed-budget failure before verification; Y = 0, so no
    probe counts as realised) is `FAIL` on every probe; an unscored or absent row is `MISSING`."""
    if cell is None or not cell.scored:
        return [MISSING] * width
    if cell.signature:
        return [PASS if v else FAIL for v in cell.signature]
    return [PASS if cell.outcome == "success" else FAIL] * width


def raster_matrix(rows: Sequence[ResultRow]) -> tuple[list[list[int]], list[str], list[str]]:
    """Cell codes (rows = blocks, columns = condition x probe), block labels, condition labels."""
    conds = [c for c in ALL_CONDITIONS if any(r.condition == c for r in rows)]
    conds += sorted({r.condition for r in rows} - set(conds))
    width = max((len(r.signature) for r in rows if r.signature), default=1)
    by_block: dict[tuple[str, str, int], dict[str, ResultRow]] = {}
    for r in rows:
        by_block.setdefault(r.block, {})[r.condition] = r
    matrix, labels = [], []
    for key in sorted(by_block):
        line: list[int] = []
        for c in conds:
            cell = by_block[key].get(c)
            cells = cell_codes(cell, width)
            line += cells + [MISSING] * (width - len(cells)) + [GAP]
        matrix.append(line[:-1])
        labels.append(f"{key[0]} | {key[1]} | r{key[2]}")
    return matrix, labels, conds


def write_raster(rows: Sequence[ResultRow], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    from reqbench.core.hashing import atomic_write_bytes

    matrix, labels, conds = raster_matrix(rows)
    if not matrix:
        matrix, labels = [[MISSING]], ["(no rows)"]
    cmap = ListedColormap(["#d9d9d9", "#d62728", "#2ca02c", "#ffffff"])
    fig_h = max(2.0, 0.22 * len(matrix) + 1.2)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.18 * len(matrix[0]) + 3), fig_h))
    ax.imshow(matrix, cmap=cmap, vmin=0, vmax=3, aspect="auto", interpolation="nearest")
    ax.set_yticks(range(len(labels)), labels, fontsize=6)
    group = (len(matrix[0]) + 1) / max(len(conds), 1)
    ax.set_xticks([group * i + (group - 1) / 2 - 0.5 for i in range(len(conds))], conds, rotation=30,
                  ha="right", fontsize=7)
    ax.set_title("Probe signatures (green pass, red fail, grey not scored)", fontsize=8)
    fig.tight_layout()
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    atomic_write_bytes(Path(path), buf.getvalue())
