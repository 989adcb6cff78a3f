"""The library leaves process-wide state alone: the environment, the garbage collector,
and which native libraries are loaded. Only entry points apply process defaults."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence
from unittest import mock

import numpy as np
import pytest

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding
from rag.process_defaults import PROCESS_DEFAULTS, apply_process_defaults
from stores import FAISS, InMemoryVectorStore, VectorStore

ROOT = Path(__file__).resolve().parents[1]
LIBRARY_PACKAGES = ("rag", "stores", "loaders", "splitters")
# `__main__` runs the command line on import. Everything else is imported, the command
# line's modules included: only its main() applies the process defaults.
NOT_IMPORTED = ("rag.__main__",)


def library_modules() -> list[str]:
    """Every importable module of the library packages, found on disk (no imports)."""
    names = []
    for package in LIBRARY_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(parts)
            if not any(name == skip or name.startswith(skip + ".") for skip in NOT_IMPORTED):
                names.append(name)
    return names


IMPORT_CHECK = """
import gc, importlib, json, os, sys

before = (dict(os.environ), gc.isenabled(), gc.get_threshold())
changes = []
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
    after = (dict(os.environ), gc.isenabled(), gc.get_threshold())
    if after != before:
        changes.append(name)
        before = after
print(json.dumps({"changes": changes, "native": sorted({"faiss", "onnxruntime"} & set(sys.modules))}))
"""


def test_importing_every_library_module_changes_no_process_state_and_loads_no_faiss():
    modules = library_modules()
    assert {"rag", "rag.embeddings", "rag.models", "rag.cli", "rag.index", "stores", "stores.faiss", "loaders",
            "splitters"} <= set(modules)
    # Without the variables the library used to set, so that setting them would show.
    clean = {name: value for name, value in os.environ.items() if name not in PROCESS_DEFAULTS}
    result = subprocess.run([sys.executable, "-c", IMPORT_CHECK, json.dumps(modules)], capture_output=True,
                            text=True, cwd=ROOT, env=clean, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["changes"] == []  # modules whose import changed os.environ or the gc
    assert report["native"] == []


class GcWitnessEmbedding(DeterministicFakeEmbedding):
    """Records whether the garbage collector was on each time the store asked for vectors."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.gc_enabled_during_calls: list[bool] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.gc_enabled_during_calls.append(gc.isenabled())
        return super().embed_documents(texts)


def exercise(store: VectorStore, save_and_load: Callable[[VectorStore], VectorStore]) -> VectorStore:
    """Every kind of write, search and persistence a server would run on a shared store."""
    rng = np.random.default_rng(0)
    store.add_texts(["cats purr", "dogs bark"], [{"kind": "cat"}, {"kind": "dog"}], ids=["c", "d"])
    store.add_documents([Document("fish swim", {"kind": "fish"}, id="f")])
    store.add_embeddings([("owls hoot", rng.standard_normal(8)), ("bees buzz", rng.standard_normal(8))])
    store.add_vectors(rng.standard_normal((3, 8)), [Document(f"row {i}") for i in range(3)], ids=["r0", "r1", "r2"])
    asyncio.run(store.aadd_texts(["frogs croak"], ids=["g"]))
    store.similarity_search("purr", k=2)
    store.similarity_search("purr", k=2, filter={"kind": "dog"})
    store.similarity_search_with_relevance_scores("bark", k=3)
    store.max_marginal_relevance_search("swim", k=2, fetch_k=5)
    store.add_texts(["cats purr loudly"], ids=["c"])  # replaces
    store.delete(["d", "r1"])
    loaded = save_and_load(store)
    loaded.similarity_search("purr", k=2)
    return loaded


def faiss_round_trip(tmp_path: Path) -> Callable[[VectorStore], VectorStore]:
    def round_trip(store: VectorStore) -> VectorStore:
        store.save_local(tmp_path, "faiss")
        return FAISS.load_local(tmp_path, store.embeddings, "faiss")

    return round_trip


def memory_round_trip(tmp_path: Path) -> Callable[[VectorStore], VectorStore]:
    def round_trip(store: VectorStore) -> VectorStore:
        store.dump(tmp_path / "memory")
        return InMemoryVectorStore.load(tmp_path / "memory", store.embeddings)

    return round_trip


STORES = {
    "faiss-flat": (lambda e: FAISS(embedding=e), faiss_round_trip),
    "faiss-hnsw": (lambda e: FAISS(embedding=e, index_factory="HNSW8"), faiss_round_trip),
    "memory": (lambda e: InMemoryVectorStore(e), memory_round_trip),
}


@pytest.fixture
def gc_switches(monkeypatch) -> list[str]:
    """Names of gc functions that change the collector's state, as they get called."""
    calls: list[str] = []
    for name in ("disable", "enable", "freeze", "unfreeze", "set_threshold"):
        real = getattr(gc, name)
        monkeypatch.setattr(gc, name, lambda *args, _name=name, _real=real: (calls.append(_name), _real(*args))[1])
    return calls


@pytest.mark.parametrize("kind", STORES)
def test_store_operations_keep_the_gc_on_and_never_switch_it(kind, tmp_path, gc_switches):
    assert gc.isenabled()
    build, round_trip = STORES[kind]
    embedding = GcWitnessEmbedding(size=8)
    loaded = exercise(build(embedding), round_trip(tmp_path))
    assert len(loaded) == 7
    assert gc_switches == []
    assert embedding.gc_enabled_during_calls and all(embedding.gc_enabled_during_calls)
    assert gc.isenabled()


@pytest.mark.parametrize("kind", STORES)
def test_store_operations_leave_the_environment_unchanged(kind, tmp_path):
    before = dict(os.environ)
    build, round_trip = STORES[kind]
    exercise(build(GcWitnessEmbedding(size=8)), round_trip(tmp_path))
    assert dict(os.environ) == before


def test_apply_process_defaults_sets_the_thread_policy_and_telemetry_switch():
    with mock.patch.dict(os.environ):
        for name in PROCESS_DEFAULTS:
            os.environ.pop(name, None)
        apply_process_defaults()
        assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
        assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"


def test_apply_process_defaults_keeps_values_the_user_already_set():
    with mock.patch.dict(os.environ, {"OMP_WAIT_POLICY": "ACTIVE", "ORT_DISABLE_TELEMETRY": ""}):
        apply_process_defaults()
        apply_process_defaults()
        assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
        assert os.environ["ORT_DISABLE_TELEMETRY"] == ""


@pytest.mark.parametrize("kind", ["faiss-flat", "memory"])
def test_stored_documents_with_plain_metadata_are_not_tracked_by_the_gc(kind):
    # Why adds stay fast with the collector on: nothing per document for it to walk.
    build, _ = STORES[kind]
    store = build(None)
    count = 5_000
    vectors = np.random.default_rng(0).standard_normal((count, 8)).astype(np.float32)
    documents = [Document(f"text {i}", {"source": f"f{i % 7}.md", "start_index": i}) for i in range(count)]
    gc.collect()
    tracked_before = len(gc.get_objects())
    store.add_vectors(vectors, documents)
    gc.collect()
    assert len(gc.get_objects()) - tracked_before < count // 10
    assert len(store) == count
