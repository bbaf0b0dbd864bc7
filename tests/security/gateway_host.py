"""Run as its own process by the gateway red-team tests: the harness side of a row -- a `Gateway` recording into
a real run store (``RUN_DIR/run.sqlite``) and forwarding to a loopback upstream -- so a test can measure the
harness's memory from outside while a hostile client attacks it.

Usage: ``python -m tests.security.gateway_host RUN_DIR UPSTREAM_URL``. Prints one JSON line ``{url, token, pid}``,
serves until its stdin closes, then prints the lease's usage as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from reqbench.core.llm.gateway import Gateway, StoreRecorder, Upstream
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.runstore import DB_NAME


def main() -> None:
    run_dir, upstream = Path(sys.argv[1]), sys.argv[2]
    RunStore.create(run_dir, RunMeta(suite_path="/suite", protocol="toy", options={}, created=utc_now(),
                                     reqbench_version="0")).close()
    with Gateway(Upstream(upstream, "sk-host-key"), recorder=StoreRecorder(run_dir / DB_NAME)) as gw:
        lease = gw.open_row("row")
        print(json.dumps({"url": gw.base_url, "token": lease.token, "pid": os.getpid()}), flush=True)
        sys.stdin.read()
        print(json.dumps(lease.usage()), flush=True)


if __name__ == "__main__":
    main()
