# One command to run the dashboard, one to run every test. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-requirements
NODE_STAMP := node_modules/.installed-lock

.PHONY: install run test lint format bench system-deps

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(STAMP)

# Front-end assets (Bootstrap) come from the npm registry and are served as static files.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

install: $(STAMP) $(NODE_STAMP)

# Debian packages the tests drive: chromium (browser journeys), kubectl (sandbox conformance).
system-deps:
	@sh scripts/system-deps.sh

run: install
	DASHBOARD_DEBUG=1 $(BIN)/python manage.py runlocal

test: install system-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	$(BIN)/python -m tests.benchmarks.run_all
