"""A small synthetic ReqMemBench release built from the bundled takeover suite: the release layout's
project files, and per target a ``Code Environment`` folder with a real ``pre_repo.zip`` (the bundled
suite's initial repository plus the released ``scripts/build.py`` / ``scripts/check.py``), a manifest
recording the archive's real hashes, and a criteria proposal in the released envelope."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

from reqbench.protocols.takeover.delivery.initial import build_initial_repository
from reqbench.protocols.takeover.suite_file import load_suite
from tests.protocols.takeover.takeover_suite_factory import EXAMPLE

PID = "DOCKSIDE"
MESSAGE = {"T001": 24, "T002": 30, "T003": 38}
BUILD = "import compileall, sys\nsys.exit(0 if compileall.compile_dir('billing', quiet=1) else 1)\n"
CHECK = ("import subprocess, sys\nsys.exit(subprocess.call([sys.executable, '-m', 'pytest', '-q', '-p', "
         "'no:cacheprovider', 'tests']))\n")


def zip_tree(src: Path, dest: Path) -> None:
    """Every file below `src`, names relative to it, in sorted order (as the release's archives)."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(src.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                z.write(p, p.relative_to(src).as_posix())


def tree_hash_of_zip(archive: Path) -> str:
    """The released ``_archive_tree_hash``, written out independently of reqbench."""
    h = hashlib.sha256()
    with zipfile.ZipFile(archive) as z:
        for name in sorted(i.filename for i in z.infolist() if not i.is_dir()):
            h.update(name.encode() + b"\0" + z.read(name) + b"\0")
    return h.hexdigest()


def proposal(disposition: str = "PROCEED_TO_VALIDATOR_AUTHORING") -> dict:
    """A criteria proposal in the released envelope (rq4-validator-authoring-proposal-v1)."""
    return {
        "schema_version": "rq4-validator-authoring-proposal-v1", "project_id": PID, "author_role": "CRITERIA_AUTHOR",
        "proposal_status": "PROPOSED",
        "payload": {
            "downstream_disposition": disposition,
            "acceptance_criteria": [{
                "criterion_id": "AC001", "scope": "TARGET_BEHAVIOR", "statement": "Invoices follow the new rule.",
                "gold_requirement_refs": ["REQ_SECRET"], "gold_state_paths": ["REQ_SECRET.attributes.x"],
                "evidence_message_ids": [24],
                "observables": [{"observable_id": "OBS001", "type": "FUNCTION", "surface": "billing"}],
                "negative_cases": [],
            }] if disposition == "PROCEED_TO_VALIDATOR_AUTHORING" else [],
        },
    }


def synthetic_release(root: Path, cache: Path, targets: tuple[str, ...] = ("T001",),
                      criteria: dict[str, object] | None = None) -> Path:
    """`root` as a release of the bundled project with environments for `targets`. `criteria` maps a
    short target id to its criteria file content (a dict is JSON, a str is written as is, None leaves
    the file out); the default is a PROCEED proposal for each target."""
    out = root / "outputs_new"
    for src, dest in (("normalized_project.json", f"stage1_runs/{PID}/normalized_project.json"),
                      ("annotation.json", f"stage1_annotations/{PID}_stage1_annotation.json"),
                      ("selected_target_times.json",
                       f"stage2/{PID}/target_time_selection/selected_target_times.json")):
        (out / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(EXAMPLE / "project" / src, out / dest)
    suite = load_suite(EXAMPLE)
    criteria = criteria if criteria is not None else {t: proposal() for t in targets}
    for t in targets:
        repo = cache / f"pre-{t}"
        if not repo.exists():
            shutil.copytree(build_initial_repository(EXAMPLE, suite, f"{PID}_{t}", cache / "initial"), repo)
            (repo / "scripts").mkdir()
            (repo / "scripts" / "build.py").write_text(BUILD)
            (repo / "scripts" / "check.py").write_text(CHECK)
        env = root / "Code Environment" / PID / "targets" / f"{t}_before_{MESSAGE[t]}"
        env.mkdir(parents=True)
        zip_tree(repo, env / "pre_repo.zip")
        manifest = {"target_id": f"{PID}_{t}", "before_message_id": MESSAGE[t],
                    "archive_sha256": hashlib.sha256((env / "pre_repo.zip").read_bytes()).hexdigest(),
                    "repo_sha256": tree_hash_of_zip(env / "pre_repo.zip")}
        (env / "manifest.json").write_text(json.dumps(manifest, indent=2))
        content = criteria.get(t)
        if content is not None:
            (env / "criteria_proposal.json").write_text(
                content if isinstance(content, str) else json.dumps(content))
    return root


def validators(root: Path, targets: tuple[str, ...] = ("T001",)) -> Path:
    """The bundled suite's hidden tests and reference / negative patches, as a --validators folder."""
    for t in targets:
        shutil.copytree(EXAMPLE / "targets" / t / "hidden", root / t / "hidden")
        shutil.copyfile(EXAMPLE / "targets" / t / "reference.patch", root / t / "reference.patch")
        shutil.copyfile(EXAMPLE / "targets" / t / "negative.patch", root / t / "negative.patch")
    return root
