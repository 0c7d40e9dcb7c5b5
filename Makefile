# The README's two commands: `make test` and `make demo`. Both build .venv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO   := build/demo
# pytest workers: one per core (tests/conftest.py schedules them: a file, or a group of files
# that share a costly setup, is one unit of work).
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: venv test lint typecheck unit demo schema docs tasks clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "bench-suite needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# Bytecode for src/, as a wheel install has it: with PYTHONDONTWRITEBYTECODE set, every
	# `bench` process (tests start hundreds) would otherwise compile ~200 modules again.
	$(BIN)/python -m compileall -q src
	@touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	tests/tools/system-packages.sh
	$(BIN)/pytest -n $(JOBS)

test: lint typecheck unit

demo: $(STAMP)
	@rm -rf $(DEMO)
	PYTHONDONTWRITEBYTECODE=1 $(BIN)/python examples/demo.py --out $(DEMO)

schema: $(STAMP)
	$(BIN)/bench schema write schema

tasks: $(STAMP)
	$(BIN)/bench task generate --out tasks

docs: $(STAMP)
	$(BIN)/python -m bench.cli.reference > docs/CLI.md

clean:
	rm -rf $(VENV) build runs site
