# Every target bootstraps .venv when it is missing, so a fresh clone needs only `make demo` / `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-real test test-quick test-integration test-ray bench bench-quick lint clean screenshots dist docs

$(STAMP): pyproject.toml tests/plugin/pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m pip install -q --no-deps -e tests/plugin  # a third-party plugin the tests use
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/reqbench demo --out runs/demo

demo-real: $(STAMP)  # real open-source suites (sdists fetched from PyPI once, then cached)
	$(BIN)/python suites/real/demo.py --out runs/demo-real

# --dist loadfile: a test file runs on one worker, so a module-scoped set-up (often a whole run) is built
# once, never once per worker.
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not integration" tests

# Unit tests only (under two minutes): the core, the report layer and the layering rules, without the tests
# marked slow (whole runs, real tools). `make test` runs everything.
QUICK := tests/architecture tests/core tests/report tests/test_install_instructions.py
test-quick: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile -q -m "not slow and not integration" $(QUICK)

# The wheel, built offline with the venv's setuptools (no index needed): pip install dist/reqbench-*.whl
DIST ?= dist
dist:  # needs only the venv's setuptools: an existing .venv is used as it is (no install, no index)
	test -x $(BIN)/python || $(MAKE) $(STAMP)
	rm -rf build
	$(BIN)/python -m pip wheel -q --no-deps --no-build-isolation --disable-pip-version-check -w $(DIST) .
	@ls $(DIST)/reqbench-*.whl

# The viewer's run page, a row page per protocol and the compare page of the demo runs (needs chromium).
screenshots: demo
	$(BIN)/python -m tests.browser.screenshots runs/demo docs/screenshots

# The documentation site (mkdocs-material, in the dev extra): the CLI and file-format references generated
# from the command and the schemas, then a strict build (any warning fails) into site/.
docs: $(STAMP)
	$(BIN)/python docs/gen_cli.py docs/reference/cli.md
	$(BIN)/python docs/gen_formats.py docs/reference/formats.md
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test-integration: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[ray]'  # the pinned Ray of the `ray` extra (tests/integration/test_ray.py)
	$(BIN)/python -m pytest -m integration tests

test-ray: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[ray]'
	$(BIN)/python -m pytest -m integration tests/integration/test_ray.py

# Every figure is printed as a ratio to a baseline measured beside it in the same run (benchmarks/ratios.py).
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[ray]'  # the scale benchmark compares Ray with the local executor
	$(BIN)/python benchmarks/run_all.py

bench-quick: $(STAMP)  # the same figures, the scale matrix cut to 70 rows
	$(BIN)/python -m pip install -q -e '.[ray]'
	REQBENCH_BENCH_QUICK=1 $(BIN)/python benchmarks/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy --strict src/reqbench  # all of src (pyproject's [tool.mypy] is strict too)

clean:
	rm -rf $(VENV) runs .pytest_cache site build dist
