"""`reqbench journey scaffold`: a journey instance from a project's real release history.

Given a chain of releases of one project (``NAME==VERSION`` on PyPI, or local trees: ``git:PATH@TAG``,
``dir:PATH``, ``archive:PATH``), the final release's own tests are run, through the harness's verifier
(`online.testbed_check`: sandbox, guard plugin, no network), on every release of the chain. Each
release step whose results differ becomes a subtask (`scaffold_plan`): its F2P nodes fail before the
step and pass at it and at every later step, P2P nodes pass everywhere, steps no test tells apart are
folded into the next. Each release runs `Options.runs` times (default 2); a node whose result is not the
same in every run of some release is *flaky* and is left out of every subtask, as a verifier cannot
stand on it (the practice of SWE-bench-style validation, which re-runs before trusting a test).
`scaffold_write` then writes ``instance.yaml`` -- for PyPI releases with pinned
sdist hashes, ``pypi-diff:`` reference patches and the final sdist's tests as the hidden suite, so nothing
of the project is copied; for local trees with ``repo/``, ``hidden/`` and ``patches/`` -- and the
subtasks' requests are placeholders for the user to write (the release notes, paraphrased).

This is how the real instances of ``suites/real/journey`` were built (SWE-Journey §3.2 stages subtasks
along a repository's real history; its synthesis path is `journey synthesize`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.cache_location import cache_root
from reqbench.core.checks import GUARD_DIR, CheckStatus, run_check
from reqbench.core.errors import HarnessError, InputError
from reqbench.core.hashing import sha256_file, sha256_json, write_json
from reqbench.core.workspace import RepoSource
from reqbench.core.workspace.trees import tree_hash
from reqbench.protocols.journey.models import TestbedSpec
from reqbench.protocols.journey.online import testbed_check
from reqbench.protocols.journey.scaffold_plan import Plan, plan

_REQ_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")
TEST_DIRS = ("tests", "test", "testing")
_NOT_LIBRARY = ("setup.py", "conftest.py", "noxfile.py", "fabfile.py", "tasks.py", "docs", "doc", "examples",
                "benchmarks", "bench", "scripts", "tools", "misc", *TEST_DIRS)


@dataclass
class Release:
    """One release of the chain: its label (version, tag, folder name), pinned source spec and tree."""

    label: str
    spec: str
    tree: Path
    name: str = ""  # the PyPI project, for pypi releases
    project: str = ""  # the project of a git release (its repository folder): the instance's default id
    sha256: str = ""


@dataclass
class Options:
    tests: str = ""  # the final tree's test folder (default: the first of TEST_DIRS it has)
    paths: list[str] = field(default_factory=list)  # reference-patch filter (default: the library)
    pythonpath: list[str] = field(default_factory=list)  # import roots (default: src/ layout -> [src])
    pytest_args: str = ""
    timeout_seconds: float = 300.0
    instance_id: str = ""
    runs: int = 2  # test runs per release; nodes whose results differ between runs are flaky (left out)


@dataclass
class Scaffold:
    """Everything `scaffold_write` needs: the releases, the environment, each release's results, the plan."""

    releases: list[Release]
    testbed: TestbedSpec
    paths: list[str]
    results: list[dict[str, bool]]
    plan: Plan
    instance_id: str
    flaky: list[str] = field(default_factory=list)

    @property
    def on_pypi(self) -> bool:
        return all(r.name for r in self.releases) and len({r.name.lower() for r in self.releases}) == 1


def expand(args: list[str]) -> list[str]:
    """Release arguments with ``NAME==V1,V2,V3`` shorthand expanded to one requirement per version."""
    out: list[str] = []
    for arg in args:
        m = _REQ_RE.match(arg.strip())
        if m and "," in m.group(2):
            out.extend(f"{m.group(1)}=={v.strip()}" for v in m.group(2).split(",") if v.strip())
        else:
            out.append(arg.strip())
    return out


def resolve(arg: str) -> Release:
    """A release argument as a hash-pinned source and its (cached) tree."""
    text = arg.removeprefix("pypi:")
    m = _REQ_RE.match(text.split("#", 1)[0])
    if m and not arg.startswith(("git:", "dir:", "archive:")):
        src = RepoSource.parse(f"pypi:{text}").resolved()
        tree = src.baseline()
        return Release(m.group(2), src.spec, tree, name=m.group(1), sha256=src.sha256 or "")
    src = RepoSource.parse(arg).resolved()
    label = src.ref if src.kind == "git" and src.ref else Path(src.location).name
    for suffix in (".tar.gz", ".tgz", ".zip", ".tar"):
        label = label.removesuffix(suffix)
    return Release(label, src.spec, src.baseline(), project=git_project(Path(src.location)) if src.kind == "git"
                   else "")


def git_project(location: Path) -> str:
    """A git repository's project name: its folder (``proj`` for ``proj/``, ``proj/.git`` and a bare
    ``proj.git``), never a tag or commit."""
    folder = location.parent if location.name == ".git" else location
    return folder.name.removesuffix(".git") or folder.name


def _importables(root: Path) -> list[str]:
    """Top-level packages and modules of a tree (names relative to `root`)."""
    found = []
    for entry in sorted(root.iterdir()):
        if (entry.name.startswith((".", "_", "test")) or entry.name in _NOT_LIBRARY
                or entry.name.endswith(".egg-info")):
            continue
        if entry.is_dir() and (entry / "__init__.py").is_file():
            found.append(f"{entry.name}/*")
        elif entry.is_file() and entry.suffix == ".py":
            found.append(entry.name)
    return found


