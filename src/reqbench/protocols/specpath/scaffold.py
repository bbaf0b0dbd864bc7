"""`reqbench specpath scaffold`: a family skeleton from two releases of a PyPI project.

What can be derived from the releases is filled in: ``base_repo`` (release A pinned by the sdist's
sha256), ``reference_patch`` (the maintainers' change A..B as ``pypi-diff:`` with both sdists pinned and
a path filter: the given globs, or every changed file that is not a test), provenance (project and URL,
versions, licence read from the sdist's ``PKG-INFO``), the verifier's import root, and the candidate
probes -- the test functions B added or changed (`scaffold_probes`), copied into
``hidden/test_probes.py`` with their origin. What only a person can write -- atoms, decoys, phrasings,
the negative deltas, what was adapted -- is left as values marked ``FILL IN`` (`placeholders`), so every
command refuses the family, naming each spot, until they are written.

The folder is built next to its destination and renamed into place; an existing non-empty folder is
never touched.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

import yaml

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.filemodes import as_umask_allows
from reqbench.core.workspace import RepoSource
from reqbench.core.workspace.pypi_diff import touched
from reqbench.core.workspace.trees import remove_tree
from reqbench.protocols.specpath.placeholders import MARKER
from reqbench.protocols.specpath.scaffold_probes import collect, is_test_file

_REQ_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
_CLASSIFIER_SPDX = {"MIT License": "MIT", "Apache Software License": "Apache-2.0",
                    "BSD License": "BSD", "ISC License (ISCL)": "ISC",
                    "Python Software Foundation License": "PSF-2.0",
                    "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0"}
ATOMS = ("atom_1", "atom_2")
ADAPTED = "what was taken verbatim (the probes kept from hidden/test_probes.py) and what was written for this family"
DECOYS = ("decoy_override", "decoy_cancel")
FILLER = ("Thanks for taking this on.", "This came up in our own code.", "No rush on this one.",
          "Happy to answer questions.", "Cheers.", "Have a good day.", "Much appreciated.")


@dataclass
class Scaffold:
    """What `scaffold` wrote and found, for the command's message."""

    out: Path
    base_repo: str
    reference: str
    licence: str
    changed: list[str]
    reference_size: tuple[int, int, int]
    probes: dict[str, str] = field(default_factory=dict)
    """candidate probe id -> origin in release B."""
    notes: list[str] = field(default_factory=list)


def parse_requirements(old: str, new: str) -> tuple[str, str, str]:
    """``NAME==A`` and ``NAME==B`` -> (NAME, A, B); `InputError` names the bad argument."""
    parsed = []
    for req in (old, new):
        m = _REQ_RE.match(req.strip())
        if not m:
            raise InputError("expected NAME==VERSION (a released sdist on PyPI)", item=req)
        parsed.append(m.groups())
    (name_a, a), (name_b, b) = parsed
    if name_a.lower().replace("_", "-") != name_b.lower().replace("_", "-"):
        raise InputError(f"both releases must be of one project (got {name_a!r} and {name_b!r})", item=new)
    if a == b:
        raise InputError("the two versions must differ", item=new)
    return name_a, a, b


def licence_of(pkg_info: str) -> str:
    """The licence a ``PKG-INFO`` declares: License-Expression, a one-line License, or a classifier."""
    meta = HeaderParser().parsestr(pkg_info)
    expr = (meta.get("License-Expression") or "").strip()
    if expr:
        return expr
    lic = (meta.get("License") or "").strip()
    if lic and "\n" not in lic and len(lic) <= 40 and lic.upper() != "UNKNOWN":
        return lic
    for classifier in meta.get_all("Classifier") or []:
        if classifier.startswith("License ::"):
            last = classifier.split("::")[-1].strip()
            return _CLASSIFIER_SPDX.get(last, last)
    return ""


def _project_url(pkg_info: str) -> str:
    meta = HeaderParser().parsestr(pkg_info)
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("source", "source code", "repository", "homepage", "home", "github"):
            return url.strip()
    return (meta.get("Home-page") or "").strip()


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _fill(what: str) -> str:
    return _q(f"{MARKER}: {what}")


