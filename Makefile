# make test: create or refresh .venv from pyproject.toml, then run the linters, the type checker and the tests.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,study]'
	touch $(STAMP)

lint: setup
	$(BIN)/ruff check mmc tests benchmarks
	$(BIN)/ruff format --check mmc tests benchmarks
	$(BIN)/mypy

test: setup
	$(BIN)/ruff check mmc tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

bench: setup
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
