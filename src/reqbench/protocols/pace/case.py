"""Loading PACE cases and suites, and freezing their acceptance contracts by content hash.

A case must be frozen (`reqbench pace freeze CASE`) before any candidate is scored: the hash covers the
Code Points (criteria, weights, contracts, hints), the PRD, the reference patch and the base source, so a
contract edited after freezing is refused at scoring time (paper §2: frozen before agent evaluation).

The reference patch is a file in the case folder or a ``pypi-diff:NAME==A..B#paths=...&sha256=A,B``
upstream change (`core.workspace.sources.read_patch`), read on first use so that loading and shallow
validation stay offline. A pinned ``pypi-diff:`` reference is content-addressed by its two sdist hashes,
so the frozen hash covers the spec string itself (the patch is a pure function of the two pinned sdists
and the path filter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, sha256_json, sha256_text
from reqbench.core.inputfiles import read_yaml, validate
from reqbench.core.workspace.pypi_diff import is_pypi_diff
from reqbench.core.workspace.sources import read_patch
from reqbench.protocols.base import marker_protocol
from reqbench.protocols.pace.models import CaseFile, CodePoint, SuiteFile

CASE_FILE = "case.yaml"
SUITE_FILE = "suite.yaml"


@dataclass
class Case:
    dir: Path
    spec: CaseFile
    prd: str
    _reference_text: str | None = field(default=None, repr=False)

    @property
    def reference_is_upstream(self) -> bool:
        """Whether the reference is a ``pypi-diff:`` upstream change rather than a patch file."""
        return is_pypi_diff(self.spec.reference_patch)

    @property
    def reference_patch(self) -> str:
        """The reference patch text (a ``pypi-diff:`` change is fetched and cached on first use)."""
        if self._reference_text is None:
            self._reference_text = read_patch(self.dir, self.spec.reference_patch, "reference patch")
        return self._reference_text

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def points(self) -> list[CodePoint]:
        return self.spec.code_points

    @property
    def weights(self) -> dict[str, float]:
        return {p.id: p.weight for p in self.spec.code_points}


def _yaml(path: Path) -> dict[str, Any]:
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("must be a YAML mapping", file=str(path))
    return data


def is_case_dir(path: Path) -> bool:
    return marker_protocol(Path(path) / CASE_FILE) == "pace"


def is_suite_dir(path: Path) -> bool:
    return marker_protocol(Path(path) / SUITE_FILE) == "pace"


def load_case(path: Path) -> Case:
    path = Path(path)
    file = path / CASE_FILE
    if not file.is_file():
        raise InputError("no case.yaml in the case folder", file=str(path))
    spec = validate(CaseFile, _yaml(file), str(file))
    if spec.environment is not None:
        from reqbench.core.environments import load_environment

        load_environment(spec.environment, origin=str(file), base_dir=path)
    if spec.protocol != "pace":
        raise InputError(f"protocol must be 'pace', got {spec.protocol!r}", file=str(file))
    names = [spec.prd] + ([] if is_pypi_diff(spec.reference_patch) else [spec.reference_patch])
    texts = []
    for name in names:
        p = path / name
        if not p.is_file():
            raise InputError(f"missing file {name}", file=str(file), item=name)
        texts.append(p.read_text(encoding="utf-8"))
    return Case(path, spec, texts[0], texts[1] if len(texts) > 1 else None)


def load_suite(path: Path) -> tuple[SuiteFile | None, list[Case]]:
    """A suite folder (suite.yaml) -> its cases; a single case folder -> (None, [case])."""
    path = Path(path)
    if is_case_dir(path):
        return None, [load_case(path)]
    file = path / SUITE_FILE
    if not file.is_file():
        raise InputError("neither a PACE suite (suite.yaml) nor a case (case.yaml)", file=str(path))
    suite = validate(SuiteFile, _yaml(file), str(file))
    return suite, [load_case(path / c) for c in suite.cases]


def contract_hash(case: Case) -> str:
    """sha256 over the frozen contract: base, Code Points, PRD text and reference patch text (a
    ``pypi-diff:`` reference by its spec, which pins both sdists)."""
    s = case.spec
    reference = s.reference_patch.strip() if case.reference_is_upstream else case.reference_patch
    return sha256_json(
        {
            "id": s.id,
            "base": s.base,
            "base_sha256": s.base_sha256,
            "language": s.language,
            "prd_sha256": sha256_text(case.prd),
            "reference_patch_sha256": sha256_text(reference),
            "code_points": [p.model_dump(mode="json") for p in s.code_points],
        }
    )


def check_frozen(case: Case) -> str:
    """Return the frozen hash, or raise when the case is not frozen or changed since freezing."""
    want = contract_hash(case)
    if case.spec.frozen_hash is None:
        raise InputError(
            "case is not frozen; run `reqbench pace freeze` before scoring",
            file=str(case.dir / CASE_FILE),
            item=case.id,
        )
    if case.spec.frozen_hash != want:
        raise InputError(
            "frozen_hash does not match the contract (edited after freezing?)",
            file=str(case.dir / CASE_FILE),
            item=case.id,
        )
    return want


def freeze_case(path: Path) -> str:
    """Write the current contract hash into case.yaml (`frozen_hash:` line), keeping the rest as written."""
    case = load_case(path)
    digest = contract_hash(case)
    file = Path(path) / CASE_FILE
    text = file.read_text(encoding="utf-8")
    line = f"frozen_hash: {digest}"
    if re.search(r"^frozen_hash:.*$", text, flags=re.M):
        text = re.sub(r"^frozen_hash:.*$", line, text, count=1, flags=re.M)
    else:
        text = text.rstrip("\n") + "\n" + line + "\n"
    atomic_write_text(file, text)
    return digest