def _family_yaml(fid: str, name: str, a: str, b: str, s: Scaffold, url: str, pythonpath: str,
                 globs: list[str]) -> str:
    probes = list(s.probes) or [f"{MARKER}: test_probes.py::test_... (no candidate was found)"]
    licence = _q(s.licence) if s.licence else _fill("SPDX licence id (none declared in the sdist metadata)")
    project = f"{name} ({url})" if url else name
    changed = "\n".join(f"#   {f}" for f in s.changed)
    negatives = "\n".join(f"  {a_id}: reference + negatives/{a_id}.patch" for a_id in ATOMS)
    atoms = "\n".join(f"""  - id: {a_id}
    scope: {_fill("function, class or module the behaviour belongs to")}
    condition: {_fill("input condition under which it is observed")}
    polarity: require
    observation: {_fill("the observable result the probes check")}
    probes: [{", ".join(_q(p) for p in (probes if i == 0 else [f"{MARKER}: probe ids of this atom"]))}]"""
                      for i, a_id in enumerate(ATOMS))
    decoys = "\n".join(f"""  - id: {d_id}
    scope: {_fill("where the decoy behaviour would apply")}
    polarity: require
    observation: {_fill(what)}"""
                       for d_id, what in zip(DECOYS, ("an obsolete variant of atom_1 that the override "
                                                       "history first asks for", "a temporary request "
                                                       "the cancellation history withdraws"), strict=True))
    phrasings = "\n".join(f"    {i}: {_fill('one sentence a user would write for ' + i)}" for i in (*ATOMS, *DECOYS))
    filler = "\n".join(f"    - {_q(t)}" for t in FILLER)
    return f"""# Scaffolded by `reqbench specpath scaffold {name}=={a} {name}=={b}`. Every value marked
# {MARKER!r} is yours to write; `reqbench specpath check` names each one until none is left.
# Files changed between {a} and {b} (test files are the candidate probes in hidden/test_probes.py):
{changed}
id: {_q(fid)}
description: {_fill(f"one line on the behaviour {name} {b} added")}
provenance:
  source: pypi-sdist
  project: {_q(project)}
  licence: {licence}
  base: {_q(f"{name} {a} (PyPI sdist)")}
  change: {_q(f"{name} {a} -> {b} (PyPI sdists), restricted to {', '.join(globs)}")}
  adapted: {_fill(ADAPTED)}
base_repo: {_q(s.base_repo)}
reference_patch: {_q(s.reference)}
# One selective negative per atom: the reference plus a small delta (negatives/<atom>.patch) that reverses
# that atom only, so it fails the atom's probes and leaves every other atom's probes passing.
negatives:
{negatives}
verifier:
  pythonpath: [{_q(pythonpath)}]
# Final atoms: split the candidate probes among them (a test that observes two atoms may be listed under
# both); delete atom_2 if the change has one behaviour only, add atoms as needed.
atoms:
{atoms}
# Fixed obligations: upstream tests that already passed on {a} and must keep passing (optional).
fixed: []
decoys:
{decoys}
generate:
  opening: ""
  phrasings:
{phrasings}
  paraphrase: {_fill("the whole contract restated in one message, in other words")}
  override:
    decoy: {DECOYS[0]}
    replaced_by: {ATOMS[0]}
    revision: {_fill("lead-in of the revising message, e.g. 'Change of plan on ...'")}
  cancellation:
    decoy: {DECOYS[1]}
    cancel: {_fill("the message withdrawing the temporary request")}
  filler:
{filler}
"""


def _negative_note(atom: str, name: str, b: str) -> str:
    return (f"{MARKER}: replace this note with a one-hunk git-style patch, applied on top of the reference\n"
            f"({name} {b}'s change), that reverses {atom} only -- for example the line of {b} that realises it\n"
            f"put back as it was before. Write it with `git diff` in a checkout of the reference.\n")


def _fetch(name: str, version: str) -> tuple[Path, str]:
    source = RepoSource.parse(f"pypi:{name}=={version}").resolved()
    return source.baseline(), str(source.sha256)


