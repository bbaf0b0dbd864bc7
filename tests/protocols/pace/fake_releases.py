"""Two releases of a tiny project placed in a private ``$REQBENCH_CACHE`` as if pip had fetched them,
and a PACE case whose reference is the upstream change between them (``pypi-diff:``), all offline.

toylib 1.0 has ``add``; 1.1 adds ``scale`` (exported), a ``stats`` module with ``mean``, a test file
and a README line. The cache layout is the one `core.workspace.sources` writes (`pypi/NAME-VER/` holding
the sdist and its recorded sha256), so nothing is downloaded.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import yaml

from reqbench.core.hashing import sha256_file

V10 = {
    "toylib/__init__.py": '__all__ = ["add"]\n\n\ndef add(a, b):\n    """Sum of two numbers."""\n    return a + b\n',
    "README.rst": "toylib\n======\n\nSmall helpers.\n",
}
V11 = {
    "toylib/__init__.py": (
        '__all__ = ["add", "scale"]\n\nfrom toylib.stats import mean  # noqa: F401\n\n\n'
        'def add(a, b):\n    """Sum of two numbers."""\n    return a + b\n\n\n'
        'def scale(values, factor):\n    """Every value multiplied by factor."""\n'
        '    if factor == 0:\n        raise ValueError("factor must not be zero")\n'
        "    return [value * factor for value in values]\n"
    ),
    "toylib/stats.py": "def mean(values):\n    values = list(values)\n    return sum(values) / len(values)\n",
    "tests/test_scale.py": "from toylib import scale\n\n\ndef test_scale():\n    assert scale([1, 2], 3) == [3, 6]\n",
    "README.rst": "toylib\n======\n\nSmall helpers, now with scale() and stats.mean().\n",
}


def _sdist(cache: Path, version: str, files: dict[str, str]) -> str:
    folder = cache / "pypi" / f"toylib-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"toylib-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"toylib-{version}/{rel}")
            info.size, info.mtime = len(data), 1_700_000_000
            tar.addfile(info, io.BytesIO(data))
    sha = sha256_file(path)
    (folder / "sdist.sha256").write_text(sha + "\n")
    return sha


def fake_releases(cache: Path) -> tuple[str, str]:
    """Put toylib 1.0 and 1.1 into `cache`; returns their sdist sha256s."""
    return _sdist(cache, "1.0", V10), _sdist(cache, "1.1", V11)


def upstream_case(dest: Path, shas: tuple[str, str], pinned: bool = True) -> Path:
    """A PACE case on toylib 1.0 whose reference is the 1.0 -> 1.1 change (not frozen)."""
    pins = f"&sha256={shas[0]},{shas[1]}" if pinned else ""
    points = [
        {"id": "CP01", "kind": "behavior", "description": "scale multiplies every value.",
         "provenance": "explicit", "weight": 6, "retrieval_hints": ["toylib/__init__.py::scale"],
         "contract": {"strategy": "signature", "target": "toylib/__init__.py::scale",
                      "params": ["values", "factor"]},
         "criteria": [{"criterion_id": "CP01.c1", "text": "scale returns each value multiplied by factor."},
                      {"criterion_id": "CP01.c2", "text": "A zero factor raises ValueError."}]},
        {"id": "CP02", "kind": "registration", "description": "scale is exported.", "provenance": "explicit",
         "weight": 2, "retrieval_hints": ["toylib/__init__.py"],
         "contract": {"strategy": "exported", "target": "toylib/__init__.py", "name": "scale"},
         "criteria": [{"criterion_id": "CP02.c1", "text": "scale is listed in toylib.__all__."}]},
        {"id": "CP03", "kind": "behavior", "description": "stats.mean averages values.",
         "provenance": "derived", "weight": 4, "retrieval_hints": ["toylib/stats.py::mean"],
         "criteria": [{"criterion_id": "CP03.c1", "text": "mean returns the sum of the values divided by their count."}]},
        {"id": "CP04", "kind": "documentation", "description": "README mentions the new helpers.",
         "provenance": "explicit", "weight": 1, "retrieval_hints": ["README.rst"],
         "criteria": [{"criterion_id": "CP04.c1", "text": "README.rst mentions scale and stats mean helpers."}]},
    ]
    case = {
        "protocol": "pace", "id": "toylib-scale", "title": "scale and mean for toylib",
        "base": "pypi:toylib==1.0", "base_sha256": shas[0], "prd": "prd.md",
        "reference_patch": f"pypi-diff:toylib==1.0..1.1#paths=toylib/*,tests/*,README.rst{pins}",
        "code_points": points,
    }
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "case.yaml").write_text(yaml.safe_dump(case, sort_keys=False))
    (dest / "prd.md").write_text("# PRD\nAdd scale(values, factor) and stats.mean(values); export scale.\n")
    return dest
