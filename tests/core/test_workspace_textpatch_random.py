"""Seeded random edits: the in-process diff is git's patch byte for byte or defers, git's patch applies to
the exact new tree, and
the in-process apply of that patch, and of mutated copies of it (wrong context, wrong counts, truncated,
dropped or repeated lines, escaping names, other modes), always equals `git apply` or defers to it."""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path

import pytest

from reqbench.core.workspace import apply_patch, tree_hash
from tests.core.textpatch_support import compare_apply, diffs

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

SEED = 20261201
ROUNDS = 70
WORDS = ["def f():", "    return 1", "", "x = 1", "class A:", "    pass", "# c", "_y = 2", "\u00e9 = '\u00fc'", "w\r"]
PATHS = ["m.py", "pkg/n.py", "z.txt", "pkg/sub/q.py", "d/only.py", "s p.py"]


def random_text(rng: random.Random) -> str:
    text = "".join(rng.choice(WORDS) + "\n" for _ in range(rng.randint(0, 25)))
    return text[:-1] if text and rng.random() < 0.2 else text


def edit(rng: random.Random, text: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        op, i = rng.random(), rng.randint(0, len(lines))
        if op < 0.4:
            lines.insert(i, rng.choice(WORDS) + "\n")
        elif lines and op < 0.7:
            del lines[min(i, len(lines) - 1)]
        elif lines:
            lines[min(i, len(lines) - 1)] = rng.choice(WORDS) + "\n"
    out = "".join(lines)
    return out.rstrip("\n") if rng.random() < 0.15 else out


def mutate(rng: random.Random, patch: str) -> str:
    lines = patch.split("\n")
    r, i = rng.random(), rng.randrange(len(lines))
    if r < 0.2:
        lines[i] = lines[i][:1] + "Z" + lines[i][1:]
    elif r < 0.3:
        del lines[i]
    elif r < 0.4:
        lines.insert(i, lines[i])
    elif r < 0.55 and "\n@@" in patch:
        heads = [k for k, line in enumerate(lines) if line.startswith("@@")]
        k = rng.choice(heads)
        lines[k] = re.sub(r"\d+", lambda m: str(max(0, int(m.group()) + rng.choice([-1, 1, 2]))), lines[k],
                          count=rng.randint(1, 4))
    elif r < 0.65:
        return patch[:rng.randrange(len(patch))]
    elif r < 0.75:
        lines[i] = (" " if lines[i][:1] in "+-" else "-") + lines[i][1:]
    elif r < 0.85:
        lines[i] = lines[i].replace("a/", rng.choice(["a/../", "a//", "a/.git/", "a/./"]), 1)
    elif r < 0.95:
        lines[i] = lines[i].replace("100644", "100755")
    else:
        lines[i] = lines[i].replace("@@", "@@@", 1)
    return "\n".join(lines)


def test_random_edits_round_trip_and_apply_as_git_does(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    in_process = applied = deferred = 0
    for n in range(ROUNDS):
        work = tmp_path / str(n)
        base, new = work / "base", work / "new"
        for _ in range(rng.randint(1, 4)):
            path = base / rng.choice(PATHS)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(random_text(rng))
            if rng.random() < 0.2:
                os.chmod(path, 0o755)
        shutil.copytree(base, new, symlinks=True)
        for path in sorted(p for p in new.rglob("*") if p.is_file()):
            r = rng.random()
            if r < 0.15:
                path.unlink()
            elif r < 0.8:
                path.write_text(edit(rng, path.read_text()))
        if rng.random() < 0.3:
            (new / "new").mkdir()
            (new / "new" / "n.py").write_text(random_text(rng))
        mine, theirs = diffs(base, new)
        if mine is not None:
            assert mine == theirs  # written in process only where git's choice is certain
            in_process += 1
        mine = theirs
        if not mine:
            continue
        target = work / "target"
        shutil.copytree(base, target, symlinks=True)
        apply_patch(target, mine, in_process=False)
        assert tree_hash(target) == tree_hash(new), mine
        spaced = "s p.py" in mine  # names with a space are git's to apply
        assert compare_apply(base, mine, work) is not spaced, mine  # its own patches need no git
        for _ in range(3):
            if compare_apply(base, mutate(rng, mine), work):
                applied += 1
            else:
                deferred += 1
        shutil.rmtree(work)
    assert in_process > ROUNDS * 0.4  # a ten-word vocabulary repeats lines far more than real code
    assert applied and deferred  # both sides of the invariant were exercised