def _target(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("already exists and is not an empty folder; scaffold never overwrites",
                         file=str(out))


def _environment_yaml(environment: dict[str, Any] | None) -> str:
    """The family's ``environment:`` block, appended to the template (nothing without one)."""
    if not environment:
        return ""
    return yaml.safe_dump({"environment": environment}, sort_keys=False, width=110, allow_unicode=True)


def scaffold(old: str, new: str, out: Path, paths: list[str] | None = None,
             environment: dict[str, Any] | None = None) -> Scaffold:
    """Fetch both releases, derive what can be derived, write the skeleton to `out` (atomically), with
    `environment` (a validated block) as the family's task environment."""
    name, a, b = parse_requirements(old, new)
    out = Path(out)
    _target(out)
    tree_a, sha_a = _fetch(name, a)
    tree_b, sha_b = _fetch(name, b)
    everything = RepoSource.parse(f"pypi-diff:{name}=={a}..{b}#sha256={sha_a},{sha_b}").change_patch()
    changed = touched(everything)[0]
    globs = [g.strip().lstrip("/") for g in (paths or []) if g.strip()]
    if not globs:
        globs = [f for f in changed if not is_test_file(f)]
        if not globs:
            raise InputError(f"only test files changed between {a} and {b}; pass --paths", item=f"{name}=={b}")
    reference = f"pypi-diff:{name}=={a}..{b}#paths={','.join(globs)}&sha256={sha_a},{sha_b}"
    files, added, removed = touched(RepoSource.parse(reference).change_patch())
    pkg_info = (tree_b / "PKG-INFO").read_text(encoding="utf-8", errors="replace") \
        if (tree_b / "PKG-INFO").is_file() else ""
    s = Scaffold(out, f"pypi:{name}=={a}#sha256={sha_a}", reference, licence_of(pkg_info), changed,
                 (len(files), added, removed))
    tests = [f for f in changed if is_test_file(f)]
    header = (f"# Candidate probes for {name} {a} -> {b}: the test functions {b} added or changed, copied from\n"
              f"# the project's own tests ({s.licence or 'licence: see the sdist'}; the notice ships in the "
              f"sdist).\n# Keep the tests that check the change, move tests that passed on {a} under `fixed`, "
              "delete the rest.")
    found = collect(tree_a, tree_b, tests, header)
    s.probes, s.notes = found.origins, found.notes
    s.notes += [f"the reference touches test file {f}; tests belong in hidden/, not in the change"
                for f in files if is_test_file(f)]
    pythonpath = "src" if (tree_a / "src").is_dir() else "."
    fid = out.name
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", out.parent, hidden=True)
    as_umask_allows(tmp, directory=True)
    try:
        (tmp / "hidden").mkdir()
        (tmp / "negatives").mkdir()
        (tmp / "family.yaml").write_text(_family_yaml(fid, name, a, b, s, _project_url(pkg_info), pythonpath,
                                                      globs) + _environment_yaml(environment), encoding="utf-8")
        (tmp / "hidden" / "test_probes.py").write_text(found.text, encoding="utf-8")
        (tmp / "hidden" / "pytest.ini").write_text("[pytest]\naddopts =\n", encoding="utf-8")
        for atom in ATOMS:
            (tmp / "negatives" / f"{atom}.patch").write_text(_negative_note(atom, name, b), encoding="utf-8")
        if out.is_dir():
            out.rmdir()  # empty (checked above)
        os.rename(tmp, out)
    finally:
        if tmp.exists():
            remove_tree(tmp)
    return s


def message(s: Scaffold) -> list[str]:
    """The command's report: what was written, what was found, what a person fills in next."""
    files, added, removed = s.reference_size
    lines = [f"wrote {s.out}/: family.yaml, hidden/test_probes.py ({len(s.probes)} candidate probe(s)), "
             "hidden/pytest.ini, " + ", ".join(f"negatives/{a}.patch" for a in ATOMS),
             f"base_repo:       {s.base_repo}",
             f"reference_patch: {s.reference}",
             f"                 ({files} file(s), +{added}/-{removed} lines)",
             f"licence:         {s.licence or 'not declared in the sdist metadata (fill it in)'}",
             f"changed between the releases ({len(s.changed)} file(s)):",
             *(f"  {f}" for f in s.changed),
             "candidate probes (hidden/test_probes.py):",
             *(f"  {p}  <- {origin}" for p, origin in s.probes.items()),
             *([] if s.probes else ["  none found: write probes into hidden/test_probes.py"]),
             *(f"note: {n}" for n in s.notes),
             f"to fill in (every value marked {MARKER!r}):",
             "  1. atoms: scope, condition, observation, and which candidate probes each one owns;",
             "     tests that already passed on the base go under `fixed`, the rest are deleted",
             "  2. decoys and generate: one phrasing per atom and decoy, the paraphrase, the override",
             "     revision and the cancellation message",
             "  3. negatives/<atom>.patch: a small delta on top of the reference reversing that atom only",
             "  4. provenance: description, adapted (and the licence if it was not found)",
             f"then: reqbench specpath check {s.out}",
             f"      reqbench specpath calibrate {s.out} --out {s.out}/calibration.json"]
    return lines
