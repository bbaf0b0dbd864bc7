"""`make screenshots`: the runs list, the run page and a row page per protocol and the compare page of the
demo runs, as PNG files (``python -m tests.browser.screenshots RUNS_DIR OUT_DIR``).

The pictures are published with the documentation, so no page may show where this machine keeps things:
before each picture the visible text is searched for the working directory, the home directory and the
temporary and scratch folders, and a hit stops the command (exit 1) naming the page and the path.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from tests.browser.browser import browser, missing, served


class MachinePathShown(Exception):
    """A page about to be photographed shows a path of this machine."""


def machine_paths() -> list[re.Pattern[str]]:
    """What must not appear in a published picture: the working and home directories, and anything inside
    the temporary and scratch folders (the folder's bare name, as in "a private /tmp", is fine)."""
    roots = {str(Path.cwd().resolve()), str(Path.cwd()), str(Path.home())}
    inside = {tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir()), "/tmp", "/dev/shm"}
    return ([re.compile(re.escape(r)) for r in sorted(roots, key=len, reverse=True) if r not in ("/", "")]
            + [re.compile(re.escape(d.rstrip("/")) + r"/\S") for d in sorted(inside)])


def check_no_machine_path(name: str, text: str) -> None:
    for pattern in machine_paths():
        hit = pattern.search(text)
        if hit:
            line = next(x for x in text.splitlines() if pattern.search(x))
            raise MachinePathShown(f"{name}: the page shows the machine path {hit.group(0)!r} "
                                   f"({line.strip()[:160]!r})")


def first_row(page: object, base: str, run: object, prefer: str = "") -> None:
    """Open the first row matching `prefer` and scroll to its selected attempt (the protocol's panel)."""
    page.goto(f"{base}{run.base}/rows?q={prefer}")  # type: ignore[attr-defined]
    href = page.locator("table.rows td a").first.get_attribute("href")  # type: ignore[attr-defined]
    page.goto(base + href)  # type: ignore[attr-defined]
    page.locator("h2").first.evaluate(  # type: ignore[attr-defined]
        "h => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 8)")


def main(runs: Path, out: Path) -> int:
    if (why := missing()) is not None:
        print(f"cannot take screenshots: {why}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    with served(runs) as (base, viewer, entry), browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto(entry)
        names = list(viewer.runs)
        shots: list[str] = []

        def shot(name: str) -> None:
            check_no_machine_path(name, page.locator("body").inner_text())
            path = out / f"{name}.png"
            page.screenshot(path=str(path), full_page=False)
            shots.append(path.name)

        try:
            page.goto(base + "/")
            shot("runs")
            done: set[str] = set()
            for name in names:
                run = viewer.runs[name]
                protocol = run.store.meta.protocol
                if protocol in done or not re.search(r"reference", name):
                    continue
                done.add(protocol)
                page.goto(f"{base}{run.base}/")
                shot(f"run-{protocol}")
                first_row(page, base, run, "two-phase-C1" if protocol == "takeover" else "")
                shot(f"row-{protocol}")
            a = next((n for n in names if "takeover" in n and "null" in n), names[0])
            b_ = next((n for n in names if "takeover" in n and "reference" in n), names[-1])
            page.goto(f"{base}/compare?a={a}&b={b_}")
            shot("compare")
        except MachinePathShown as exc:
            print(f"screenshots: {exc}", file=sys.stderr)
            return 1
    print("\n".join(str(out / s) for s in shots))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "runs/demo"),
                  Path(sys.argv[2] if len(sys.argv) > 2 else "docs/screenshots")))
