# The two commands a newcomer needs: `make test` and `make run`.
PYTHON ?= python3
# Two processes or more: the end-to-end tests mostly wait on the processes they start.
PYTEST_ARGS ?= -n auto
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test test-unit test-integration test-e2e test-chaos test-security lint run install typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes, so the venv always matches the pins.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Every package type-checked (strict; per-library allowances in pyproject.toml).
typecheck: $(STAMP)
	$(BIN)/mypy --strict engine
	$(BIN)/mypy config services workers bootstrap president_cli benchmarks

# The layers written down in pyproject.toml ([tool.importlinter]), then the types.
lint: $(STAMP)
	$(BIN)/lint-imports
	$(MAKE) typecheck

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# One layer of the suite at a time (tests/unit, tests/integration, tests/e2e, tests/chaos,
# tests/security).
test-unit test-integration test-e2e test-chaos test-security: $(STAMP)
	$(BIN)/python -m pytest -m $(@:test-%=%) tests/$(@:test-%=%) $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/president bench engine

# The whole system on embedded defaults (SQLite, the SQL broker): API, gRPC AI worker,
# Celery worker and beat under honcho. Ports and paths: PRESIDENT_API_PORT, PRESIDENT_AI_PORT,
# PRESIDENT_HOST, PRESIDENT_VAR_DIR (docs/configuration.md).
run: $(STAMP)
	$(BIN)/president up

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
