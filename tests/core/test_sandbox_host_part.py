"""The cached host part of a sandbox view: reused while nothing it depends on changed, rebuilt otherwise,
and never carrying one launch's own binds into another."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.core.sandbox import view
from reqbench.core.sandbox.view import View, host_part

PATH = "/usr/local/bin:/usr/bin:/bin"


def _pairs(args: list[str] | tuple[str, ...], flag: str) -> list[tuple[str, str]]:
    """(source, destination) of every `flag` option in bubblewrap `args`."""
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == flag]


def test_same_inputs_reuse_one_host_part() -> None:
    assert host_part(PATH) is host_part(PATH)


def test_a_different_path_is_a_different_host_part(tmp_path: Path) -> None:
    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    with_tools = host_part(f"{tools}:{PATH}")
    assert with_tools is not host_part(PATH)
    assert (str(tools), str(tools)) in _pairs(with_tools.args, "--ro-bind")
    assert str(tools) not in host_part(PATH).args


def test_a_path_directory_that_appears_or_vanishes_later_is_seen(tmp_path: Path) -> None:
    tools = tmp_path / "late" / "bin"
    env_path = f"{tools}:{PATH}"
    assert str(tools) not in host_part(env_path).args  # not there yet: nothing to bind
    tools.mkdir(parents=True)
    assert (str(tools), str(tools)) in _pairs(host_part(env_path).args, "--ro-bind")
    tools.rmdir()
    assert str(tools) not in host_part(env_path).args  # gone: binding it would fail the launch


def test_a_replaced_directory_or_repointed_link_is_seen(tmp_path: Path) -> None:
    first, second = tmp_path / "one" / "bin", tmp_path / "two" / "bin"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    link_dir = tmp_path / "via"
    link_dir.mkdir()
    link = link_dir / "bin"
    link.symlink_to(first)
    env_path = f"{link}:{PATH}"
    assert (str(first), str(link)) in _pairs(host_part(env_path).args, "--ro-bind")
    link.unlink()
    link.symlink_to(second)
    assert (str(second), str(link)) in _pairs(host_part(env_path).args, "--ro-bind")
    assert (str(first), str(link)) not in _pairs(host_part(env_path).args, "--ro-bind")


def test_extra_readonly_paths_follow_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = tmp_path / "opt-tool"
    extra.mkdir()
    monkeypatch.setenv(view.EXTRA_RO_ENV, str(extra))
    assert (str(extra), str(extra)) in _pairs(host_part(PATH).args, "--ro-bind")
    monkeypatch.delenv(view.EXTRA_RO_ENV)
    assert str(extra) not in host_part(PATH).args


def test_a_cache_created_later_under_a_bound_directory_is_masked(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    exposed = tmp_path / "exposed"
    exposed.mkdir()
    cache = exposed / "cache"
    monkeypatch.setenv(view.EXTRA_RO_ENV, str(exposed))
    monkeypatch.setenv("REQBENCH_CACHE", str(cache))
    assert cache not in host_part(PATH).masks  # nothing to mask yet
    cache.mkdir()
    assert cache in host_part(PATH).masks
    args = View(cwd=tmp_path, writable=[tmp_path], env_path=PATH).bwrap_args()
    assert args[args.index(str(cache)) - 1] == "--tmpfs"


def test_a_changed_interpreter_is_a_different_host_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = host_part(PATH)
    prefix = tmp_path / "py"
    (prefix / "bin").mkdir(parents=True)
    monkeypatch.setattr("sys.prefix", str(prefix))
    after = host_part(PATH)
    assert after is not before and prefix in after.toolchain and prefix not in before.toolchain


def test_the_cache_stays_bounded(tmp_path: Path) -> None:
    for i in range(view.HOST_PART_CACHE_SIZE + 5):
        host_part(f"{tmp_path}/p{i}/bin:{PATH}")
    assert len(view._host_parts) <= view.HOST_PART_CACHE_SIZE


def test_per_launch_binds_are_never_cached(tmp_path: Path) -> None:
    a_ws, b_ws, a_extra, a_input = (tmp_path / n for n in ("a", "b", "a-extra", "a-input"))
    for d in (a_ws, b_ws, a_extra, a_input):
        d.mkdir()
    script = a_input / "run.sh"
    script.write_text("true\n")
    a = View(cwd=a_ws, writable=[a_ws, a_extra], readonly={a_input: a_input}, hide=[a_extra],
             network=True, argv=["sh", str(script)], env_path=PATH).bwrap_args()
    b = View(cwd=b_ws, writable=[b_ws], env_path=PATH).bwrap_args()
    assert "--share-net" in a and (str(a_extra), str(a_extra)) in _pairs(a, "--bind")
    assert (str(script), str(script)) in _pairs(a, "--ro-bind")
    for leaked in (str(a_ws), str(a_extra), str(a_input), str(script), "--share-net"):
        assert leaked not in b
    assert b[-2:] == ["--chdir", str(b_ws)]


def test_host_part_matches_a_fresh_build(tmp_path: Path) -> None:
    """The cached part equals what building it from scratch gives (the cache changes no view)."""
    cached = host_part(os.environ.get("PATH", PATH))
    view._host_parts.clear()
    assert host_part(os.environ.get("PATH", PATH)) == cached


@pytest.mark.parametrize("command", [
    "cat /etc/hostname\t--in=/etc/passwd  /no/such/file",        # no quoting: split on blanks
    "cat '/etc/hostname' --in=\"/etc/passwd\" /no/such/file",    # quoting: shlex
    "cat /etc/hostname --in=/etc/passwd /no/such/file 'unclosed",  # unparsable: words kept as they are
])
def test_named_files_are_the_existing_absolute_paths_of_the_command_line(command: str) -> None:
    named = View(cwd=Path("/"), writable=[], argv=["/bin/sh", "-c", command]).named_files()
    if "unclosed" in command:  # one word: the whole string
        assert named == [Path("/bin/sh")]
    else:
        assert named == [Path("/bin/sh"), Path("/etc/hostname"), Path("/etc/passwd")]


@pytest.mark.skipif(not (os.path.islink("/bin") and os.path.realpath("/bin") == "/usr/bin"),
                    reason="needs a merged /usr (/bin -> usr/bin)")
def test_a_path_directory_behind_a_recreated_system_link_gets_no_second_mount() -> None:
    part = host_part("/bin:/sbin:/usr/bin")
    destinations = [dest for _, dest in _pairs(part.args, "--ro-bind")]
    assert ("usr/bin", "/bin") in _pairs(part.args, "--symlink")
    assert "/bin" not in destinations and destinations.count("/usr/bin") == 0 and "/usr" in destinations
    assert "/bin" in part.bound  # a file named below it needs no bind of its own either


def test_a_path_directory_whose_link_leads_elsewhere_is_still_bound(tmp_path: Path) -> None:
    real = tmp_path / "real" / "bin"
    real.mkdir(parents=True)
    (tmp_path / "bin").symlink_to(real)  # not a system link the view recreates: bound at both names
    part = host_part(f"{tmp_path / 'bin'}:{PATH}")
    assert (str(real), str(tmp_path / "bin")) in _pairs(part.args, "--ro-bind")
