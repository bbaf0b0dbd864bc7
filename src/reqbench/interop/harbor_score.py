"""The verifier helper every exported Harbor task ships as ``tests/score.py`` (its text is written out,
never imported by reqbench): runs pytest on the node ids a step's JSON names and writes
``/logs/verifier/reward.json`` = ``{"reward": passing share of the F2P nodes, "p2p": passing share of
the P2P nodes}`` (a node id also covers its parametrised cases ``id[...]``); with ``"all_or_nothing"``,
``reward`` is 1 only when every F2P node passes and ``probes`` holds the share."""

SCORE_PY = '''\
import json, os, sys

import pytest


class Collect:
    def __init__(self):
        self.passed = {}

    def pytest_runtest_logreport(self, report):
        ok = report.passed if report.when == "call" else not report.failed
        if report.when == "call" or not ok:
            self.passed[report.nodeid] = self.passed.get(report.nodeid, True) and ok and not report.skipped


def share(nodes, passed):
    def ok(node):
        cases = [v for k, v in passed.items() if k == node or k.startswith(node + "[")]
        return bool(cases) and all(cases)
    return sum(1 for n in nodes if ok(n)) / len(nodes) if nodes else 1.0


spec = json.load(open(sys.argv[1]))
collect = Collect()
nodes = sorted(set(spec["f2p"]) | set(spec["p2p"]))
pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", os.getcwd(), *nodes], plugins=[collect])
rewards = {"reward": share(spec["f2p"], collect.passed), "p2p": share(spec["p2p"], collect.passed)}
if spec.get("all_or_nothing"):
    rewards["probes"] = rewards["reward"]
    rewards["reward"] = float(rewards["reward"] == 1.0)
with open("/logs/verifier/reward.json", "w") as out:
    json.dump(rewards, out)
'''
