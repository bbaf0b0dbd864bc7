"""Loading a family folder (and a suite of families) into one typed `Family` record.

A family folder holds `family.yaml`, the base repository, `reference.patch`, one selective negative patch
per atom, and the hidden probe tests. Loading resolves every history (hand-written turns win over
generated ones), and raises `InputError` naming file, item and rule for anything malformed. The history
file the agent sees is rendered here too (`render_history`): visible text only, no labels or atom ids.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml, validate
from reqbench.core.workspace import RepoSource
from reqbench.protocols.specpath import operators, sources
from reqbench.protocols.specpath.models import ALL_CONDITIONS, AtomSpec, FamilySpec, SuiteSpec, TurnSpec
from reqbench.protocols.specpath.placeholders import refuse_unfinished
from reqbench.protocols.specpath.replay import Atom, History, Turn

HISTORY_FILE = "SPEC_HISTORY.md"
"""Name of the rendered history inside the agent workspace (excluded from the submitted patch)."""


@dataclass(frozen=True)
class Family:
    root: Path
    spec: FamilySpec
    atoms: tuple[Atom, ...]
    """Final manipulated atoms M*, in file order."""
    fixed: tuple[Atom, ...]
    decoys: tuple[Atom, ...]
    histories: dict[str, History]

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def catalog(self) -> dict[str, Atom]:
        """Every atom a trace may name (final atoms and decoys; fixed obligations are never manipulated)."""
        return {a.id: a for a in (*self.atoms, *self.decoys)}

    @property
    def probes(self) -> tuple[str, ...]:
        """The ordered probe ids of the verifier: the signature's coordinates (eq. 4)."""
        seen: dict[str, None] = {}
        for atom in (*self.atoms, *self.fixed):
            for p in atom.probes:
                seen.setdefault(p, None)
        return tuple(seen)

    @property
    def base_repo(self) -> Path:
        """The base tree: a family folder, or a fetched release (`sources`; cached after first use)."""
        source = sources.base_source(self.root, self.spec.base_repo)
        return source.baseline() if source is not None else self.root / self.spec.base_repo

    @functools.cached_property
    def base_source(self) -> RepoSource:
        """`base_repo` as the `RepoSource` rows materialise (parsed once per loaded family)."""
        return (sources.base_source(self.root, self.spec.base_repo)
                or RepoSource.parse(str(self.root / self.spec.base_repo), self.root))

    @functools.cached_property
    def reference_text(self) -> str:
        """The reference patch (`patch_text` of `reference_patch`), read once per loaded family."""
        return self.patch_text(self.spec.reference_patch)

    @property
    def hidden_dir(self) -> Path:
        return self.root / self.spec.verifier.hidden_dir

    def patch_text(self, relpath: str) -> str:
        """The patch a `reference_patch` / `negatives` entry stands for (a file or an expression)."""
        return sources.patch_text(self.root, relpath, lambda: self.base_repo, self.spec.reference_patch)


def _atom(spec: AtomSpec) -> Atom:
    return Atom(spec.id, spec.scope, spec.condition, spec.polarity, spec.observation, tuple(spec.probes))


def _turns(items: list[TurnSpec], cond: str) -> History:
    return History(cond, tuple(Turn(t.text, tuple(t.activate), tuple(t.deactivate), tuple(t.restate))
                               for t in items))


