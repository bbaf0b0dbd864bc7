"""Harbor task folders written to Harbor's documented layout (``task.toml``, ``instruction.md``,
``environment/Dockerfile``, ``tests/test.sh``, ``solution/solve.sh``; multi-step ``[[steps]]`` with
``steps/<name>/``), for the harbor protocol's tests."""

from __future__ import annotations

from pathlib import Path

GREET_TEST = """#!/bin/bash
# Harbor: runs from the working directory, writes /logs/verifier/reward.txt
if [ "$(cat greeting.txt 2>/dev/null)" = "hello harbor" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


def write(path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return path


def single_step(path: Path, *, dockerfile: str | None = None, toml_extra: str = "") -> Path:
    files = {
        "task.toml": f'schema_version = "1.4"\n{toml_extra}\n[metadata]\ndifficulty = "easy"\n\n'
                     '[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 120.0\n\n'
                     '[environment]\nbuild_timeout_sec = 600.0\n',
        "instruction.md": "Write the text `hello harbor` (no newline) into greeting.txt in the working directory.\n",
        "tests/test.sh": GREET_TEST,
        "solution/solve.sh": "#!/bin/bash\nprintf 'hello harbor' > greeting.txt\n",
    }
    if dockerfile is not None:
        files["environment/Dockerfile"] = dockerfile
    return write(path, files)


STEP_TEST = """#!/bin/bash
# step {n}: the number of lines in counter.txt must be at least {n}
lines=$(wc -l < counter.txt 2>/dev/null || echo 0)
if [ "$lines" -ge {n} ]; then echo '{{"reward": 1.0, "lines": '$lines'}}' > /logs/verifier/reward.json
else echo '{{"reward": 0.0, "lines": '$lines'}}' > /logs/verifier/reward.json; fi
"""


def multi_step(path: Path, *, strategy: str = "mean", min_reward: float | None = None, steps: int = 2) -> Path:
    gate = f"min_reward = {min_reward}\n" if min_reward is not None else ""
    toml = [f'schema_version = "1.4"\nmulti_step_reward_strategy = "{strategy}"\n\n[agent]\ntimeout_sec = 60.0\n']
    files: dict[str, str] = {"tests/helper.sh": "# shared by every step\n"}
    for n in range(1, steps + 1):
        toml.append(f'[[steps]]\nname = "step-{n}"\n{gate}\n[steps.verifier]\ntimeout_sec = 30.0\n')
        files[f"steps/step-{n}/instruction.md"] = f"Append the line `{n}` to counter.txt.\n"
        files[f"steps/step-{n}/tests/test.sh"] = STEP_TEST.format(n=n)
        files[f"steps/step-{n}/solution/solve.sh"] = f"#!/bin/bash\necho {n} >> counter.txt\n"
    files["task.toml"] = "\n".join(toml)
    return write(path, files)


def harbor_task_configs(tomls: list[Path]) -> list[str]:
    """``name steps strategy`` per task.toml as Harbor's own `TaskConfig` reads it (Harbor's environment,
    `tests.interop.harbor_python`; skips where it is not built)."""
    from tests.interop.harbor_python import harbor_task_configs as read

    return read(tomls)
