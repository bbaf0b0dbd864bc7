"""Commands given as a shell string that need no shell: started directly instead of through ``/bin/sh -c``.

``/bin/sh -c 'python -m pytest -q tests'`` costs a shell start, a fork and a wait inside the sandbox
(dash forks even for the last command), about 1-2 ms per launch here. `direct_argv` returns the argv the
shell would have executed when the shell would do nothing else, and None otherwise (then the string goes
to ``/bin/sh -c`` as before). It is conservative: only plain words of ``[A-Za-z0-9_./=:,+@%-]``
separated by spaces (no quoting, expansion, globbing, redirection, operators, comments or newlines); the
first word is no assignment, no shell keyword or builtin (``echo``, ``test``, ``true`` ... behave
differently as programs), and it is found on PATH by a normalised path (no ``.`` or ``..``) in a folder
every sandbox shows unchanged (system or toolchain, not masked, not under a launch's own bind), so the
sandbox's ``execvp`` finds the file the shell would -- never "not found" with another exit code. A
shell exports ``PWD``; the caller adds it.
"""

from __future__ import annotations

import os
import shutil
import string
from collections.abc import Iterable, Mapping
from pathlib import Path

from reqbench.core.kernelpath import real_path
from reqbench.core.sandbox.view import HostPart, _under

PLAIN = frozenset(string.ascii_letters + string.digits + "_./=:,+@%-")
SHELL_WORDS = frozenset("""
    . : [ [[ ]] { } ! alias bg bind break builtin caller case cd chdir command compgen complete compopt
    continue coproc declare dirs disown do done echo elif else enable esac eval exec exit export false fc
    fg fi for function getopts hash help history if in jobs kill let local logout mapfile popd printf
    pushd pwd read readarray readonly return select set shift shopt source suspend test then time times
    trap true type typeset ulimit umask unalias unset until wait while
""".split())
"""Keywords and builtins of dash and bash (either may be ``/bin/sh``)."""


def plain_words(command: str) -> list[str] | None:
    """The words of `command` when it is only plain words separated by spaces (then they are exactly what
    ``shlex.split`` and the shell would make of it, at a fraction of ``shlex``'s cost); else None."""
    if not command.strip(" ") or not PLAIN.issuperset(command.replace(" ", "")):
        return None
    return command.split()


def direct_argv(command: str, env: Mapping[str, str], cwd: Path, host: HostPart,
                own_binds: Iterable[Path]) -> list[str] | None:
    """The argv ``/bin/sh -c command`` would execute in `cwd` with `env`, when the shell would do nothing
    else and the program is shown unchanged by every sandbox (`host`, none of the launch's `own_binds`);
    None otherwise (module docstring)."""
    words = plain_words(command)
    if words is None:
        return None
    first = words[0]
    if "=" in first or first in SHELL_WORDS or ("/" in first and not os.path.isabs(first)):
        return None
    if "PWD" in env or any(k.startswith("BASH_FUNC_") for k in env) or real_path(cwd) != str(cwd):
        return None
    found = shutil.which(first, path=env.get("PATH", ""))
    if found is None or not os.path.isabs(found) or os.path.normpath(found) != found:
        return None  # ".." is resolved by the kernel after the folder before it, which may not be shown
    own = [os.fspath(p) for p in own_binds]
    for path in {found, real_path(found)}:
        if (not any(_under(path, b) for b in host.bound) or any(_under(path, m) for m in host.masks)
                or any(_under(path, o) for o in own)):
            return None
    return words
