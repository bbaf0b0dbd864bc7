"""`l1.liveness.credited_lines`: which lines of a Python or JavaScript file can run, decided on the whole
syntax tree -- the guards no run satisfies, code after exits, uncalled nested functions and lambdas,
literal-only statements, comments and the inner lines of strings spanning lines count for nothing."""

from __future__ import annotations

import pytest

from reqbench.protocols.pace.judges.wired import never_true
from reqbench.protocols.pace.l1.liveness import credited_lines

PYTHON = '''import sys
import typing
if typing.TYPE_CHECKING:
    from x import stuffed
def f(a):
    """stuffed docstring"""
    if __name__ == '<never>':
        stuffed()
    if __name__ == "__main__":
        live()
    if False and a:
        stuffed()
    while 0:
        stuffed()
    if sys.version_info < (2,):
        stuffed()
    if sys.version_info >= (3, 8):
        live()
    if (0
        ):
        stuffed()
    for _ in ():
        stuffed()
    def inner():
        stuffed()
    unused = lambda: stuffed()
    class Never:
        def method(self):
            stuffed()
    'stuffed string'
    x = live()  # stuffed comment
    s = """
stuffed
"""
    if 1:
        live()
    else:
        stuffed()
    return x
    stuffed()
def g():
    def used():
        live()
    return used
'''

JAVASCRIPT = '''function f(a) {
  if (0) { stuffed(); }
  if (false && a) {
    stuffed();
  }
  if (typeof a === 'never') { stuffed(); }
  if (1 === 2) stuffed();
  while (!true) { stuffed(); }
  for (const x of []) { stuffed(); }
  function inner() { stuffed(); }
  const unused = () => stuffed();
  'stuffed';
  const t = `
stuffed
`;
  live(); // stuffed
  if (a) { live(); } else { live(); }
  return 1;
  stuffed();
}
'''


@pytest.mark.parametrize(("path", "text"), [("pkg/mod.py", PYTHON), ("src/mod.js", JAVASCRIPT),
                                            ("src/mod.ts", JAVASCRIPT)])
def test_nothing_that_never_runs_is_credited_and_everything_live_is(path: str, text: str) -> None:
    credited = credited_lines(path, text)
    assert credited is not None
    kept = "\n".join(credited.values())
    assert "stuffed" not in kept
    expected = sum(1 for line in text.splitlines() if "live()" in line)
    assert sum(1 for line in credited.values() if "live()" in line) == expected


def test_a_file_that_does_not_parse_has_no_credited_line() -> None:
    assert credited_lines("pkg/mod.py", "def f(:\n    x = 1\n") is None
    assert credited_lines("src/mod.js", "function f( {\n") is None
    assert credited_lines("NOTES.md", "anything") is None


@pytest.mark.parametrize(("condition", "module", "dead"), [
    ("__name__ == '<never>'", "pkg/mod.py", True), ("__name__ == 'pkg.mod'", "pkg/mod.py", False),
    ("__name__ == 'mod'", "pkg/mod.py", False), ("__name__ != '<never>'", "pkg/mod.py", False),
    ("False and x", "", True), ("x and 0", "", True), ("x or True", "", False), ("TYPE_CHECKING", "", True),
    ("sys.version_info < (2,)", "", True), ("sys.version_info[0] == 2", "", True),
    ("sys.version_info.major >= 4", "", True), ("sys.version_info < (3, 8)", "", False),
    ("'a' == 'b'", "", True), ("not True", "", True),
])
def test_python_guards_that_never_hold(condition: str, module: str, dead: bool) -> None:
    assert never_true(condition, module=module) is dead


@pytest.mark.parametrize(("condition", "dead"), [
    ("0", True), ("false && x", True), ("!true", True), ("void 0", True), ("1 === 2", True),
    ("'a' == 'b'", True), ("typeof x === 'never'", True), ("typeof x === 'string'", False),
    ("x || true", False), ("x", False), ("null", True), ("NaN", True),
])
def test_javascript_guards_that_never_hold(condition: str, dead: bool) -> None:
    assert never_true(condition, javascript=True) is dead
