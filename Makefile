# make test: create or refresh .venv from pyproject.toml, then run the linters, the type checker and the tests.
# make setup byte-compiles the installed packages on both cores (pip's own compilation takes one: 125 s against 52 + 39)
# and compiles every game family's kernels and search trees once (mmc compile, two at a time), so that
# the test workers, the study's stages and their workers load compiled code instead of each compiling it.
# make test-fast: ruff and the tests under 1.5 s each (about 70 s on 2 cores); make test stays the whole suite (CI).
# make study: run the study (dvc repro under one MLflow parent run), starting the local Prefect server if needed;
# make study STUDY=gomoku runs the family study in studies/gomoku instead (pipelines/studies.py).
# make ui: start the Prefect server and the MLflow UI and print their URLs; make stop: stop what these started.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The study's servers listen on 127.0.0.1 only, and are its own (pipelines/__init__.py, pipelines/services.py): the
# Prefect server and MLflow UI its pid files name (.prefect/server.pid, .mlflow-ui/ui.pid) while they run, else
# ports 4200 and 5000 when free, else the first free ports above them (one line says who holds 4200 or 5000).
# Nothing here sets an address: `make study PREFECT_API_URL=http://127.0.0.1:4300/api` or `make ui MLFLOW_UI_PORT=5001`
# (make passes a variable given on its command line to the commands' environment) uses that server as it is, a
# server shared on purpose.
STUDY_ENV := PREFECT_HOME=$(CURDIR)/.prefect \
	PREFECT_SERVER_ANALYTICS_ENABLED=false MLFLOW_DISABLE_TELEMETRY=true DVC_NO_ANALYTICS=1 PATH=$(CURDIR)/$(BIN):$$PATH

.PHONY: setup test test-fast lint bench clean study ui stop engine play docs docs-serve

setup: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-compile -e '.[dev,study,env,web,docs]'
	$(BIN)/python -m compileall -q -j 0 -x '/tests?/|/torch/testing/_internal/' $$($(BIN)/python -c 'import sysconfig; \
		print(sysconfig.get_path("purelib"))') >/dev/null || echo "setup: a few installed files did not byte-compile"
	$(BIN)/mmc compile --jobs 2
	touch $(STAMP)

lint: setup
	$(BIN)/ruff check mmc pipelines tests benchmarks docs/hooks.py docs/griffe_rst.py
	$(BIN)/ruff format --check mmc pipelines tests benchmarks docs/hooks.py docs/griffe_rst.py
	$(BIN)/mypy --num-workers 2

# --durations=30: the 30 slowest tests (setup, call or teardown) close the run, so that growth shows when it happens.
test: setup
	$(BIN)/ruff check mmc pipelines tests benchmarks docs/hooks.py docs/griffe_rst.py
	$(BIN)/mypy --num-workers 2
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q --durations=30

# The quick loop: every test of make test but the study pipeline (tests/pipelines: Prefect server, DVC, MLflow, Dask)
# and every test marked slow: the perft suite, the differential tests against Fairy-Stockfish, the learning test, and
# each test that takes 1.5 s or more on 2 AMD EPYC cores (the real browser's, compilations, whole AlphaZero loops).
# make test runs them all, the slow ones first (tests/conftest.py). No mypy here: make lint runs it.
FAST_SKIP := --ignore=tests/pipelines -m "not slow"

test-fast: setup
	$(BIN)/ruff check mmc pipelines tests benchmarks docs/hooks.py docs/griffe_rst.py
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q $(FAST_SKIP)

STUDY ?=
STUDY_DIR := $(if $(STUDY),studies/$(STUDY),.)

study: setup engine
	@test -f $(STUDY_DIR)/params.yaml || { echo "make study: no study '$(STUDY)' (the family studies: \
	$$(ls studies))"; exit 2; }
	cd $(STUDY_DIR) && $(STUDY_ENV) $(CURDIR)/$(BIN)/python -m pipelines study

# Fairy-Stockfish (GPL-3, run as a separate program): the study's engine opponent. Installed from Debian when
# missing and this is root on a Debian machine; otherwise `python -m pipelines check` says what is missing.
engine:
	@test -x /usr/games/fairy-stockfish || ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ] || \
		apt-get install -y -qq fairy-stockfish >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq fairy-stockfish; } || true

ui: setup
	$(STUDY_ENV) $(BIN)/python -m pipelines services up --ui

# make play: the web app over this study (mmc serve) on http://127.0.0.1:$(PLAY_PORT); Ctrl-C stops it. Its links
# open this study's UIs: `python -m pipelines services urls` prints their addresses as mmc serve's options (those of
# the servers make ui started, or the ones it would take), and starts nothing.
PLAY_PORT ?= 8000
play: setup
	urls="$$($(STUDY_ENV) $(BIN)/python -m pipelines services urls)" && \
		$(BIN)/mmc serve --port $(PLAY_PORT) --project $(CURDIR) $$urls

stop:
	$(STUDY_ENV) $(BIN)/python -m pipelines services down

# make docs: the documentation site (mkdocs.yml, docs/) into site/, offline, every link and reference checked
# (--strict); open site/index.html. make docs-serve: the same, served with live reload on http://127.0.0.1:8000.
DOCS_ENV := NO_MKDOCS_2_WARNING=1

docs: setup
	$(DOCS_ENV) $(BIN)/mkdocs build --strict

docs-serve: setup
	$(DOCS_ENV) $(BIN)/mkdocs serve --strict -a 127.0.0.1:8000

bench: setup
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
