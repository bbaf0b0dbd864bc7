"""The second language of the PACE language layer: JavaScript/TypeScript through tree-sitter (L0 structural
checks, L1 facts, edges and evidence) and the bundled JavaScript case `shopcart-discounts`."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.controls import identifier_only_patch, run_controls
from reqbench.protocols.pace.l0 import check_contract
from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.l1.languages import facts_for, module_candidates
from reqbench.protocols.pace.models import SymbolicContract
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import EXAMPLES

SHOPCART = EXAMPLES / "shopcart-discounts"

TS = '''import { a, b as c } from "./m.js";
const { x } = require("./r");
export const f = (p: number, ...rest: number[]) => g(p);
export default class K extends Base {
  constructor(a: string) { super(); this.h(); }
  h(): void { helper(1); }
}
export function top(a: number, b = 2): number { const y = a + b; return y * K.s({ o: 1 }); }
export { c as cc };
router.get("/x", handler);
const routes = { "/a": hA, b: [hB] };
'''


def _c(**kw: object) -> SymbolicContract:
    return SymbolicContract.model_validate(kw)


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, RepoIndex]:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path, RepoIndex.build(tmp_path)


def test_typescript_facts_declarations_calls_and_edges() -> None:
    facts = facts_for("src/t.ts", TS)
    assert facts.language == "typescript" and facts.parse_ok and not facts.dynamic
    decls = {d.qname: d for d in facts.decls}
    assert sorted(decls) == ["K", "K.constructor", "K.h", "f", "top"]
    assert decls["f"].params == ["p"] and decls["f"].variadic  # rest parameter
    assert decls["top"].params == ["a", "b"] and not decls["top"].variadic
    assert decls["top"].header == "export function top(a: number, b = 2): number"
    assert decls["K.constructor"].calls == ["self.h"]  # this.h() resolves like self.h
    assert decls["K"].refs == ["Base"] and decls["top"].calls == ["K.s"]
    assert facts.all_names == ["f", "default", "K", "top", "cc"]
    edges = {(b.kind.value, b.source, b.target) for b in facts.bindings}
    assert {("import", "<module>", "./m.js.a"), ("import", "<module>", "./m.js.b"),
            ("import", "<module>", "./r.x"), ("assignment", "cc", "c"), ("registry", "router.get", "handler"),
            ("registry", "routes[/a]", "hA"), ("registry", "routes[b]", "hB"), ("call", "K.h", "helper")} <= edges


def test_commonjs_exports_and_invisible_names() -> None:
    cjs = facts_for("lib/x.cjs", "function a() {}\nmodule.exports = { a, b: a };\nexports.c = () => 1;\n")
    assert cjs.language == "javascript" and cjs.all_names == ["a", "b", "c"] and not cjs.all_dynamic
    star = facts_for("lib/y.js", 'export * from "./z.js";\nexport function f() {}\n')
    assert star.all_dynamic and "export * from" in star.dynamic
    assert "eval" in facts_for("lib/e.js", "function f() { return eval('1'); }\n").dynamic
    assert not facts_for("lib/bad.js", "function f( {\n").parse_ok


def test_module_candidates_try_python_then_typescript_and_javascript() -> None:
    assert module_candidates("src/cart.ts") == ["src/cart.ts"]
    assert module_candidates("src/cart")[:4] == ["src/cart.py", "src/cart/__init__.py", "src/cart.ts", "src/cart.tsx"]
    assert "src/cart/index.js" in module_candidates("src/cart")


def test_l0_on_javascript_closes_only_conclusive_violations(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {
        "src/errors.js": "export class ShopError extends Error {}\nclass Hidden {}\n",
        "src/cart.ts": "export class Cart {\n  apply(code: string, today?: string) {}\n  many(...xs) {}\n}\n",
        "src/star.js": 'export * from "./errors.js";\n',
    })
    check = lambda **kw: check_contract(_c(**kw), tree, idx)  # noqa: E731
    assert check(strategy="exported", target="src/errors.js", name="Hidden").status == "missing"
    assert check(strategy="exported", target="src/errors.js", name="ShopError").status == "deferred"
    assert check(strategy="exported", target="src/star.js", name="Anything").status == "deferred"
    assert check(strategy="symbol_exists", target="src/cart::Cart").status == "deferred"  # src/cart.ts
    assert check(strategy="symbol_exists", target="src/discounts.js::DiscountCode").status == "missing"
    assert check(strategy="signature", target="src/cart.ts::Cart.apply", params=["code", "today"]).status == "deferred"
    missing = check(strategy="signature", target="src/cart.ts::Cart.apply", params=["coupon"])
    assert missing.status == "missing" and "lacks required parameter(s) ['coupon']" in missing.reason
    assert check(strategy="signature", target="src/cart.ts::Cart.many", params=["x"]).status == "deferred"


def test_call_graph_resolves_this_calls_to_the_same_owner(tmp_path: Path) -> None:
    _, idx = _tree(tmp_path, {"src/a.js": "class A {\n  run() { this.step(); }\n  step() { return 1; }\n}\n"
                                          "class B {\n  step() { return 2; }\n}\n"})
    run = idx.decl("src/a.js::A.run")
    assert run is not None
    assert [d.key for d in idx.callees(run)] == ["src/a.js::A.step"]
    assert [d.key for d in idx.same_owner_helpers(run)] == ["src/a.js::A.step"]


def test_bundled_case_evidence_has_the_subscription_edge_and_the_test_file_is_test_code() -> None:
    case = load_case(SHOPCART)
    scorer = Scorer(case)
    with tempfile.TemporaryDirectory() as tmp:
        pkg = scorer.localize(case.reference_patch, Path(tmp) / "t").package(
            next(p for p in case.points if p.id == "DC09"))
    edges = {(c.kind, c.source, c.target, c.origin) for c in pkg.connections}
    assert ("registry", "SUBSCRIPTIONS[discount.applied]", "recordDiscount", "candidate") in edges
    assert ("export", "export", "recordDiscount", "candidate") in edges
    assert [i.qname for i in pkg.changed] == ["recordDiscount"]


def test_bundled_case_reference_scores_100_and_every_control_0() -> None:
    case = load_case(SHOPCART)
    out = run_controls(Scorer(case), [load_case(EXAMPLES / "billflow-credit-notes")])
    assert out["reference"] == 100.0
    assert out["empty"] == out["unrelated"] == out["identifier_only"] == 0.0
    assert out["identifier_only_targeted"] == 0.0
    assert out["cross_case"] is None  # billflow's reference does not apply to this base: excluded, not 0
    assert out["details"]["unrelated"]["patch_lines"] > 0  # the case's own controls/unrelated.patch


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs nodejs)")
def test_bundled_case_runs_under_node_reference_passes_and_identifier_only_stubs_parse(tmp_path: Path) -> None:
    case = load_case(SHOPCART)
    base = Scorer(case).base
    ref = repo.candidate_tree(base, case.reference_patch, tmp_path / "ref")
    run = subprocess.run(["node", "--test", "test/"], cwd=ref, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "# pass 7" in run.stdout and "# fail 0" in run.stdout
    base_run = subprocess.run(["node", "--test", "test/"], cwd=base, capture_output=True, text=True, timeout=120)
    assert base_run.returncode == 0 and "# pass 3" in base_run.stdout
    stub = repo.candidate_tree(base, identifier_only_patch(case, base, ref), tmp_path / "stub")
    for rel in ("src/cart.js", "src/discounts.js", "src/errors.js", "src/api.js", "src/handlers/audit.js"):
        check = subprocess.run(["node", "--check", rel], cwd=stub, capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, (rel, check.stderr)
