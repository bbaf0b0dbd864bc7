"""Red-team tests: a PATH directory behind a system link (``/bin`` -> ``usr/bin`` on a merged-``/usr``
host) is reached through the link the view recreates instead of a bind of its own, and that shows an
agent exactly what the bind did: the same programs, read-only, and nothing else of the host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.core.sandbox import run_sandboxed

pytestmark = [pytest.mark.usefixtures("require_bwrap"),
              pytest.mark.skipif(not (os.path.islink("/bin") and os.path.realpath("/bin") == "/usr/bin"),
                                 reason="needs a merged /usr (/bin -> usr/bin)")]


def test_the_linked_bin_directory_shows_the_same_programs_read_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    host_listing = sorted(os.listdir("/usr/bin"))
    script = ("readlink /bin; ls /bin > listing; "
              "for p in /bin/planted /usr/bin/planted /sbin/planted; do "
              "  (echo x > $p) 2>/dev/null && echo WROTE $p; done; "
              "/bin/true && echo RAN")
    result = run_sandboxed(script, ws, env={"PATH": "/bin:/sbin:/usr/bin"})
    out = result.stdout.decode()
    assert result.exit_code == 0, result.stderr
    assert out.splitlines()[0] == "usr/bin" and "RAN" in out and "WROTE" not in out
    assert sorted((ws / "listing").read_text().split()) == host_listing
    assert not any(Path(p).exists() for p in ("/usr/bin/planted", "/usr/sbin/planted"))