def load_family(path: Path) -> Family:
    """Load and structurally validate a family folder (semantic checks live in `equivalence.check`)."""
    root = Path(path)
    file = root / "family.yaml"
    raw = read_yaml(file)
    refuse_unfinished(root, raw, str(file))
    spec = validate(FamilySpec, raw, str(file))
    if spec.environment is not None:
        from reqbench.core.environments import load_environment

        load_environment(spec.environment, origin=str(file), base_dir=root)
    ids = [a.id for a in (*spec.atoms, *spec.fixed, *spec.decoys)]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise InputError("atom ids must be unique", file=str(file), item=f"atom {dup[0]!r}")
    for a in (*spec.atoms, *spec.fixed):
        if not a.probes:
            raise InputError("a final-contract atom needs at least one probe (empty buckets fail closed)",
                             file=str(file), item=f"atom {a.id!r}")
    final = [a.id for a in spec.atoms]
    histories: dict[str, History] = {}
    if spec.generate is not None:
        gen = spec.generate
        missing = [a for a in (*final, gen.override.decoy, gen.cancellation.decoy) if a not in gen.phrasings]
        if missing:
            raise InputError("every final atom and decoy needs a phrasing", file=str(file),
                             item=f"generate.phrasings.{missing[0]}")
        if gen.override.replaced_by not in final:
            raise InputError("override.replaced_by must be a final atom", file=str(file),
                             item="generate.override.replaced_by")
        histories.update(operators.generate_all(gen, final))
    for cond, turns in spec.histories.items():
        histories[cond] = _turns(turns, cond)
    absent = [c for c in ALL_CONDITIONS if c not in histories]
    if absent:
        raise InputError("history missing (write it under `histories` or add a `generate` spec)",
                         file=str(file), item=f"history {absent[0]!r}")
    return Family(root, spec, tuple(_atom(a) for a in spec.atoms), tuple(_atom(a) for a in spec.fixed),
                  tuple(_atom(a) for a in spec.decoys), histories)


def render_history(history: History) -> str:
    """The visible history file: numbered user messages, nothing else (no labels, no atom ids)."""
    parts = ["# Conversation so far\n",
             "The messages below are the complete request, oldest first. Implement what the conversation "
             "asks for as it stands at the end.\n"]
    for i, turn in enumerate(history.turns, start=1):
        parts.append(f"## Message {i}\n\n{turn.text.strip()}\n")
    return "\n".join(parts)


def load_suite(path: Path) -> tuple[str, list[Path]]:
    """A suite folder (`suite.yaml` with `protocol: specpath`) or a single family folder -> family dirs."""
    root = Path(path)
    if (root / "family.yaml").is_file():
        return root.name, [root]
    file = root / "suite.yaml"
    spec = validate(SuiteSpec, read_yaml(file), str(file))
    if spec.protocol != "specpath":
        raise InputError("protocol must be 'specpath'", file=str(file), item="protocol")
    dirs = [root / f for f in spec.families]
    for d in dirs:
        if not (d / "family.yaml").is_file():
            raise InputError("listed family has no family.yaml", file=str(file), item=f"family {d.name!r}")
    return spec.name, dirs


def provenance_warnings(family: Family) -> list[str]:
    """Missing source anchoring or history audit, one sentence each (SpecPath: source anchoring and
    human audit of the visible histories). Warnings, not errors: a family without them still runs."""
    where = f"{family.root / 'family.yaml'}: provenance"
    prov = family.spec.provenance
    if prov is None:
        return [f"{where}: missing (record the source, its versions or commit, the licence and the audit)"]
    out = []
    if prov.source.value != "written" and not (prov.base or prov.change):
        out.append(f"{where}: no base version/commit or change recorded for a {prov.source.value} source")
    if prov.audit is None:
        out.append(f"{where}: no human audit of the visible histories recorded")
    elif prov.audit.verdict.value == "rejected":
        out.append(f"{where}: the history audit by {prov.audit.reviewer} ({prov.audit.date}) rejected the family")
    return out


def provenance_lines(family: Family) -> list[str]:
    """Human-readable provenance for `specpath check` (empty when none is recorded)."""
    prov = family.spec.provenance
    if prov is None:
        return []
    lines = [f"source: {prov.source.value} -- {prov.project} (licence {prov.licence})"]
    lines += [f"{name}: {value}" for name, value in (("base", prov.base), ("change", prov.change),
                                                      ("adapted", prov.adapted)) if value]
    if prov.audit is not None:
        a = prov.audit
        lines.append(f"audit: {a.verdict.value} by {a.reviewer} on {a.date}" + (f" -- {a.notes}" if a.notes else ""))
    else:
        lines.append("audit: none recorded")
    return lines
