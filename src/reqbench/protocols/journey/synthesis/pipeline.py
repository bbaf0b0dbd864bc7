"""Weak-to-strong instance synthesis (SWE-Journey §3.2, A.2): the pipeline that runs the pieces in order.

1. **Angles**: each of the `stages` plan stages gets task angles sampled from the frozen distribution
   (`coverage.sample_angles`, reproducible from `seed`).
2. **Plan** (strong model): stages of repository-grounded subtasks. Code gates the plan — shape, the
   requested numbers of stages and subtasks, dependencies on earlier subtasks only, stages never easier
   than the one before (`dimensions.easier_dimensions`) and the plan exceeding the seed on at least two of
   the four dimensions (`dimensions.plan_exceeds_seed`); a failed plan is re-asked with the reasons, up to
   `max_plan_attempts` times.
3. **Implement** (weak model), subtask by subtask: request, plain version, acceptance criteria, reference
   change, F2P and P2P tests. Each candidate passes the execution gate, then the rubric gate
   (`gates.py`); a failure is fed back and retried up to `max_retries` times, then the pipeline **returns
   to planning** for that subtask (the planner replaces it, up to `max_replans` times); past that the
   synthesis fails with every reason, writing nothing.
4. **Write** the instance (journey-instance format) and `synthesis.json` (the plan, every gate decision,
   coverage), both marked unreviewed. The output is written to a temporary sibling and renamed into place,
   so it is complete or absent. Model calls go through the core client: with ``REQBENCH_LLM_CACHE`` set, a
   re-run after an interruption replays every answered call (resumable at no model cost).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, write_json
from reqbench.core.llm.client import ChatClient
from reqbench.protocols.journey.env import apply_patch, copy_tree, make_workspace
from reqbench.protocols.journey.synthesis import prompts
from reqbench.protocols.journey.synthesis.coverage import coverage_report, sample_angles
from reqbench.protocols.journey.synthesis.dimensions import (
    DimensionProfile,
    easier_dimensions,
    exceeded_dimensions,
    plan_exceeds_seed,
)
from reqbench.protocols.journey.synthesis.gates import Candidate, execution_gate, parse_candidate, rubric_failures
from reqbench.protocols.journey.synthesis.seed import Seed

UNREVIEWED = "# UNREVIEWED: synthesized by `reqbench journey synthesize`; review before use (synthesis.json).\n"


@dataclass
class Options:
    planner_model: str
    worker_model: str
    rubric_model: str = ""
    """Reviewer of the rubric gate; the planner model when empty."""
    stages: int = 3
    subtasks_per_stage: int = 3
    angles_per_stage: int = 2
    max_retries: int = 2
    max_replans: int = 1
    max_plan_attempts: int = 3
    seed: int = 0
    instance_id: str = ""
    max_tokens: int = 32768


@dataclass
class _Log:
    events: list[dict[str, Any]] = field(default_factory=list)

    def add(self, **event: Any) -> None:
        self.events.append(event)


def _json_answer(text: str) -> Any:
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[-1].rsplit("```", 1)[0]
    try:
        return json.loads(t)
    except json.JSONDecodeError:
        return None


class Synthesizer:
    """One synthesis run: a seed, the options, a chat client; `run(out)` writes the instance."""

    def __init__(self, seed: Seed, options: Options, client: ChatClient | None = None) -> None:
        self.seed, self.opt = seed, options
        self.client = client or ChatClient()
        self.log = _Log()

    def _chat(self, model: str, system: str, user: str, history: list[dict[str, str]] | None = None) -> str:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}, *(history or [])]
        return self.client.complete(messages, model=model, temperature=0.0,
                                    max_tokens=self.opt.max_tokens).content or ""

    # -- 2. plan -------------------------------------------------------------------------------------
    def plan_problems(self, plan: Any) -> list[str]:
        """Every rule a plan breaks (empty: the plan passes the planning gate)."""
        if not isinstance(plan, dict) or not isinstance(plan.get("stages"), list):
            return ["the plan is not {\"stages\": [...]}"]
        stages = plan["stages"]
        if len(stages) != self.opt.stages:
            return [f"the plan has {len(stages)} stages, {self.opt.stages} were asked for"]
        out: list[str] = []
        profiles: list[DimensionProfile] = []
        index = 0
        for k, st in enumerate(stages, 1):
            try:
                profiles.append(DimensionProfile.model_validate(st.get("dimensions")))
            except Exception as exc:  # noqa: BLE001 - any shape error is a reason fed back to the planner
                return [f"stage {k}: dimensions are malformed ({str(exc).splitlines()[0]})"]
            subs = st.get("subtasks") or []
            if len(subs) != self.opt.subtasks_per_stage:
                out.append(f"stage {k} has {len(subs)} subtasks, {self.opt.subtasks_per_stage} were asked for")
            for sub in subs:
                index += 1
                if not isinstance(sub, dict) or not sub.get("title") or not sub.get("goal"):
                    out.append(f"subtask {index} needs a title and a goal")
                elif any(not isinstance(d, int) or not 1 <= d < index for d in sub.get("depends_on") or []):
                    out.append(f"subtask {index} depends on a subtask that is not an earlier one")
            if k > 1 and (easier := easier_dimensions(profiles[-1], profiles[-2])):
                out.append(f"stage {k} is easier than stage {k - 1} on {easier}")
        total = profiles[0]
        for p in profiles[1:]:
            total = total.merged(p)
        if not plan_exceeds_seed(total, self.seed.spec.dimensions):
            out.append(f"the plan exceeds the seed only on {exceeded_dimensions(total, self.seed.spec.dimensions)}"
                       "; it must exceed it on at least two of the four dimensions")
        return out

    def plan(self, angles: list[list[str]], files: list[str]) -> dict[str, Any]:
        system = prompts.PLAN.format(stages=self.opt.stages, per_stage=self.opt.subtasks_per_stage)
        user = json.dumps({"seed_task": self.seed.spec.task, "seed_dimensions": self.seed.spec.dimensions
                           .model_dump(), "project": self.seed.spec.title, "repository_files": files,
                           "angles_per_stage": angles}, indent=1)
        history: list[dict[str, str]] = []
        for attempt in range(1, self.opt.max_plan_attempts + 1):
            text = self._chat(self.opt.planner_model, system, user, history)
            plan = _json_answer(text)
            problems = self.plan_problems(plan)
            self.log.add(step="plan", attempt=attempt, passed=not problems, reasons=problems)
            if not problems:
                return dict(plan)
            history += [{"role": "assistant", "content": text},
                        {"role": "user", "content": "The plan was rejected:\n- " + "\n- ".join(problems)}]
        raise InputError(f"no plan passed the planning gate in {self.opt.max_plan_attempts} attempts "
                         f"({'; '.join(problems)})", item="journey synthesize")

    def replan(self, planned: dict[str, Any], reasons: list[str], sub_id: str) -> dict[str, Any]:
        text = self._chat(self.opt.planner_model, prompts.REPLAN_SUBTASK,
                          json.dumps({"planned": planned, "failures": reasons}, indent=1))
        new = _json_answer(text)
        ok = isinstance(new, dict) and bool(new.get("title")) and bool(new.get("goal"))
        self.log.add(step="replan", subtask=sub_id, passed=ok, reasons=reasons)
        if not ok:
            raise InputError("the planner's replacement subtask has no title or goal", item=sub_id)
        return {**planned, **{k: new[k] for k in ("title", "goal", "files") if k in new}}

    # -- 3. implement --------------------------------------------------------------------------------
    def implement(self, planned: dict[str, Any], sub_id: str, context: dict[str, Any],
                  gate: Callable[[Candidate], tuple[list[str], dict[str, Any] | None]],
                  commit: Callable[[bool], None]) -> dict[str, Any] | None:
        """Weak-model attempts with feedback; the accepted subtask entry, or None when retries run out."""
        system = prompts.IMPLEMENT.format(tests_dir=self.seed.spec.tests_dir)
        user = json.dumps({"subtask": planned, **context}, indent=1)
        history: list[dict[str, str]] = []
        for attempt in range(1, self.opt.max_retries + 2):
            text = self._chat(self.opt.worker_model, system, user, history)
            entry = None
            try:
                cand = parse_candidate(_json_answer(text), self.seed.spec.tests_dir)
                reasons, entry = gate(cand)
                gated = True
                gate_name = "execution"
                if entry is not None:
                    gate_name = "rubric"
                    reasons = rubric_failures(_json_answer(self._chat(
                        self.opt.rubric_model or self.opt.planner_model, prompts.RUBRIC,
                        json.dumps({"planned": planned, "synthesized": entry, "tests": cand.tests,
                                    "change": cand.files}, indent=1))))
            except ValueError as exc:
                gate_name, reasons, gated = "shape", [str(exc)], False
            if gated:
                commit(not reasons)
            self.log.add(step="implement", subtask=sub_id, attempt=attempt, gate=gate_name,
                         passed=not reasons, reasons=reasons)
            if not reasons and entry is not None:
                return entry
            history += [{"role": "assistant", "content": text},
                        {"role": "user", "content": f"The {gate_name} gate rejected it:\n- " + "\n- ".join(reasons)}]
        return None

    # -- the whole run -------------------------------------------------------------------------------
    def run(self, out: Path) -> Path:
        out = Path(out)
        if out.exists():
            raise InputError("the output directory exists; choose a new one", file=str(out))
        out.parent.mkdir(parents=True, exist_ok=True)
        angles = sample_angles(self.opt.stages, self.opt.angles_per_stage, self.opt.seed)
        files = sorted(str(p.relative_to(self.seed.repo_dir)) for p in self.seed.repo_dir.rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts)
        plan = self.plan(angles, files)
        with tempdirs.folder("staging", out.parent, hidden=True) as tmp:
            work = Path(tmp)
            draft, current = work / "draft", work / "current"
            copy_tree(self.seed.repo_dir, draft / "repo")
            copy_tree(self.seed.hidden_dir, draft / "hidden")
            (draft / "patches").mkdir()
            make_workspace(self.seed.repo_dir, current)
            spec: dict[str, Any] = {
                "protocol": "journey", "id": self.opt.instance_id or f"{self.seed.spec.id}-journey",
                "title": self.seed.spec.title, "overview": self.seed.spec.task, "repo": "repo",
                "testbed": {"test_command": self.seed.spec.test_command, "hidden_tests": "hidden"},
                "common_p2p": self.seed.spec.common_p2p, "stages": []}
            accepted: list[str] = []
            for k, stage in enumerate(plan["stages"], 1):
                spec["stages"].append({"id": f"S{k}", "title": stage.get("title", ""), "subtasks": []})
                for planned in stage["subtasks"]:
                    sub_id = f"T{len(accepted) + 1}"
                    planned = {**planned, "depends_on": [f"T{d}" for d in planned.get("depends_on") or []]}
                    entry = self._one_subtask(planned, sub_id, draft, current, spec, work, accepted)
                    spec["stages"][-1]["subtasks"].append(entry)
                    apply_patch(current, (draft / entry["reference_patch"]).read_text(encoding="utf-8"))
                    accepted.append(sub_id)
            self._write(draft, spec, plan, angles)
            os.replace(draft, out)
        return out

    def _one_subtask(self, planned: dict[str, Any], sub_id: str, draft: Path, current: Path,
                     spec: dict[str, Any], work: Path, accepted: list[str]) -> dict[str, Any]:
        context = {"subtask_id": sub_id, "earlier_subtasks": [s for st in spec["stages"] for s in
                                                             st["subtasks"]],
                   "repository": {rel: (current / rel).read_text(encoding="utf-8", errors="replace")
                                  for rel in planned.get("files") or [] if (current / rel).is_file()}}
        trials = iter(range(10**6))
        pending: list[Path] = []

        def gate(cand: Candidate) -> tuple[list[str], dict[str, Any] | None]:
            trial = work / f"trial-{next(trials)}"
            head = {"id": sub_id, "title": planned["title"], "depends_on": planned["depends_on"],
                    "p2p_include": list(accepted)}
            reasons, entry = execution_gate(draft, current, spec, head, cand, trial)
            pending.append(trial)
            return reasons, entry

        def commit(accept: bool) -> None:
            """Keep the last trial as the new draft (accepted) or drop it."""
            trial = pending.pop()
            if accept:
                shutil.rmtree(draft)
                os.replace(trial, draft)
            else:
                shutil.rmtree(trial, ignore_errors=True)

        all_reasons: list[str] = []
        for replans in range(self.opt.max_replans + 1):
            entry = self.implement(planned, sub_id, context, gate, commit)
            if entry is not None:
                return entry
            failed = [r for e in self.log.events if e.get("subtask") == sub_id and e["step"] == "implement"
                      for r in e["reasons"]]
            all_reasons = failed
            if replans < self.opt.max_replans:
                planned = {**self.replan(planned, failed[-5:], sub_id), "depends_on": planned["depends_on"]}
        raise InputError(f"subtask {sub_id} failed its gates after {self.opt.max_replans} replan(s) "
                         f"({'; '.join(all_reasons[-3:])})", item="journey synthesize")

    def _write(self, draft: Path, spec: dict[str, Any], plan: dict[str, Any], angles: list[list[str]]) -> None:
        atomic_write_text(draft / "instance.yaml",
                          UNREVIEWED + yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))
        domains = [d for st in plan["stages"] for d in st["dimensions"].get("knowledge_domains", [])]
        write_json(draft / "synthesis.json", {
            "reviewed": False, "seed": self.seed.spec.id, "planner_model": self.opt.planner_model,
            "worker_model": self.opt.worker_model,
            "rubric_model": self.opt.rubric_model or self.opt.planner_model,
            "options": {k: v for k, v in vars(self.opt).items() if not k.endswith("_model")},
            "seed_dimensions": self.seed.spec.dimensions.model_dump(), "plan": plan,
            "coverage": coverage_report(angles, [st.get("angles") or [] for st in plan["stages"]], domains),
            "gates": self.log.events})