def library_layout(tree: Path) -> tuple[list[str], list[str]]:
    """(reference-patch globs, import roots) of a release tree: ``src/PKG`` -> ([src/PKG/*], [src]),
    else the top-level packages and modules -> ([PKG/*, mod.py], [.])."""
    src = tree / "src"
    if src.is_dir() and _importables(src):
        return [f"src/{g}" for g in _importables(src)], ["src"]
    globs = _importables(tree)
    if not globs:
        raise InputError("no top-level package or module found; name the library with --paths", file=str(tree))
    return globs, ["."]


def test_folder(tree: Path, wanted: str) -> str:
    if wanted:
        if not (tree / wanted).is_dir():
            raise InputError(f"the final release has no test folder {wanted!r}", file=str(tree))
        return wanted
    for name in TEST_DIRS:
        if (tree / name).is_dir():
            return name
    raise InputError(f"the final release ships no test folder ({', '.join(TEST_DIRS)}); name it with --tests",
                     file=str(tree))


def testbed(tests: str, pythonpath: list[str], opts: Options, hidden_tests: str,
                include: list[str]) -> TestbedSpec:
    extra = f"{opts.pytest_args.strip()} " if opts.pytest_args.strip() else ""
    return TestbedSpec(test_command=f"{{pytest}} -q --continue-on-collection-errors {extra}{{hidden}}/{tests}",
                           hidden_tests=hidden_tests, hidden_include=include, pythonpath=pythonpath,
                           timeout_seconds=opts.timeout_seconds)


def run_release(env: TestbedSpec, release: Release, hidden_dir: Path, run: int = 0) -> dict[str, bool]:
    """Every test node's result on one release, as the instance's verifier will see it; kept in the cache
    (``journey-scaffold/``, keyed by the environment, the hidden tests, the release tree, the guard plugin
    and the run number `run`) so a second scaffold over an overlapping chain runs only what it has not
    seen."""
    key = sha256_json({"env": env.model_dump(mode="json"), "hidden": tree_hash(hidden_dir),
                       "tree": tree_hash(release.tree), "guard": sha256_file(GUARD_DIR / "reqbench_guard.py"),
                       **({"run": run} if run else {})})
    cached = cache_root() / "journey-scaffold" / f"{key}.json"
    if cached.is_file():
        return {str(k): bool(v) for k, v in json.loads(cached.read_text(encoding="utf-8")).items()}
    result = run_check(testbed_check(env, []), release.tree, hidden_dir, env=env.env, base=release.tree)
    if result.timed_out:  # one hanging test costs every node of the release: name it, do not guess
        raise HarnessError(f"the tests did not finish on release {release.label} within {env.timeout_seconds:g}s "
                           "(a test hangs there? deselect it with --pytest-args '-k \"not NAME\"' or start the "
                           "chain later)")
    if result.status not in (CheckStatus.PASS, CheckStatus.FAIL) or result.probes is None:
        raise HarnessError(f"hidden tests could not run on release {release.label}: {result.status.value} "
                           f"{result.detail} {result.stderr_tail[-300:]}".strip())
    cached.parent.mkdir(parents=True, exist_ok=True)
    write_json(cached, result.probes)
    return dict(result.probes)


def scaffold(releases: list[Release], opts: Options, hidden_for: Callable[[TestbedSpec, str], Path],
             progress: Callable[[str], None] = lambda _: None) -> Scaffold:
    """Run the final release's tests on every release and derive the subtasks.

    `hidden_for(env, tests)` gives the hidden directory holding the test folder `tests` (`scaffold_write`
    decides where it lives: the fetched sdist cut to that folder, or the instance's own ``hidden/``).
    """
    if len(releases) < 2:
        raise InputError("a release chain needs at least two releases", item="releases")
    final = releases[-1]
    tests = test_folder(final.tree, opts.tests)
    paths, roots = library_layout(final.tree)
    for release in releases[:-1]:  # a module that became a package (or moved) is library in both forms
        paths += [g for g in library_layout(release.tree)[0] if g not in paths]
    paths = opts.paths or paths
    pythonpath = opts.pythonpath or roots
    on_pypi = all(r.name for r in releases)
    env = testbed(tests, pythonpath, opts, final.spec if on_pypi else "hidden", [tests] if on_pypi else [])
    hidden = hidden_for(env, tests)
    if opts.runs < 1:
        raise InputError("must be at least 1", item="runs")
    results, flaky = [], set()
    for release in releases:
        progress(f"running the tests of {final.label} on {release.label}"
                 + (f" ({opts.runs} runs)" if opts.runs > 1 else ""))
        runs = [run_release(env, release, hidden, r) for r in range(opts.runs)]
        flaky |= disagreeing(runs)
        results.append(runs[0])
        passed = sum(results[-1].values())
        progress(f"  {release.label}: {passed} of {len(results[-1])} nodes pass")
    if flaky:
        progress(f"{len(flaky)} flaky nodes (results differ between runs) left out")
        results = [{n: ok for n, ok in r.items() if n not in flaky} for r in results]
    name = releases[0].name or releases[0].project or final.label
    return Scaffold(releases, env, paths, results, plan(results), opts.instance_id or name, sorted(flaky))


def disagreeing(runs: list[dict[str, bool]]) -> set[str]:
    """Nodes whose result is not the same in every run (a node some run did not report counts as differing)."""
    nodes = set().union(*runs)
    return {n for n in nodes if len({r.get(n) for r in runs}) > 1}
