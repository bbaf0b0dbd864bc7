# Every target bootstraps .venv when it is missing, so a fresh clone needs only `make demo` / `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-real test test-integration bench lint clean screenshots

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

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not integration" tests

# The viewer's run page, a row page per protocol and the compare page of the demo runs (needs chromium).
screenshots: demo
	$(BIN)/python -m tests.browser.screenshots runs/demo docs/screenshots

test-integration: $(STAMP)
	$(BIN)/python -m pytest -m integration tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) runs .pytest_cache
