"""A study file is reported like a suite file: an unknown key with the closest known one, a value of the wrong
type with a hint (a bare ``null`` YAML read as no value is named as such); `study add` takes the
``agent_opts={...}`` a user writes; and ``--resume`` says which configurations of the study file it does not
run and the command that adds them. Bad input exits 2 and creates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench

ONE_ROW = "suite: demo:specpath/slugkit\nconditions: [direct]\n"


@pytest.mark.parametrize(("body", "said"), [
    ("configuratons:\n  - {name: a, agent: reference}\n", "unknown key 'configuratons'; did you mean 'configurations'?"),
    ("configurations:\n  - {name: a, agent: null}\n",
     "configurations[0] 'a': agent: Input should be a valid string; YAML read an unquoted null"),
    ("configurations:\n  - {name: a, agent: reference, modle: x}\n",
     "configurations[0] 'a': unknown key 'modle'; did you mean 'model'?"),
    ("configurations:\n  - {name: a, agent: reference}\nrepeats: two\n", "repeats: Input should be a valid integer, unable to parse string as an integer (got 'two')"),
])
def test_a_bad_study_file_names_the_key_and_a_hint_and_creates_nothing(tmp_path: Path, body: str, said: str) -> None:
    spec = tmp_path / "study.yaml"
    spec.write_text(ONE_ROW + body, encoding="utf-8")
    proc = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = " ".join(proc.stderr.split())
    assert str(spec) in message and said in message
    assert not (tmp_path / "out").exists()


def test_study_add_takes_agent_opts_as_a_mapping_and_checks_them(tmp_path: Path) -> None:
    spec = tmp_path / "study.yaml"
    spec.write_text(ONE_ROW + "configurations:\n  - {name: a, agent: reference}\n", encoding="utf-8")
    assert reqbench("study", "run", str(spec), "--out", str(tmp_path / "st"), "--quiet").returncode == 0
    typo = reqbench("study", "add", str(tmp_path / "st"), 'name=b,agent=reference,agent_opts={"step_timout": 9}')
    assert typo.returncode == 2 and "(did you mean 'step_timeout'?)" in " ".join(typo.stderr.split())
    added = reqbench("study", "add", str(tmp_path / "st"), "name=b,agent=null,agent_opts={step_timeout: 60, model: x}",
                     "--quiet")
    assert added.returncode == 0, added.stdout + added.stderr
    assert "added: b" in added.stdout and "b: 1 scored" in added.stdout


def test_resume_names_a_configuration_added_to_the_study_file_and_the_command_that_adds_it(tmp_path: Path) -> None:
    spec = tmp_path / "study.yaml"
    spec.write_text(ONE_ROW + "configurations:\n  - {name: a, agent: reference}\n", encoding="utf-8")
    study = tmp_path / "st"
    assert reqbench("study", "run", str(spec), "--out", str(study), "--quiet").returncode == 0
    spec.write_text(spec.read_text() + "  - {name: b, agent: 'null'}\n", encoding="utf-8")
    resumed = reqbench("study", "run", "--resume", str(study), "--quiet")
    assert resumed.returncode == 0
    note = " ".join(resumed.stderr.split())
    assert "configuration 'b'" in note and "--resume does not run it" in note
    assert f"reqbench study add {study} {spec}" in note
    added = reqbench("study", "add", str(study), str(spec), "--quiet")
    assert added.returncode == 0 and "added: b" in added.stdout
    again = reqbench("study", "run", "--resume", str(study), "--quiet")
    assert "configuration 'b'" not in again.stderr
