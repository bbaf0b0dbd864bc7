"""`reqbench env ...`: build, list, show, prune and enter the environments suites declare (DESIGN §14).

Thin: parse -> call `reqbench.core.environments` -> print. Exit 0 on success, 2 on bad input (an
`InputError` naming the file, the item and the rule: a bad block, a failed build step, a missing tool).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from reqbench.cli.consoles import console, err_console
from reqbench.cli.protocol_lookup import protocol_for_suite, suite_spec
from reqbench.core.environments import (
    BuiltEnvironment,
    ensure_built,
    environment_key,
    find_built,
    iter_suite_environments,
)
from reqbench.core.environments.buildbox import box_args, built_box
from reqbench.core.environments.cache import (
    environments_dir,
    list_built,
    remove_built,
    remove_stale_builds,
)
from reqbench.core.environments.suites import DeclaredEnvironment, read_environment_file
from reqbench.core.errors import InputError

app = typer.Typer(help="Build and inspect the environments tasks declare: read-only toolchains (python venv, "
                  "node_modules, Debian root, image root) kept under the cache by the hash of their definition.",
                  no_args_is_help=True)

_CACHE_HELP = "The reqbench cache (default: $REQBENCH_CACHE or ~/.cache/reqbench)."


def suite_environments(path: Path) -> list[DeclaredEnvironment]:
    """The distinct environment blocks of a suite: from its protocol's ``environments()`` hook (the ones its
    rows run in; none by default) when the suite is of a known protocol, else every block its YAML files hold
    (`iter_suite_environments`)."""
    if path.is_dir():
        try:
            protocol = protocol_for_suite(path)
        except InputError:
            protocol = None
        if protocol is not None:
            distinct: dict[tuple[str, str], DeclaredEnvironment] = {}
            for item in protocol.load(path).environments().values():
                ident = (json.dumps(item.spec.model_dump(mode="json"), sort_keys=True), str(item.base_dir))
                distinct.setdefault(ident, item)
            return list(distinct.values())
    return list(iter_suite_environments(path))


def _declared(suite: Path | None, files: list[Path]) -> list[DeclaredEnvironment]:
    """Every block of the suite and the --environment files, all validated before anything builds."""
    if suite is None and not files:
        raise InputError("name a suite or at least one --environment FILE", item="reqbench env")
    found = suite_environments(suite) if suite is not None else []
    found += [read_environment_file(f) for f in files]
    return found


def _kinds(spec: dict[str, object]) -> str:
    return "+".join(k for k in ("debian", "image", "python", "node", "setup") if spec.get(k)) or "-"


def _size(path: Path) -> int:
    total = 0
    for folder, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                pass
    return total


@app.command("build")
def build(
    suite: Path | None = typer.Argument(None, help="Suite directory (or task file), or demo:NAME.",
                                        callback=lambda v: suite_spec(v) if v is not None else None),
    environment: list[Path] = typer.Option([], "--environment", "-e", help="An environment file (the block, "
                                           "or a mapping with an 'environment' key); repeatable."),
    cache: Path | None = typer.Option(None, "--cache", help=_CACHE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print [{origin, key, path, python}] as JSON."),
) -> None:
    """Build every environment a suite declares, once each, before any run needs it.

    Each block is validated first (one error naming file, item and rule, exit 2); then each distinct
    environment is built in its own sandbox (network on only there) unless the cache holds it already.

    Example: reqbench env build suites/my-suite --environment extra/environment.yaml
    """
    declared = _declared(suite, environment)
    built: list[tuple[DeclaredEnvironment, BuiltEnvironment]] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err_console, transient=True, disable=as_json) as bar:
        task = bar.add_task("environments", total=len(declared))
        for item in declared:
            def say(step: str, origin: str = item.origin) -> None:
                bar.update(task, description=f"{origin}: {step}")

            bar.update(task, description=f"{item.origin}: checking the cache")
            built.append((item, ensure_built(item.spec, item.base_dir, cache=cache, progress=say,
                                             origin=item.origin)))
            bar.advance(task)
    if as_json:
        console.echo(json.dumps([{"origin": d.origin, "key": b.key, "path": str(b.path), "python": b.python}
                                 for d, b in built], indent=2))
        return
    for item, env in built:
        console.print(f"{env.key[:16]}  {_kinds(item.spec.model_dump())}  {item.origin}", highlight=False)
    console.print(f"{len(built)} environment(s) ready under {environments_dir(cache)}", highlight=False)


@app.command("list")
def list_(
    cache: Path | None = typer.Option(None, "--cache", help=_CACHE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print [{key, kinds, created, origin, bytes}] as JSON."),
) -> None:
    """List the built environments in the cache, oldest first.

    Example: reqbench env list --json
    """
    rows: list[dict[str, Any]] = [{"key": key, "kinds": _kinds(meta.get("spec", {})), "created": meta.get("created"),
             "origin": meta.get("origin"), "bytes": _size(environments_dir(cache) / key)}
            for key, meta in list_built(cache)]
    if as_json:
        console.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        console.print(f"{row['key'][:16]}  {row['created']}  {row['bytes'] / 1e6:8.1f} MB  {row['kinds']:<20} "
                      f"{row['origin']}", highlight=False)
    if not rows:
        console.print(f"no environments under {environments_dir(cache)}", highlight=False)


def _by_prefix(prefix: str, cache: Path | None) -> BuiltEnvironment:
    matches = [key for key, _ in list_built(cache) if key.startswith(prefix.lower())]
    if len(matches) != 1:
        rule = "no built environment has this key" if not matches else f"{len(matches)} environments match; say more"
        raise InputError(rule, item=prefix)
    found = find_built(matches[0], cache=cache)
    assert found is not None
    return found


@app.command("show")
def show(
    key: str = typer.Argument(..., help="A key or a unique prefix of one (see `reqbench env list`)."),
    cache: Path | None = typer.Option(None, "--cache", help=_CACHE_HELP),
) -> None:
    """Print the description of one built environment: its spec, layers, binds, variables and interpreter.

    Example: reqbench env show 3f2a
    """
    built = _by_prefix(key, cache)
    meta = json.loads((built.path / "environment.json").read_text(encoding="utf-8"))
    meta["path"] = str(built.path)
    meta["binds"] = [[str(host), inside] for host, inside in built.binds]
    console.echo(json.dumps(meta, indent=2))


@app.command("prune")
def prune(
    keys: list[str] = typer.Argument(None, help="Keys (or unique prefixes) to remove."),
    remove_all: bool = typer.Option(False, "--all", help="Remove every built environment."),
    cache: Path | None = typer.Option(None, "--cache", help=_CACHE_HELP),
) -> None:
    """Remove built environments (named ones, or --all) and the folders of builds that died.

    An environment being built is left alone. Without arguments only dead builds are removed.

    Example: reqbench env prune --all
    """
    stale = remove_stale_builds(cache)
    targets = [k for k, _ in list_built(cache)] if remove_all else [_by_prefix(k, cache).key for k in keys or []]
    removed = sum(remove_built(k, cache) for k in targets)
    console.print(f"removed {removed} environment(s) and {stale} dead build folder(s)", highlight=False)


@app.command("shell")
def shell(
    target: Path = typer.Argument(..., help="A suite (with one environment, or choose with --pick), an "
                                  "environment file, or demo:NAME.", callback=suite_spec),
    pick: int = typer.Option(1, "--pick", min=1, help="Which of the suite's environments (1 = the first)."),
    workspace: Path | None = typer.Option(None, "--workspace", "-w", help="A folder bound writable as the "
                                          "working directory (default: none)."),
    command: str | None = typer.Option(None, "--command", "-c", help="Run this shell command instead of an "
                                       "interactive shell."),
    cache: Path | None = typer.Option(None, "--cache", help=_CACHE_HELP),
) -> None:
    """Open a shell inside an environment (built first if needed): read-only, offline, a private /tmp.

    Example: reqbench env shell suites/my-suite --workspace ./checkout
    """
    declared = suite_environments(target)
    if not declared:
        raise InputError("declares no environment", file=str(target))
    if pick > len(declared):
        raise InputError(f"--pick {pick}: the suite declares {len(declared)} environment(s)", file=str(target))
    item = declared[pick - 1]
    built = find_built(environment_key(item.spec, item.base_dir), cache=cache) or ensure_built(
        item.spec, item.base_dir, cache=cache, origin=item.origin)
    box = built_box(built.root, built.binds, built.env)
    extra: list[str] = []
    cwd = "/"
    if workspace is not None:
        ws = workspace.resolve()
        if not ws.is_dir():
            raise InputError("is not a folder", file=str(workspace), item="--workspace")
        extra, cwd = ["--bind", str(ws), "/workspace"], "/workspace"
    shell_path = "/bin/bash" if built.root is None and shutil.which("bash") else "/bin/sh"
    if built.root is not None and not os.path.lexists(built.root / "bin" / "sh"):
        raise InputError("the environment's root file system has no /bin/sh", file=item.origin)
    argv = [*box_args(box, cwd=cwd), *extra, "--", shell_path] + (["-c", command] if command else [])
    raise typer.Exit(subprocess.run(argv, check=False).returncode)
