"""The documentation: the CLI reference names every command and option of the typer app, the format
reference every registered schema, the README stays a short front door whose links resolve, and the site
builds with `mkdocs build --strict` (no warning: broken links and anchors fail)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import typer

from reqbench.cli.main import app
from reqbench.core import registry

REPO = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands(command: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """Every visible command of the app, reqbench's own groups only (a plugin's are not documented)."""
    out = [(path, command)]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        plugin = len(path) == 1 and name in registry.names("commands") and not registry.entry_value(
            "commands", name).startswith("reqbench.")
        if not getattr(sub, "hidden", False) and not plugin:
            out += _commands(sub, (*path, name))
    return out


def _sections(text: str) -> dict[str, str]:
    """Command path -> its section of the generated page."""
    parts = re.split(r"^#{2,4} `(reqbench[^`]*)`$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_cli_reference_names_every_command_and_option() -> None:
    sections = _sections(_load("gen_cli").cli_reference())
    commands = _commands(typer.main.get_command(app), ("reqbench",))
    assert len(commands) > 40
    for path, command in commands:
        title = " ".join(path)
        assert title in sections, f"{title} is not in the CLI reference"
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            names = [*param.opts, *param.secondary_opts] if param.param_type_name == "option" else [param.name.upper()]
            for name in names:
                assert f"`{name}`" in sections[title], f"{title}: {name} is not in the CLI reference"
    assert set(sections) == {" ".join(p) for p, _ in commands}  # and nothing that is not in the app


def test_format_reference_has_every_registered_schema() -> None:
    text = _load("gen_formats").formats_reference()
    own = [n for n in registry.names("schemas") if registry.entry_value("schemas", n).startswith("reqbench.")]
    assert own and all(f"## `{name}`" in text and f"`reqbench schema {name}`" in text for name in own)


def test_readme_is_a_short_front_door_whose_links_resolve() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 200
    assert readme.startswith("# reqbench\n\n```bash\nmake demo")
    for heading in ("## Install", "## Evaluate your own agent in 5 minutes", "## Documentation"):
        assert heading in readme
    for target in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (REPO / target).exists(), f"README links to {target}, which does not exist"


def test_every_protocol_page_cites_its_paper_and_lists_departures() -> None:
    for name in ("takeover", "specpath", "journey", "pace"):
        page = (REPO / "docs" / "protocols" / f"{name}.md").read_text(encoding="utf-8")
        assert page.count("**Paper**:") == 1 and "## Departures from the paper" in page, name


def _sources(tmp_path: Path) -> Path:
    """A copy of the documentation sources with both reference pages generated (as `make docs` does)."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "docs", src / "docs", ignore=shutil.ignore_patterns("reference", "__pycache__"))
    for name in ("mkdocs.yml", "SECURITY.md", "CHANGELOG.md"):
        shutil.copy(REPO / name, src / name)
    for script, page in (("gen_cli", "cli"), ("gen_formats", "formats")):
        subprocess.run([sys.executable, f"docs/{script}.py", f"docs/reference/{page}.md"], cwd=src, check=True,
                       capture_output=True, timeout=120)
    return src


def _mkdocs_env(tmp: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp)}


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make docs` in a copy of the sources: references generated, `mkdocs build --strict` passes."""
    pytest.importorskip("mkdocs", reason="mkdocs-material is in the dev extra (pip install -e '.[dev]')")
    tmp = tmp_path_factory.mktemp("docs")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp / "site")],
                          cwd=_sources(tmp), capture_output=True, text=True, timeout=300, env=_mkdocs_env(tmp))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr
    return tmp / "site"


def test_the_site_builds_strictly(built_site: Path) -> None:
    assert (built_site / "reference" / "cli.html").exists()
    assert (built_site / "protocols" / "pace.html").exists()


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]


def _local_links(page: Path) -> list[str]:
    """The page's links to other files of the site (no scheme, not only a fragment), query and fragment cut."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    out = []
    for link in parser.found:
        parts = urlsplit(link)
        if not parts.scheme and not parts.netloc and parts.path:
            out.append(unquote(parts.path))
    return out


def test_every_link_of_the_site_opens_a_page_from_disk(built_site: Path) -> None:
    """The README says to open site/index.html: from disk, every link must name a file (a link to a folder
    shows its listing, not its page)."""
    pages = sorted(p for p in built_site.rglob("*.html") if p.name != "404.html")  # a server's, any path
    assert len(pages) > 15
    nav = _local_links(built_site / "index.html")
    assert "reference/cli.html" in nav and "protocols/journey.html" in nav
    for page in pages:
        for link in _local_links(page):
            target = (page.parent / link).resolve()
            assert target.is_file(), f"{page.relative_to(built_site)} links to {link}, which is not a file"


@pytest.mark.slow
def test_mkdocs_serve_answers_every_navigation_link(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs-material is in the dev extra (pip install -e '.[dev]')")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--no-livereload", "-a",
                               f"127.0.0.1:{port}"], cwd=_sources(tmp_path), env=_mkdocs_env(tmp_path),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        index = _fetch(f"http://127.0.0.1:{port}/", server)
        parser = _Links()
        parser.feed(index)
        nav = [unquote(urlsplit(x).path) for x in parser.found if x.endswith(".html")]
        assert "reference/cli.html" in nav and "commands.html" in nav
        for link in nav:
            assert "</html>" in _fetch(f"http://127.0.0.1:{port}/{link}", server), link
    finally:
        server.kill()
        server.wait(timeout=30)


def _fetch(address: str, server: subprocess.Popen[bytes]) -> str:
    """The page at `address`, waiting (up to 120 s) for the server to finish its first build."""
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(address, timeout=10) as resp:
                return str(resp.read().decode("utf-8"))
        except urllib.error.HTTPError:
            raise
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
