"""Suite errors in plain words, for every suite and file format a person writes: an unknown key is named
with the closest known one, a YAML syntax error and invalid UTF-8 come with line and column, and the CLI
exits 2 with that one sentence."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from reqbench.core.errors import InputError
from reqbench.core.inputfiles import validate
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.models import load_suite as journey_suite
from reqbench.protocols.journey.personas import load_persona
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.case import load_suite as pace_suite
from reqbench.protocols.specpath.family import load_family
from reqbench.protocols.specpath.family import load_suite as specpath_suite
from reqbench.protocols.takeover.suite_file import load_suite as takeover_suite
from reqbench.schemas import schema_model
from tests.cli.generic_helpers import reqbench

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "reqbench" / "examples"
PERSONAS = EXAMPLES.parent / "protocols" / "journey" / "personas"

# (bundled file, the name it must have, loader, misspelt top-level key, the key it should suggest)
CASES: list[tuple[Path, str, Callable[[Path], Any], str, str]] = [
    (EXAMPLES / "specpath/suite.yaml", "suite.yaml", specpath_suite, "familes", "families"),
    (EXAMPLES / "specpath/slugkit/family.yaml", "family.yaml", load_family, "decoy", "decoys"),
    (EXAMPLES / "journey/suite.yaml", "suite.yaml", journey_suite, "max_turn", "max_turns"),
    (EXAMPLES / "journey/tasklet/instance.yaml", "instance.yaml", load_instance, "stage", "stages"),
    (EXAMPLES / "takeover/suite.yaml", "suite.yaml", takeover_suite, "repositroy", "repository"),
    (EXAMPLES / "pace/suite.yaml", "suite.yaml", pace_suite, "case", "cases"),
    (EXAMPLES / "pace/cachetools-slru/case.yaml", "case.yaml", load_case, "codepoints", "code_points"),
    (PERSONAS / "non-coder.yaml", "persona.yaml", load_persona, "goal_stabilty", "goal_stability"),
]


def _copy_with(tmp_path: Path, source: Path, name: str, extra: bytes) -> Path:
    folder = tmp_path / "s"
    folder.mkdir(parents=True)
    (folder / name).write_bytes(source.read_bytes() + extra)
    return folder / name if name == "persona.yaml" else folder


@pytest.mark.parametrize(("source", "name", "loader", "typo", "meant"), CASES,
                         ids=[f"{c[0].parent.name}/{c[0].name}" for c in CASES])
def test_unknown_key_did_you_mean(tmp_path: Path, source: Path, name: str, loader: Callable[[Path], Any],
                                  typo: str, meant: str) -> None:
    target = _copy_with(tmp_path, source, name, f"\n{typo}: 1\n".encode())
    with pytest.raises(InputError) as err:
        loader(target)
    assert str(err.value).endswith(f"{name}: unknown key '{typo}'; did you mean '{meant}'?")


@pytest.mark.parametrize(("schema", "data", "expected"), [
    ("specpath-family", {"atoms": [{"id": "a", "scop": "x"}]}, "atoms.0: unknown key 'scop'; did you mean 'scope'?"),
    ("takeover-suite", {"protocol": "takeover", "name": "n", "checks": {"build": {"comand": "x"}}},
     "checks.build: unknown key 'comand'; did you mean 'command'?"),
    ("pace-case", {"code_points": [{"id": "CP1", "wieght": 1}]},
     "code_points.0: unknown key 'wieght'; did you mean 'weight'?"),
    ("journey-suite", {"protocol": "journey", "zzz": 1}, "unknown key 'zzz' (known keys: "),
])
def test_unknown_key_did_you_mean_nested(schema: str, data: dict[str, Any], expected: str) -> None:
    """Keys below the top level are named with their path, and matched against their own model."""
    model: type[BaseModel] = schema_model(schema)
    with pytest.raises(InputError) as err:
        validate(model, data, "f.yaml")
    assert expected in str(err.value)


@pytest.mark.parametrize(("source", "name", "loader"), [(c[0], c[1], c[2]) for c in CASES],
                         ids=[f"{c[0].parent.name}/{c[0].name}" for c in CASES])
def test_yaml_syntax_error_and_invalid_utf8_have_line_and_column(
        tmp_path: Path, source: Path, name: str, loader: Callable[[Path], Any]) -> None:
    lines = source.read_bytes().count(b"\n")
    broken = _copy_with(tmp_path / "yaml", source, name, b"\nkey: [a, b\n")
    with pytest.raises(InputError, match=rf"{name}: YAML syntax error at line {lines + 3}, column 1: "):
        loader(broken)
    undecodable = _copy_with(tmp_path / "utf8", source, name, b"\nname: caf\xe9\n")
    with pytest.raises(InputError, match=rf"{name}: not valid UTF-8 at line {lines + 2}, column 10 "):
        loader(undecodable)


def test_suite_errors_exit_2_with_one_sentence(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "specpath", suite)
    (suite / "slugkit" / "family.yaml").write_bytes(
        (EXAMPLES / "specpath/slugkit/family.yaml").read_bytes() + b"\ndecoy: []\n")
    proc = reqbench("validate", str(suite))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "family.yaml: unknown key 'decoy'; did you mean 'decoys'?" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


# (bundled file, its name, loader, the line holding a number, what replaces its value)
NUMBERS: list[tuple[Path, str, Callable[[Path], Any], str]] = [
    (EXAMPLES / "specpath/slugkit/family.yaml", "family.yaml", load_family, "  timeout_seconds: 120"),
    (EXAMPLES / "journey/tasklet/instance.yaml", "instance.yaml", load_instance, "  timeout_seconds: 120"),
    (EXAMPLES / "pace/cachetools-slru/case.yaml", "case.yaml", load_case, "    weight: 3"),
]


@pytest.mark.parametrize("value", [".inf", ".nan", "-.inf"])
@pytest.mark.parametrize(("source", "name", "loader", "line"), NUMBERS, ids=[n[0].parent.name for n in NUMBERS])
def test_a_limit_or_weight_that_is_not_a_finite_number_is_refused_by_name(
        tmp_path: Path, source: Path, name: str, loader: Callable[[Path], Any], line: str, value: str) -> None:
    """YAML spells infinity and NaN: an infinite timeout crashed the sandbox's wait (OverflowError) and an
    infinite Code Point weight makes every weighted score NaN; both are one error naming the key."""
    folder = tmp_path / "copy"
    shutil.copytree(source.parent, folder)
    path = folder / name
    text = path.read_text()
    assert line in text
    path.write_text(text.replace(line, line.rsplit(":", 1)[0] + f": {value}", 1))
    with pytest.raises(InputError) as caught:
        loader(folder)
    key = line.strip().split(":")[0]
    assert str(caught.value.item).endswith(key) and ("finite number" in caught.value.rule
                                                   or "greater than 0" in caught.value.rule), caught.value
