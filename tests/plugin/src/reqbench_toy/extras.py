"""The toy package's agent, judge, file schema and command group."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from pydantic import BaseModel, Field

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.judges.exact import ExactJudge


class ToySuiteFile(BaseModel):
    """``toy.json``: the toy protocol's suite file."""

    sleep: float = Field(0.0, description="Seconds each row sleeps")
    conditions: list[str] = Field(default_factory=list, description="Condition names")
    tasks: list[dict[str, Any]] = Field(default_factory=list, description="Tasks with id, value, behaviour")


class ToyAgent:
    """Writes ``toy.txt`` into its workspace and replies "toy"."""

    name = "toy-writer"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        (Path(workspace) / "toy.txt").write_text("written by the toy agent\n")
        return AgentResult(status=AgentStatus.COMPLETED, reply="toy")


def make_toy_agent(**_: Any) -> ToyAgent:
    return ToyAgent()


def make_toy_judge(arg: str | None) -> ExactJudge:
    return ExactJudge()


app = typer.Typer(help="The toy plugin's own commands.", no_args_is_help=True)


@app.command("hello")
def hello(name: str = typer.Argument("world")) -> None:
    """Greet (proves a plugin adds a command group)."""
    typer.echo(f"hello {name} from reqbench-toy")
