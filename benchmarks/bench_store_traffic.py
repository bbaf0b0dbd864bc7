"""Run-store size of a long conversation: ``run.sqlite`` next to the largest request it recorded.

The built-in ``llm`` agent talks to a loopback OpenAI-compatible provider for N turns, each adding ~5.5 KB of
command output, inside a real ``reqbench run`` (one SpecPath row). Every request repeats the conversation so
far, so the requests together grow with the square of N; the figure is the run store's size (``run.sqlite``
with its WAL) as a multiple of the largest request -- what a store that keeps each distinct part once should
hold within 2x. It is printed for 30 and 60 turns, so linear growth shows as the same small multiple.

    python benchmarks/bench_store_traffic.py [--turns 30 60] [--baseline OTHER/src]

``--baseline`` runs the same conversation with another source tree of reqbench (e.g. the commit before a
change, ``git archive HEAD~1 src | tar -x -C /tmp/base``) beside this one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402


def conversation(turns: int, out: Path) -> dict[str, int]:
    """One run of `turns` turns in this process (the reqbench on ``sys.path``); sizes in bytes."""
    sys.path.insert(0, str(ROOT))
    from tests.security.redteam import trimmed_suite
    from tests.support.scripted_openai import ScriptedOpenAI, reply

    import reqbench

    def turn(body: dict, index: int):  # type: ignore[no-untyped-def]
        if index >= turns:
            return reply("Done.\n```reply\nfinished\n```")
        return reply(f"THOUGHT: block {index}.\n```bash\nseq {index * 100_000} {index * 100_000 + 780}\n```")

    suite = trimmed_suite("specpath", out / "suite")
    with ScriptedOpenAI(turn) as provider:
        reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=out / "run",
                     conditions=["direct"], agent_options={"api_key": "k"})
        sent = [len(json.dumps(r).encode()) for r in provider.chat_requests]
    stored = sum(p.stat().st_size for p in (out / "run").glob("run.sqlite*"))
    return {"calls": len(sent), "largest": max(sent), "requests": sum(sent), "stored": stored}


def measure(src: Path, turns: int) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(src)}
        for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "REQBENCH_BASE_URL", "OPENAI_BASE_URL"):
            env.pop(name, None)
        done = subprocess.run([sys.executable, __file__, "--child", str(turns), tmp], env=env, cwd=tmp,
                              capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[30, 60])
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to measure beside this one")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(conversation(int(args.child[0]), Path(args.child[1]))))
        return
    sides = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    for turns in args.turns:
        for name, src in sides:
            m = measure(src, turns)
            print(f"{name}, {turns} turns: {m['calls']} calls, largest request {m['largest'] / 1e3:.0f} kB, "
                  f"all requests {m['requests'] / 1e6:.2f} MB, run.sqlite {m['stored'] / 1e6:.2f} MB")
            figure(f"run.sqlite / largest request, {turns} turns ({name})", m["stored"], "largest request",
                   m["largest"], goal="<= 2" if name == "this tree" else "", unit="B")


if __name__ == "__main__":
    main()
