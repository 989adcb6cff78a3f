"""The one hybrid search: dense + BM25 fused by weighted reciprocal rank, and the doctests
of the retrieval modules."""

import doctest
import importlib

import pytest

from rag.bm25 import BM25Retriever
from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.errors import ValidationError
from rag.hybrid import HybridConfig, fuse, hybrid_search, lexical_ranking
from stores import FAISS

DOCS = [
    Document("The mitochondria is the powerhouse of the cell.", {"topic": "bio"}, id="bio"),
    Document("Stock markets fell sharply on Monday.", {"topic": "finance"}, id="finance"),
    Document("Photosynthesis converts light into chemical energy in plants.", {"topic": "bio"}, id="plants"),
]


@pytest.fixture
def sides():
    store = FAISS(HashingEmbeddings(dim=64), distance_strategy="COSINE")
    store.add_documents(DOCS)
    return store, BM25Retriever.from_documents(DOCS)


def test_hybrid_search_returns_at_most_k_fused_results(sides):
    store, lexical = sides
    results = hybrid_search(store, lexical, "plants energy light", 2)
    assert len(results) == 2 and "plants" in [document.id for document, _ in results]


def test_each_side_contributes_at_least_k_candidates():
    assert HybridConfig(fetch_k=20).per_side(5) == 20 and HybridConfig(fetch_k=20).per_side(100) == 100


def test_fusion_adds_the_weighted_reciprocal_ranks_of_both_sides():
    a, b = Document("a", id="a"), Document("b", id="b")
    fused = fuse([(a, 0.9), (b, 0.1)], [(b, 7.0)], HybridConfig(weights=(1.0, 1.0), c=0, fusion="rrf"), 2)
    assert [(d.id, round(s, 4)) for d, s in fused] == [("b", 1.5), ("a", 1.0)]


def test_a_filtered_lexical_ranking_ranks_only_matching_documents(sides):
    _, lexical = sides
    ranked = lexical_ranking(lexical, "cell markets plants", 3, predicate=lambda m: m["topic"] == "bio")
    assert {d.id for d, _ in ranked} == {"bio", "plants"}


def test_the_config_is_plain_json_data_and_round_trips():
    config = HybridConfig(fetch_k=30, weights=(0.7, 0.3), c=10, fusion="rrf")
    assert config.to_json() == {"fetch_k": 30, "weights": [0.7, 0.3], "c": 10.0, "fusion": "rrf"}
    assert HybridConfig.from_json(config.to_json()) == config


@pytest.mark.parametrize("kwargs, shown", [
    ({"fetch_k": 0}, "fetch_k must be a positive int, got 0"),
    ({"weights": (1.0,)}, "dense, lexical"),
    ({"weights": (0, 0)}, "greater than 0"),
    ({"c": -1}, "c must be a finite number >= 0"),
])
def test_bad_configs_are_refused(kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        HybridConfig(**kwargs)


def test_an_unknown_saved_setting_is_refused():
    with pytest.raises(ValidationError, match="unknown hybrid setting"):
        HybridConfig.from_json({"fetch_k": 20, "k1": 3})


@pytest.mark.parametrize("module", [
    "rag.bm25.analysis", "rag.bm25.index", "rag.bm25.retriever", "rag.bm25.scoring", "rag.ensemble",
    "rag.hybrid", "rag.evaluation.metrics", "rag.evaluation.runner", "rag.embeddings.openai", "rag.index.core",
    "rag.index.locks",
])
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize("kwargs", [{"weights": (float("inf"), 1.0)}, {"weights": (float("nan"), 1.0)}, {"c": float("inf")}])
def test_infinite_or_undefined_fusion_settings_are_refused(kwargs):
    with pytest.raises(ValidationError, match="finite"):
        HybridConfig(**kwargs)
