"""The one network endpoint a sandboxed agent may reach: the run's model gateway, through a relay.

A sandboxed process has its own, empty network namespace (loopback only). To let it talk to the
model gateway -- and to nothing else -- the gateway's unix socket is bound into the sandbox at
`SOCKET_INSIDE`, and the command is wrapped so that, before the agent starts, a tiny relay (stdlib
Python, run with the harness's interpreter in isolated mode ``-I``, its source passed with ``-c`` so
no harness file needs to be visible) listens on ``127.0.0.1:PORT`` inside the sandbox and copies
every TCP connection to that socket. The agent is told ``http://127.0.0.1:PORT`` as its base URL.

The relay is forked *after* its listening socket is bound (so the agent never races it) and the
parent execs the agent, which therefore stays the sandbox's main process (its exit code is the
result); the relay dies with the sandbox's PID namespace (or is swept with the command's marker when
there is no bubblewrap). Without a network namespace (no bubblewrap, no ``unshare``) the relay runs
on the host's loopback, on a free port (`sandbox_port`), and the socket is used at its host path.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

BRIDGE_PORT = 41100
"""Port of the relay inside a sandbox's own network namespace (nothing else listens there)."""
SOCKET_INSIDE = Path("/run/reqbench/gateway.sock")

RELAY_SOURCE = r"""
import fcntl, os, socket, struct, sys, threading
sock_path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try:  # a fresh namespace made by `unshare -n` has its loopback down (bubblewrap brings it up)
    with socket.socket() as s:
        fcntl.ioctl(s, 0x8914, struct.pack("16sh", b"lo", 0x1 | 0x8 | 0x40))  # SIOCSIFFLAGS UP|LOOPBACK|RUNNING
except OSError:
    pass
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(64)
if os.fork() != 0:
    srv.close()
    os.execvp(argv[0], argv)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
os.setsid()

def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

def serve(conn):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.connect(sock_path)
    except OSError:
        conn.close()
        return
    back = threading.Thread(target=pipe, args=(up, conn), daemon=True)
    back.start()
    pipe(conn, up)
    back.join()
    conn.close()
    up.close()

while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""


def wrap(argv: list[str], socket_path: Path | str, port: int) -> list[str]:
    """`argv` preceded by the relay: ``python -I -c RELAY SOCKET PORT argv...``."""
    return [sys.executable, "-I", "-c", RELAY_SOURCE, str(socket_path), str(port), *argv]


def sandbox_port(own_network_namespace: bool) -> int:
    """`BRIDGE_PORT` inside a private network namespace, else a free port of the host's loopback."""
    if own_network_namespace:
        return BRIDGE_PORT
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def base_url(port: int) -> str:
    """What the agent inside is told: the relay's address (no path; each tool adds its own)."""
    return f"http://127.0.0.1:{port}"
