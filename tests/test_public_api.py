"""Each package re-exports an explicit __all__, and every listed name exists."""

import importlib
import inspect
import subprocess
import sys
import typing

import pytest

PACKAGES = [
    "rag",
    "rag.embeddings",
    "rag.runnables",
    "rag.retrievers",
    "rag.messages",
    "rag.message_roles",
    "rag.codec",
    "rag.prompts",
    "rag.parsers",
    "rag.models",
    "rag.graph",
    "rag.graph.checkpoint",
    "rag.graph.types",
    "rag.graph.errors",
    "rag.graph.message",
    "rag.graph.config",
    "rag.graph.runtime",
    "rag.graph.cache",
    "rag.graph.store",
    "rag.memory",
    "rag.agents",
    "rag.agents.errors",
    "rag.classic",
    "rag.classic.chains",
    "rag.classic.memory",
    "rag.classic.agents",
    "rag.bm25",
    "rag.evaluation",
    "rag.cli",
    "rag.index",
    "rag.persistence",
    "rag.search_types",
    "rag.serve",
    "rag.tracing",
    "stores",
    "stores.faiss",
    "stores.filters",
    "stores.pgvector",
    "stores.milvus",
    "stores.testing",
    "loaders",
    "loaders.selection",
    "splitters",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_name_in_all_is_importable(name):
    module = importlib.import_module(name)
    assert isinstance(module.__all__, (list, tuple))
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert missing == []


def test_the_foundation_names_are_public():
    from rag import Document  # noqa: F401
    from rag.embeddings import DeterministicFakeEmbedding, Embeddings, HashingEmbeddings  # noqa: F401
    from rag.retrievers import BaseRetriever, VectorStoreRetriever  # noqa: F401
    from rag.runnables import Runnable, RunnableLambda  # noqa: F401
    from stores import InMemoryVectorStore, VectorStore  # noqa: F401


OURS = ("rag", "loaders", "splitters", "stores")
# Hints that name a third-party module imported only when used: tiktoken (token splitting
# loads it on demand, so `import splitters` stays cheap).
DEFERRED_THIRD_PARTY = {"tiktoken"}


def _public_callables(module):
    """(label, callable) for each name in ``module.__all__`` that is a function or class,
    and each public method (and ``__init__``) of those classes, inherited ones included,
    that the toolkit defines (not those of httpx's exception classes, say)."""
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, type):
            yield name, value
            for attribute in dir(value):
                if attribute.startswith("_") and attribute != "__init__":
                    continue
                member = inspect.getattr_static(value, attribute)
                member = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if inspect.isfunction(member) and member.__module__.split(".")[0] in OURS:
                    yield f"{name}.{attribute}", member
        elif inspect.isfunction(value):
            yield name, value


@pytest.mark.parametrize("name", PACKAGES)
def test_the_type_hints_of_every_public_function_and_method_resolve(name):
    # Tools and schemas built from methods (``tool(index.ask)``, ``bind_tools``) and users'
    # introspection call typing.get_type_hints; a name imported only for type checkers
    # made it raise NameError.
    unresolved = []
    for label, function in _public_callables(importlib.import_module(name)):
        try:
            typing.get_type_hints(function)
        except NameError as exc:
            if exc.name not in DEFERRED_THIRD_PARTY:
                unresolved.append(f"{label}: NameError: {exc}")
        except Exception as exc:  # AttributeError (a module not imported), TypeError: what a caller gets
            unresolved.append(f"{label}: {type(exc).__name__}: {exc}")
    assert unresolved == []


def test_hints_naming_lazily_imported_modules_resolve_in_a_fresh_process_without_importing_them_early():
    code = """
import sys, typing
from rag.evaluation import run_benchmark
from rag.index import Index
from stores import FAISS
early = sorted(m for m in ("rag.index.answer", "rag.index.update", "rag.index.dryrun", "rag.retrievers",
                           "rag.evaluation.systems", "loaders", "splitters") if m in sys.modules)
hints = [typing.get_type_hints(f)["return"] for f in (Index.ask, Index.as_retriever, Index.update, Index.dry_run,
                                                    FAISS.as_retriever)]
hints.append(typing.get_type_hints(run_benchmark)["system"])
print(early, [f"{h.__module__}.{h.__qualname__}" for h in hints])
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["[]", "['rag.index.answer.Answer',", "'rag.index.answer.IndexRetriever',",
                                     "'rag.index.summary.UpdateSummary',", "'rag.index.dryrun.DryRun',",
                                     "'rag.retrievers.VectorStoreRetriever',",
                                     "'rag.evaluation.systems.RetrievalSystem']"]
