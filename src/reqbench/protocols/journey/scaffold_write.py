"""Writing a scaffolded journey instance (`scaffold`) to a new directory, atomically.

* PyPI chains: ``instance.yaml`` only -- ``repo: pypi:NAME==V1#sha256=...``, hidden tests =
  the final sdist cut to its test folder (``hidden_include``), reference patches
  ``pypi-diff:NAME==A..B#paths=...&sha256=A,B``; nothing of the project is copied.
* Local chains (git tags, folders, archives): ``repo/`` (the first release), ``hidden/<tests>`` (the final
  release's tests) and ``patches/T<k>.patch`` (the change of each step restricted to the library paths).

Every subtask's ``request`` and ``plain`` are placeholders starting with ``TODO:``: the user replaces them
with the change in their own words (paraphrasing the release notes); until then loading refuses the
instance, naming each spot (`placeholders`). ``scaffold.json`` records what the
derivation saw (per-release pass counts, folded releases, nodes left out).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.filemodes import as_umask_allows
from reqbench.core.hashing import write_json
from reqbench.core.workspace.objects import ObjectStore
from reqbench.core.workspace.patches import scan_tree
from reqbench.core.workspace.trees import copy_tree, remove_tree
from reqbench.protocols.journey import sources
from reqbench.protocols.journey.models import TestbedSpec, load_instance
from reqbench.protocols.journey.placeholders import MARKER
from reqbench.protocols.journey.scaffold import Options, Release, Scaffold, scaffold
from reqbench.protocols.journey.scaffold_plan import Step

TODO = MARKER.rstrip(":")


def _local_patch(old: Path, new: Path, paths: list[str]) -> str:
    def pick(root: Path) -> dict[str, Any]:
        return {rel: ref for rel, ref in scan_tree(root).items() if any(fnmatch.fnmatchcase(rel, g) for g in paths)}

    with tempdirs.folder("scaffold-diff") as tmp:
        return ObjectStore(Path(tmp) / "objects.git").diff(pick(old), pick(new))


def _reference(sc: Scaffold, step: Step, out: Path, sub_id: str) -> str:
    a, b = sc.releases[step.start], sc.releases[step.end]
    if sc.on_pypi:
        spec = (f"pypi-diff:{a.name}=={a.label}..{b.label}#paths={','.join(sc.paths)}"
                f"&sha256={a.sha256},{b.sha256}")
        sources.patch(out, spec)  # fetched and checked now: an empty change is a construction mistake
        return spec
    text = _local_patch(a.tree, b.tree, sc.paths)
    if not text.strip():
        raise InputError(f"the library paths {sc.paths} did not change between {a.label} and {b.label}; "
                         "name the library with --paths", item=sub_id)
    rel = f"patches/{sub_id}.patch"
    (out / "patches").mkdir(exist_ok=True)
    (out / rel).write_text(text, encoding="utf-8", errors="surrogateescape")
    return rel


def _stage_key(sc: Scaffold, step: Step) -> str:
    label = sc.releases[step.end].label
    return label.split(".")[0] if sc.on_pypi else ""


def instance_document(sc: Scaffold, out: Path) -> dict[str, Any]:
    """The instance as plain data (writes local patch files into `out` on the way)."""
    name, first, last = sc.instance_id, sc.releases[0], sc.releases[-1]
    stages: list[dict[str, Any]] = []
    ids: list[str] = []
    for k, step in enumerate(sc.plan.steps, 1):
        a, b = sc.releases[step.start], sc.releases[step.end]
        sub_id = f"T{k}"
        span = f"{a.label} to {b.label}"
        folded = [sc.releases[i].label for i in step.folded]
        sub = {"id": sub_id, "title": f"{name} {b.label}",
               "request": f"{TODO}: the change from {span} in the words of a user who needs it (paraphrase the "
                          f"release notes{' of ' + ', '.join([*folded, b.label]) if folded else ''}).",
               "plain": f"{TODO}: the same need in non-technical words.",
               "acceptance_criteria": [f"The upstream tests of {last.label} that exercise the change from {span} "
                                       "pass."],
               "depends_on": ids[-1:], "reference_patch": _reference(sc, step, out, sub_id),
               "f2p": list(step.f2p), "p2p": [], "p2p_include": list(ids)}
        key = _stage_key(sc, step)
        if not stages or stages[-1]["key"] != key:
            stages.append({"key": key, "id": f"S{len(stages) + 1}",
                           "title": f"The {key}.x releases" if key else f"{first.label} to {last.label}",
                           "subtasks": []})
        stages[-1]["subtasks"].append(sub)
        ids.append(sub_id)
    env = {k: v for k, v in sc.testbed.model_dump(mode="json").items() if v or k == "hidden_tests"}
    return {"protocol": "journey", "id": name,
            "title": f"{name} grown from {first.label} along its real releases to {last.label}",
            "overview": f"{TODO}: what the user is building overall, in their own voice (e.g. 'We vendor {name} "
                        f"{first.label} and need it to behave like {last.label}, one release at a time.').",
            "repo": first.spec if sc.on_pypi else "repo", "testbed": env, "common_p2p": sc.plan.p2p,
            "stages": [{k: v for k, v in s.items() if k != "key"} for s in stages]}


def record(sc: Scaffold) -> dict[str, Any]:
    """What the derivation saw, for `scaffold.json`."""
    return {"releases": [{"label": r.label, "spec": r.spec, "nodes": len(res), "passed": sum(res.values())}
                         for r, res in zip(sc.releases, sc.results, strict=True)],
            "subtasks": [{"id": f"T{k}", "from": sc.releases[s.start].label, "to": sc.releases[s.end].label,
                          "folded": [sc.releases[i].label for i in s.folded], "f2p": len(s.f2p)}
                         for k, s in enumerate(sc.plan.steps, 1)],
            "p2p": len(sc.plan.p2p), "unstable_left_out": sc.plan.unstable, "flaky_left_out": sc.flaky,
            "failing_at_final_release": sc.plan.failing_at_end, "paths": sc.paths}


def write_instance(releases: list[Release], opts: Options, out: Path,
                   progress: Callable[[str], None] = lambda _: None,
                   environment: dict[str, Any] | None = None) -> Scaffold:
    """Scaffold the chain into the new directory `out` (built next to it, renamed into place at the end),
    with `environment` (a validated block) as the instance's task environment."""
    if out.exists():
        raise InputError("output directory already exists", file=str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", out.parent, hidden=True)
    as_umask_allows(tmp, directory=True)
    try:
        def hidden_for(env: TestbedSpec, tests: str) -> Path:
            if sources.is_source(env.hidden_tests):
                return sources.hidden_tree(tmp, env.hidden_tests, env.hidden_include)
            copy_tree(releases[-1].tree / tests, tmp / "hidden" / tests)
            return tmp / "hidden"

        sc = scaffold(releases, opts, hidden_for, progress)
        doc = instance_document(sc, tmp)
        if environment:
            doc["environment"] = environment
        if not sc.on_pypi:
            copy_tree(releases[0].tree, tmp / "repo")
        header = (f"# Scaffolded by `reqbench journey scaffold` from {len(releases)} releases "
                  f"({releases[0].label} .. {releases[-1].label}); the tests of {releases[-1].label} ran on each.\n"
                  "# Replace every TODO (overview, request, plain) with the change in a user's words, then run\n"
                  "# `reqbench journey calibrate` on this directory.\n")
        (tmp / "instance.yaml").write_text(header + yaml.safe_dump(doc, sort_keys=False, width=110,
                                                                   allow_unicode=True), encoding="utf-8")
        write_json(tmp / "scaffold.json", record(sc))
        load_instance(tmp, placeholders=True)  # what was written is a valid instance, TODOs apart
        os.rename(tmp, out)
    except BaseException:
        if tmp.exists():
            remove_tree(tmp)
        raise
    return sc

