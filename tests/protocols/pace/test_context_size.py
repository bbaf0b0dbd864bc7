"""Repository size as PACE-Bench counts it: physical lines of recognized source files, without
version-control metadata, dependencies or build outputs; links neither followed nor counted."""

from __future__ import annotations

from pathlib import Path

from reqbench.protocols.pace.context_size import physical_lines, source_size


def test_only_recognized_source_outside_metadata_dependencies_and_builds_counts(tmp_path: Path) -> None:
    files = {"app/main.py": "a\n\nb\n",            # 3 lines, the blank one too
             "app/ui.tsx": "x\ny",                 # 2: a last line without a newline
             "README.md": "r\n" * 50, "setup.cfg": "c\n",  # not source
             ".git/hooks/x.py": "g\n", "node_modules/m/index.js": "n\n" * 9, "dist/out.js": "d\n",
             "pkg.egg-info/x.py": "e\n", "app/__pycache__/m.py": "p\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "app" / "link.py").symlink_to(tmp_path / "app" / "main.py")
    (tmp_path / "vendored").symlink_to(tmp_path / "app", target_is_directory=True)
    assert source_size(tmp_path) == (2, 5)


def test_physical_lines() -> None:
    assert [physical_lines(b) for b in (b"", b"\n", b"a", b"a\nb", b"a\nb\n")] == [0, 1, 1, 2, 2]
