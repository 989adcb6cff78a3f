"""`rag search` starts quickly: its path imports no loader, HTML parser, HTTP client,
splitter, chain or updater (each run in a fresh interpreter, which reports sys.modules)."""

import json
import subprocess
import sys
import textwrap

import pytest

from rag.index import Index

#: Modules the search path must not import (and what each would have brought).
NOT_ON_THE_SEARCH_PATH = (
    "bs4",  # BeautifulSoup, via the loaders
    "soupsieve",
    "httpx",  # the OpenAI-compatible clients
    "loaders",
    "splitters",
    "rag.chains",  # the answerer
    "rag.index.update",  # the updater
    "rag.index.sources",
    "rag.index.dryrun",
    "rag.index.answer",
    "rag.evaluation.runner",
)

REPORT = textwrap.dedent("""
    import json, sys
    from rag.cli import main
    code = main(sys.argv[1:])
    print(json.dumps({"exit": code, "modules": sorted(sys.modules)}))
""")


def modules_after(*args: str) -> tuple[int, set[str]]:
    """Run ``rag ARGS`` in a fresh interpreter; its exit code and every module it imported."""
    result = subprocess.run([sys.executable, "-c", REPORT, *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    return report["exit"], set(report["modules"])


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(module.startswith(name + ".") for module in modules)


@pytest.fixture
def index(tmp_path, corpus):
    path = tmp_path / "ix"
    Index.open_or_create(path, embeddings="hashing").update([corpus])
    return path


@pytest.mark.parametrize("search_type", ["hybrid", "similarity", "bm25"])
def test_rag_search_imports_no_loader_parser_http_client_splitter_or_updater(index, search_type):
    exit_code, modules = modules_after("search", "purring cats", "--index", str(index), "--type", search_type)
    assert exit_code == 0
    assert [name for name in NOT_ON_THE_SEARCH_PATH if loaded(modules, name)] == []


def test_the_check_sees_the_modules_an_update_brings(index, corpus):
    # The same report after `rag index`: the forbidden modules are real and detectable.
    exit_code, modules = modules_after("index", str(corpus), "--index", str(index))
    assert exit_code == 0
    assert loaded(modules, "bs4") and loaded(modules, "loaders") and loaded(modules, "splitters")


def test_importing_the_index_library_imports_none_of_them():
    code = "import json, sys, rag.index, rag.cli; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    modules = set(json.loads(result.stdout))
    assert [name for name in NOT_ON_THE_SEARCH_PATH if loaded(modules, name)] == []


def model_calls(monkeypatch, index_path, warm_up):
    """(name, thread, daemon) of each call that loaded the model or embedded a query while
    ``Index.open`` read the index (after any warm-up thread finished)."""
    import threading

    from rag.embeddings import HashingEmbeddings

    calls = []

    def recorder(name, real=None):
        def record(self, *args):
            thread = threading.current_thread()
            calls.append((name, thread.name, thread.daemon))
            return real(self, *args) if real is not None else None
        return record

    monkeypatch.setattr(HashingEmbeddings, "load", recorder("load"), raising=False)
    monkeypatch.setattr(HashingEmbeddings, "embed_query", recorder("embed_query", HashingEmbeddings.embed_query))
    Index.open(index_path, warm_up=warm_up)
    for thread in threading.enumerate():
        if thread.name == "rag-model-warm-up":
            thread.join()
    return calls


def test_opening_to_search_loads_a_local_model_in_a_worker_while_the_index_is_read(index, monkeypatch):
    # Loading only: no inference is left running in the worker when the command ends, and
    # the interpreter waits for the worker (not a daemon) rather than tearing it down mid-load.
    assert model_calls(monkeypatch, index, warm_up=True) == [("load", "rag-model-warm-up", False)]


def test_opening_without_warm_up_loads_no_model(index, monkeypatch):
    assert model_calls(monkeypatch, index, warm_up=False) == []
