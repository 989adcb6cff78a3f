"""The default hybrid configuration: dense + BM25 fused, and the doctests of the retrieval modules."""

import doctest
import importlib

import pytest

from rag.documents import Document
from rag.embeddings import HashingEmbeddings, LocalEmbeddings
from rag.errors import ValidationError
from rag.hybrid import HybridConfig, hybrid_retriever
from rag.retrievers import EnsembleRetriever
from stores import FAISS


def cosine_faiss(embeddings):
    return FAISS(embeddings, distance_strategy="COSINE")

DOCS = [
    Document("The mitochondria is the powerhouse of the cell.", id="bio"),
    Document("Stock markets fell sharply on Monday.", id="finance"),
    Document("Photosynthesis converts light into chemical energy in plants.", id="plants"),
]


def test_the_default_uses_minilm_and_bm25_and_returns_k_documents():
    retriever = hybrid_retriever(DOCS, store_factory=cosine_faiss, config=HybridConfig(k=2))
    assert isinstance(retriever, EnsembleRetriever) and len(retriever.retrievers) == 2
    assert isinstance(retriever.retrievers[0].vectorstore.embeddings, LocalEmbeddings)
    results = retriever.invoke("how do plants make energy from sunlight")
    assert len(results) == 2 and results[0].id == "plants"


def test_a_paraphrase_with_no_shared_words_is_still_found_through_the_dense_side():
    retriever = hybrid_retriever(DOCS, store_factory=cosine_faiss, config=HybridConfig(k=1))
    assert retriever.invoke("equities dropped")[0].id == "finance"


def test_documents_without_ids_are_fused_as_one_document_each():
    retriever = hybrid_retriever([Document("cats purr"), Document("dogs bark")], HashingEmbeddings(dim=64),
                                 store_factory=cosine_faiss, config=HybridConfig(k=4))
    assert sorted(d.page_content for d in retriever.invoke("cats purr dogs")) == ["cats purr", "dogs bark"]


def test_without_a_store_or_a_factory_it_says_what_to_pass():
    with pytest.raises(ValidationError, match="store= .* or store_factory="):
        hybrid_retriever(DOCS, HashingEmbeddings(dim=64))


def test_the_config_is_plain_json_data():
    assert HybridConfig().to_json() == {"k": 4, "fetch_k": 20, "weights": [0.5, 0.5], "c": 60,
                                        "stemmer": "english", "bm25_params": {}}


@pytest.mark.parametrize("kwargs, shown", [({"k": 0}, "0"), ({"k": 30}, "fetch_k"), ({"weights": (1.0,)}, "dense")])
def test_bad_configs_are_refused(kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        HybridConfig(**kwargs)


def test_ensemble_k_keeps_the_best_k():
    retriever = hybrid_retriever(DOCS, HashingEmbeddings(dim=64), store_factory=cosine_faiss, config=HybridConfig(k=1, fetch_k=3))
    assert len(retriever.invoke("cell energy plants markets")) == 1


@pytest.mark.parametrize("module", [
    "rag.bm25.analysis", "rag.bm25.index", "rag.bm25.retriever", "rag.bm25.scoring", "rag.ensemble",
    "rag.hybrid", "rag.evaluation.metrics", "rag.evaluation.runner", "rag.embeddings.openai",
])
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
