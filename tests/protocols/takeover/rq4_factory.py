"""A takeover project with RQ4 code environments, built with the real CLI, and gold Phase-A responses.

Each environment's pre-request repository holds ``app.txt`` (the product), ``scripts/build.py`` and
``scripts/check.py`` (build and regression) and ``checks/ac001.py`` (AC001: "the app offers a dark mode",
the exact judge's deterministic check). The build script runs the project's own ``app.py`` when the
delivery has one, as a real build runs the project's code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from reqbench.cli.main import app

EXAMPLE = Path(__file__).resolve().parents[3] / "src" / "reqbench" / "examples" / "takeover" / "project"
BUILD = "import pathlib, runpy, sys\nif pathlib.Path('app.py').is_file():\n    runpy.run_path('app.py')\nsys.exit(0)\n"
CHECK = "import pathlib, sys\nsys.exit(0 if pathlib.Path('app.txt').read_text().startswith('app') else 1)\n"
AC001 = "import pathlib, sys\nsys.exit(0 if 'dark mode' in pathlib.Path('app.txt').read_text() else 1)\n"
T001_ENVIRONMENT = Path("code_environment") / "targets" / "T001_before_24"


def add_environment(root: Path, folder: str, target_id: str, before: int, disposition: str) -> None:
    env = root / "code_environment" / "targets" / folder
    (env / "repository" / "scripts").mkdir(parents=True)
    (env / "repository" / "checks").mkdir()
    (env / "repository" / "app.txt").write_text("app v1\n")
    (env / "repository" / "scripts" / "build.py").write_text(BUILD)
    (env / "repository" / "scripts" / "check.py").write_text(CHECK)
    (env / "repository" / "checks" / "ac001.py").write_text(AC001)
    (env / "manifest.json").write_text(json.dumps({"target_id": target_id, "before_message_id": before}))
    (env / "criteria.json").write_text(json.dumps({
        "downstream_disposition": disposition,
        "acceptance_criteria": [
            {"criterion_id": "AC001", "scope": "settings", "statement": "The app offers a dark mode.",
             "observables": ["app.txt mentions dark mode"], "negative_cases": ["only a placeholder"]},
        ],
        "criterion_checks": {"AC001": ["{python}", "checks/ac001.py"]},
    }))


def build_rq4_project(root: Path) -> Path:
    """``root/project`` (the bundled example with three environments) built into ``root/out``; returns
    `root`. T001 (RQ3 gold ACT) and T005 (gold CLARIFY) enter the registry, T002 does not."""
    project = root / "project"
    shutil.copytree(EXAMPLE, project)
    add_environment(project, "T001_before_24", "DOCKSIDE_T001", 24, "PROCEED_TO_VALIDATOR_AUTHORING")
    add_environment(project, "T005_before_47", "DOCKSIDE_T005", 47, "PROCEED_TO_VALIDATOR_AUTHORING")
    add_environment(project, "T002_before_30", "DOCKSIDE_T002", 30, "SUBJECTIVE_REVIEW")
    res = CliRunner().invoke(app, ["takeover", "build", str(project), "--out", str(root / "out"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["instance_counts"]["RQ4"] == 2
    return root


def gold_response(built: Path, target: str, condition: str) -> Path:
    """A Phase-A response file holding the gold answer (decision ACT for T001)."""
    from reqbench.protocols.takeover.scoring import gold_response as gold
    from reqbench.protocols.takeover.scoring import load_target

    out = built / "out"
    rq1, rq2 = (out / f"RQ{n}" / f"{target}_RQ{n}.json" for n in (1, 2))
    inst = load_target(out / "RQ3" / f"{target}_RQ3.json", rq1 if rq1.is_file() else None,
                       rq2 if rq2.is_file() else None)
    path = built / f"{target}_{condition}_response.json"
    path.write_text(json.dumps(gold(inst, condition)))
    return path


def score_args(built: Path, target: str, condition: str, response: Path, *extra: str) -> list[str]:
    """``reqbench takeover score`` arguments for `target` with RQ4 (its code environment: the project)."""
    out = built / "out"
    return ["takeover", "score", "--instance", str(out / "RQ3" / f"{target}_RQ3.json"), "--response",
            str(response), "--condition", condition, "--json", "--rq4", str(out / "RQ4" / f"{target}_RQ4.json"),
            "--code-environment", str(built / "project"), *extra]
