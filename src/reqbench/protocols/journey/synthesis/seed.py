"""A synthesis seed (SWE-Journey §3.2): the task a long-horizon instance grows from.

Layout of a seed directory::

    seed.yaml     this model
    repo/         the base repository the instance will start from
    hidden/       the hidden test directory to extend (at least the conftest that makes the workspace
                  importable; existing tests there become common P2P nodes when listed in `common_p2p`)
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reqbench.core.checks import upgrade_pytest_command
from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml, validate
from reqbench.protocols.journey.synthesis.dimensions import DimensionProfile


class SeedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="Seed id; the synthesized instance is named after it unless --id is given.")
    title: str = Field(description="One line about the project.")
    task: str = Field(description="The seed task (e.g. a public issue) the plan must go beyond.")
    repository: str = Field("", description="Source repository name (seed selection caps three per repo).")
    labels: list[str] = Field(default_factory=list, description="Knowledge-domain / angle labels (coverage).")
    dimensions: DimensionProfile = Field(description="The seed task's position on the four dimensions (A.2), "
                                         "labelled by hand or by a model before synthesis.")
    repo: str = Field("repo", description="Base repository directory, relative to the seed directory.")
    hidden_tests: str = Field("hidden", description="Hidden test directory, relative to the seed directory.")
    test_command: str = Field("{pytest} -q --continue-on-collection-errors {hidden}/tests_hidden",
                              description="The instance's hidden test command (journey-instance format).")
    tests_dir: str = Field("tests_hidden", description="Where generated test files go, inside the hidden "
                           "directory; node ids are relative to the hidden directory.")
    common_p2p: list[str] = Field(default_factory=list, description="Existing hidden nodes that must pass "
                                  "throughout (the base behaviour).")

    @field_validator("test_command")
    @classmethod
    def _guarded_runner(cls, value: str) -> str:
        return upgrade_pytest_command(value)


class Seed:
    def __init__(self, spec: SeedSpec, root: Path) -> None:
        self.spec = spec
        self.root = root

    @property
    def repo_dir(self) -> Path:
        return self.root / self.spec.repo

    @property
    def hidden_dir(self) -> Path:
        return self.root / self.spec.hidden_tests


def load_seed(path: Path) -> Seed:
    """Load `seed.yaml` from a seed directory; one clear error on bad input."""
    path = Path(path)
    file = path / "seed.yaml" if path.is_dir() else path
    spec = validate(SeedSpec, read_yaml(file), str(file))
    seed = Seed(spec, file.parent)
    for what, d in (("repository", seed.repo_dir), ("hidden tests", seed.hidden_dir)):
        if not d.is_dir():
            raise InputError(f"{what} directory missing", file=str(file), item=str(d.name))
    return seed
