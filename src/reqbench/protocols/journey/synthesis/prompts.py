"""Prompts of the weak-to-strong synthesis pipeline (SWE-Journey §3.2), in our own words.

The paper's prompts are not published in the summary we follow; these state its rules: the strong model
plans repository-grounded subtasks in progressively harder stages that go beyond the seed (task dimensions,
A.2) and follow sampled task angles; the weak model implements one subtask at a time (request, acceptance
criteria, reference change, F2P and P2P tests); a rubric check judges each implementation semantically.
Every answer is JSON; code checks its shape and every rule that code can decide.
"""

from __future__ import annotations

DIMENSIONS_HELP = """Task dimensions: context_scope (1-5: how much of the repository must be understood),
change_scope (1-5: how much must change), requirement_labels (requirement-depth labels such as feature,
constraint, edge-case, compatibility, validation; several allowed), knowledge_domains (distinct domains
such as date handling, text parsing, serialization)."""

PLAN = """You plan a long-horizon coding task that grows a repository far beyond a seed task. Write follow-up
requirements of your own; never copy a public issue or fix. Plan {stages} stages, each progressively harder
than the one before (never easier on any dimension), each with {per_stage} subtasks grounded in the files
listed. Stage k must use the task angles sampled for it. Together the plan must exceed the seed task on at
least two of the four dimensions.
""" + DIMENSIONS_HELP + """
Answer with JSON only: {{"stages": [{{"title": "...", "angles": ["..."], "dimensions": {{"context_scope": 3,
"change_scope": 3, "requirement_labels": ["..."], "knowledge_domains": ["..."]}}, "subtasks": [{{"title":
"...", "goal": "what the user needs, concretely", "files": ["path"], "depends_on": [1-based indexes of
earlier subtasks in the whole plan]}}]}}]}}"""

REPLAN_SUBTASK = """A planned subtask could not be implemented so that it passes its gates. Replace it with a
subtask of the same stage that serves the same angles and is achievable from the current repository.
Answer with JSON only: {"title": "...", "goal": "...", "files": ["path"]}"""

IMPLEMENT = """Implement one planned subtask of a coding task, as its author. Produce: the request a precise
user would make (no code, no implementation recipe); the same need in plain everyday words; checkable
acceptance criteria; the reference change as complete new contents of every file you change in the
repository (null content deletes a file); and pytest tests in new files under {tests_dir}/ that fail before
your change and pass after it (F2P), plus the ids of existing tests that must keep passing (P2P). Tests
import the repository's modules by their package names. Node ids look like {tests_dir}/test_x.py::test_y.
Answer with JSON only: {{"request": "...", "plain": "...", "acceptance_criteria": ["..."], "files":
[{{"path": "...", "content": "..."}}], "tests": [{{"path": "{tests_dir}/test_x.py", "content": "..."}}],
"f2p": ["..."], "p2p": ["..."]}}"""

RUBRIC_ITEMS = ("request_matches_plan", "criteria_checkable", "tests_cover_criteria", "change_in_scope",
                "no_solution_leak", "plain_is_plain")
"""Our rubric (the paper gates on "rubric-based semantic checks" without listing the items)."""

RUBRIC = """Review one synthesized subtask against its plan. For each rubric item answer pass true/false
with a one-sentence reason:
request_matches_plan: the request asks for what the planned goal says, no more, no less;
criteria_checkable: every acceptance criterion is observable from outside the code;
tests_cover_criteria: every acceptance criterion is asserted by at least one F2P test;
change_in_scope: the reference change implements the request without unrelated edits;
no_solution_leak: the request and the plain version do not dictate the implementation code;
plain_is_plain: the plain version avoids code identifiers and jargon.
Answer with JSON only: {"rubric": [{"item": "...", "pass": true, "reason": "..."}]}"""
