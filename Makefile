# The two commands a newcomer needs: `make test` and `make run`.
PYTHON ?= python3
# Two processes or more: the end-to-end tests mostly wait on the processes they start.
PYTEST_ARGS ?= -n auto
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test run install typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes, so the venv always matches the pins.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine
	$(BIN)/mypy services

test: $(STAMP)
	$(BIN)/mypy --strict engine
	$(BIN)/mypy services
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/president bench engine

# The whole system on embedded defaults (SQLite, the SQL broker): API, gRPC AI worker,
# Celery worker and beat under honcho. Ports and paths: PRESIDENT_API_PORT, PRESIDENT_AI_PORT,
# PRESIDENT_HOST, PRESIDENT_VAR_DIR (README, Configuration).
run: $(STAMP)
	$(BIN)/president up

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
