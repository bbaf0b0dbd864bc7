"""A release's ``pre_repo.zip`` is input from outside: every attack on the machine that unpacks it is
refused before anything is written, and a submission cannot rewrite the release's gate scripts.

Attacks: path traversal, absolute and drive-letter paths, backslashes, symbolic links, ``.git`` entries
(any case), special files, names that collide on a case-insensitive file system, a corrupted member
(CRC), a size bomb (declared or produced bytes over the bound), too many members, and a header that
understates the member's size; through `reqbench takeover import`, an unsafe archive leaves no suite and
no file outside the destination.
"""

from __future__ import annotations

import json
import stat
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.rq4_delivery.archives import ArchiveLimits, extract_archive, inspect_archive
from tests.protocols.takeover.release_factory import PID, synthetic_release, tree_hash_of_zip, validators


def _zip(path: Path, members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return path


def _special(name: str, kind: int, data: bytes = b"") -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (kind | 0o777) << 16
    return info, data


ATTACKS = {
    "traversal": ([("../escape.txt", b"x")], "path traversal"),
    "nested traversal": ([("src/../../escape.txt", b"x")], "path traversal"),
    "absolute": ([("/tmp/escape.txt", b"x")], "absolute path"),
    "drive letter": ([("C:/escape.txt", b"x")], "absolute path"),
    "backslash": ([("..\\escape.txt", b"x")], "backslash"),
    "symlink": ([_special("link", stat.S_IFLNK, b"/etc/passwd")], "symbolic link"),
    "fifo": ([_special("pipe", stat.S_IFIFO)], "special file"),
    ".git": ([("ok.py", b"x"), (".git/hooks/post-checkout", b"#!/bin/sh\n")], ".git"),
    ".GIT any case": ([(".GIT/config", b"x")], ".git"),
    "case collision": ([("app.py", b"a"), ("App.py", b"b")], "repeats"),
    "empty": ([], "holds no file"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_unsafe_members_are_refused_and_nothing_is_written(tmp_path: Path, attack: str) -> None:
    members, why = ATTACKS[attack]
    archive = _zip(tmp_path / "pre_repo.zip", members)  # type: ignore[arg-type]
    assert any(why in p for p in inspect_archive(archive).problems)
    with pytest.raises(InputError, match=why) as exc:
        extract_archive(archive, tmp_path / "out" / "repo")
    assert exc.value.file == str(archive)
    assert not (tmp_path / "escape.txt").exists() and not Path("/tmp/escape.txt").exists()
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_a_corrupted_member_fails_its_crc(tmp_path: Path) -> None:
    archive = tmp_path / "pre_repo.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        z.writestr("app.py", b"print('hello')\n" * 4)
    data = bytearray(archive.read_bytes())
    at = data.index(b"print('hello')")
    data[at] ^= 0x20  # one bit of the stored bytes, headers untouched
    archive.write_bytes(bytes(data))
    [problem] = inspect_archive(archive).problems
    assert "CRC" in problem or "Bad CRC" in problem
    with pytest.raises(InputError):
        extract_archive(archive, tmp_path / "repo")
    assert not (tmp_path / "repo").exists()


def test_a_size_bomb_is_refused_from_its_declared_size(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "pre_repo.zip", [("zeros.bin", b"\0" * (4 << 20))])
    assert archive.stat().st_size < 64 << 10  # 4 MiB of zeros deflate to a few KiB
    limits = ArchiveLimits(max_total_bytes=1 << 20)
    [problem] = inspect_archive(archive, limits).problems
    assert f"declares {4 << 20} bytes decompressed, more than the limit of {1 << 20}" in problem
    with pytest.raises(InputError, match="more than the limit"):
        extract_archive(archive, tmp_path / "repo", limits)
    assert not (tmp_path / "repo").exists()


def test_a_header_that_understates_the_size_never_yields_more_bytes(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "pre_repo.zip", [("zeros.bin", b"\0" * (1 << 20))])
    data = bytearray(archive.read_bytes())
    # rewrite the uncompressed size in the local header (offset 22) and central directory (offset 24)
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, local + 22, 100)
    struct.pack_into("<I", data, central + 24, 100)
    archive.write_bytes(bytes(data))
    checked = inspect_archive(archive, ArchiveLimits(max_total_bytes=1000))
    assert checked.problems and checked.tree_sha256 is None  # truncated to 100 bytes: the CRC fails
    with pytest.raises(InputError):
        extract_archive(archive, tmp_path / "repo", ArchiveLimits(max_total_bytes=1000))
    assert not (tmp_path / "repo").exists()


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "pre_repo.zip", [(f"f{i}.txt", b"") for i in range(11)])
    [problem] = inspect_archive(archive, ArchiveLimits(max_members=10)).problems
    assert "11 members, more than the limit of 10" in problem


def test_a_safe_archive_extracts_exactly_and_hashes_as_released(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "pre_repo.zip", [("src/", b""), ("src/app.py", b"A\n"), ("README.md", b"R\n")])
    checked = extract_archive(archive, tmp_path / "repo")
    assert checked.problems == [] and checked.file_count == 2
    assert checked.tree_sha256 == tree_hash_of_zip(archive)
    import hashlib

    assert checked.tree_sha256 == hashlib.sha256(b"README.md\0R\n\0src/app.py\0A\n\0").hexdigest()
    assert sorted(p.relative_to(tmp_path / "repo").as_posix() for p in (tmp_path / "repo").rglob("*")) == \
        ["README.md", "src", "src/app.py"]


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_import_of_a_release_with_a_traversing_archive_writes_nothing(tmp_path: Path) -> None:
    release = synthetic_release(tmp_path / "rel", tmp_path / "cache", ("T001",))
    env = release / "Code Environment" / PID / "targets" / "T001_before_24"
    with zipfile.ZipFile(env / "pre_repo.zip", "a") as z:
        z.writestr("../../../../escape.txt", "pwned")
    manifest = json.loads((env / "manifest.json").read_text())
    manifest.pop("archive_sha256"), manifest.pop("repo_sha256")  # an attacker's release records no hashes
    (env / "manifest.json").write_text(json.dumps(manifest))
    proc = _cli(tmp_path, "takeover", "import", str(release), "--out", str(tmp_path / "suite"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "path traversal" in proc.stderr and "pre_repo.zip" in proc.stderr
    assert not (tmp_path / "suite").exists()
    assert not any(p.name == "escape.txt" for p in tmp_path.parent.rglob("escape.txt"))


# A submission that makes the release's regression script always pass and breaks a test: the script is
# restored from the snapshot before the gate runs, so the broken test is seen.
FORGE = ("printf 'import sys\\nsys.exit(0)\\n' > scripts/check.py && "
         "printf 'def test_forged():\\n    assert False\\n' > tests/test_forged.py")


def test_a_submission_cannot_rewrite_the_released_gate_scripts(tmp_path: Path, require_bwrap: None) -> None:
    release = synthetic_release(tmp_path / "rel", tmp_path / "cache", ("T001",))
    proc = _cli(tmp_path, "takeover", "import", str(release), "--out", str(tmp_path / "suite"), "--validators",
                str(validators(tmp_path / "val")), "--target-command", "{pytest} -q {hidden}/test_target.py")
    assert proc.returncode == 0, proc.stderr
    proc = _cli(tmp_path, "run", str(tmp_path / "suite"), "--out", str(tmp_path / "run"), "--quiet",
                "--agent", "command", "--condition", "C1", "--agent-opt", f"template={FORGE}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _cli(tmp_path, "report", str(tmp_path / "run"), "--json")
    c1 = json.loads(proc.stdout)["takeover"]["delivery"]["C1"]
    assert (c1["build"], c1["regression"], c1["complete_delivery"]) == (1.0, 0.0, 0.0)
