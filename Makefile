# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
# Each creates the virtual environment .venv on first use (offline-capable after that).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(BIN)/rag demo

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .rag .pytest_cache .hypothesis
