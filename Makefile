# make test: create or refresh .venv from pyproject.toml, then run the linters, the type checker and the tests.
# make study: run the study (dvc repro under one MLflow parent run), starting the local Prefect server if needed.
# make ui: start the Prefect server and the MLflow UI and print their URLs; make stop: stop what these started.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The study's servers listen on 127.0.0.1 only; pipelines/__init__.py sets the same defaults for direct runs.
PREFECT_API_URL ?= http://127.0.0.1:4200/api
MLFLOW_UI_PORT ?= 5000
STUDY_ENV := PREFECT_HOME=$(CURDIR)/.prefect PREFECT_API_URL=$(PREFECT_API_URL) MLFLOW_UI_PORT=$(MLFLOW_UI_PORT) \
	PREFECT_SERVER_ANALYTICS_ENABLED=false MLFLOW_DISABLE_TELEMETRY=true DVC_NO_ANALYTICS=1 PATH=$(CURDIR)/$(BIN):$$PATH

.PHONY: setup test lint bench clean study ui stop engine

setup: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,study]'
	touch $(STAMP)

lint: setup
	$(BIN)/ruff check mmc pipelines tests benchmarks
	$(BIN)/ruff format --check mmc pipelines tests benchmarks
	$(BIN)/mypy

test: setup
	$(BIN)/ruff check mmc pipelines tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

study: setup engine
	$(STUDY_ENV) $(BIN)/python -m pipelines study

# Fairy-Stockfish (GPL-3, run as a separate program): the study's engine opponent. Installed from Debian when
# missing and this is root on a Debian machine; otherwise `python -m pipelines check` says what is missing.
engine:
	@test -x /usr/games/fairy-stockfish || ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ] || \
		apt-get install -y -qq fairy-stockfish >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq fairy-stockfish; } || true

ui: setup
	$(STUDY_ENV) $(BIN)/python -m pipelines services up --ui

stop:
	$(STUDY_ENV) $(BIN)/python -m pipelines services down

bench: setup
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
