"""User personas (SWE-Journey §3.3, A.3): five interaction dimensions and the four bundled presets.

A persona is a typed profile along the five dimensions mined in the paper -- expertise, detail
preference, control style, goal stability, verification style -- plus a few numeric knobs the
deterministic simulator uses (confidence dynamics, patience). Presets ship as YAML package data in
``personas/``; a custom persona is any YAML file of the same shape (`load_persona(path)`).
"""

from __future__ import annotations

from enum import StrEnum
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.errors import InputError
from reqbench.core.inputfiles import parse_yaml, read_yaml, validate
from reqbench.core.suggest import did_you_mean


class Expertise(StrEnum):
    """Programming expertise: how technical the user's language and answers are."""

    NONE = "none"
    """Never programmed; everyday words only."""
    LOW = "low"
    """Product-level vocabulary (features, criteria), no code."""
    INTERMEDIATE = "intermediate"
    """Reads code and tests; states interfaces, not always completely."""
    EXPERT = "expert"
    """Precise interfaces, files and design constraints."""


class DetailPreference(StrEnum):
    """How much of the hidden requirement a message carries, and how many subtasks at once."""

    MINIMAL = "minimal"
    """The need in one sentence; one subtask per message."""
    MODERATE = "moderate"
    """The request itself; up to two subtasks per message."""
    DETAILED = "detailed"
    """The request with its acceptance criteria; up to three subtasks per message."""


class ControlStyle(StrEnum):
    """How much the user steers the implementation."""

    DELEGATING = "delegating"
    """Leaves every decision to the assistant."""
    COLLABORATIVE = "collaborative"
    """Discusses and decides together."""
    DIRECTIVE = "directive"
    """Says where and how to change the code."""


class GoalStability(StrEnum):
    """Whether the user's goals stay put."""

    STABLE = "stable"
    """States each goal once, as meant."""
    EVOLVING = "evolving"
    """Sometimes starts from an earlier idea of a goal and refines it (seeded, half the time)."""
    PIVOTING = "pivoting"
    """Starts from an earlier idea whenever there is one, then changes course."""


class VerificationStyle(StrEnum):
    """How the user checks the assistant's work and what their feedback cites."""

    SYMPTOMS = "symptoms"
    """Tries the feature; reports symptoms only, never test names. Regressions go unnoticed."""
    ACCEPTANCE = "acceptance"
    """Checks the acceptance criteria of the subtasks at hand; cites unmet criteria."""
    TESTS = "tests"
    """Runs the test suite; reports how many tests fail and for which feature, including regressions."""
    REVIEW = "review"
    """Runs the hidden tests and reviews the change; cites failing test node ids, including regressions."""


class Persona(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Condition name, e.g. 'software-architect'.")
    title: str = Field(description="Display name, e.g. 'Software Architect'.")
    description: str = Field(description="Who this user is, in a few sentences (the llm simulator's role).")
    expertise: Expertise = Field(description="Dimension 1, expertise: none | low | intermediate | expert.")
    detail_preference: DetailPreference = Field(description="Dimension 2, detail preference: minimal | "
                                                            "moderate | detailed (sets disclosure pace).")
    control_style: ControlStyle = Field(description="Dimension 3, control style: delegating | collaborative "
                                                    "| directive.")
    goal_stability: GoalStability = Field(description="Dimension 4, goal stability: stable | evolving | "
                                                      "pivoting.")
    verification_style: VerificationStyle = Field(description="Dimension 5, verification style: symptoms | "
                                                              "acceptance | tests | review.")
    initial_confidence: int = Field(60, ge=1, le=100, description="Confidence (0-100) at the start.")
    progress_reward: int = Field(8, ge=0, description="Confidence gained when more of the open subtasks' "
                                                      "tests pass than before.")
    resolve_reward: int = Field(12, ge=0, description="Confidence gained per subtask the user accepts.")
    no_progress_penalty: int = Field(10, ge=0, description="Confidence lost on a turn without progress.")
    regression_penalty: int = Field(20, ge=0, description="Confidence lost when something that worked "
                                                          "breaks (only if the user's verification sees it).")
    patience: int = Field(4, ge=1, description="Turns without progress on a subtask before the user gives "
                                               "it up and moves on.")

    @property
    def disclosure_batch(self) -> int:
        """Subtasks disclosed per message, set by detail preference (never across a stage boundary)."""
        return {DetailPreference.MINIMAL: 1, DetailPreference.MODERATE: 2,
                DetailPreference.DETAILED: 3}[self.detail_preference]


PRESET_NAMES = ("non-coder", "product-manager", "new-developer", "software-architect")


def _parse(text: str, source: str) -> Persona:
    return validate(Persona, parse_yaml(text, source), source)


def preset(name: str) -> Persona:
    """One of the four bundled personas by condition name."""
    if name not in PRESET_NAMES:
        raise InputError(f"unknown persona {name!r}{did_you_mean(name, (*PRESET_NAMES, 'single-shot'))}; "
                         f"presets: {', '.join(PRESET_NAMES)} "
                         "(or a path to a persona YAML file)", item="condition")
    text = resources.files("reqbench.protocols.journey").joinpath("personas", f"{name}.yaml").read_text()
    return _parse(text, f"personas/{name}.yaml")


def load_persona(spec: str | Path, base: Path | None = None) -> Persona:
    """A preset name, or a persona YAML file (relative paths resolve against `base`)."""
    if str(spec) in PRESET_NAMES:
        return preset(str(spec))
    path = Path(spec)
    if not path.is_absolute() and base is not None and (base / path).is_file():
        path = base / path
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return validate(Persona, read_yaml(path), str(path))
    return preset(str(spec))


def presets() -> list[Persona]:
    return [preset(n) for n in PRESET_NAMES]
