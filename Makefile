# The two commands a newcomer needs: `make test` and (later) `make run`.
PYTHON ?= python3
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

test: $(STAMP)
	$(BIN)/mypy --strict engine
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/president bench engine

run: $(STAMP)
	@echo "make run: the game service arrives with the REST service issue; nothing to run yet." >&2
	@exit 2

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
