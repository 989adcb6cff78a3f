"""BM25Retriever: LangChain's constructors, English analysis, k, and pickle-free persistence."""

import json

import pytest

from rag.bm25 import Analyzer, BM25Retriever
from rag.documents import Document
from rag.errors import CorruptIndexError, MissingDependencyError, ValidationError
from rag.retrievers import BaseRetriever

TEXTS = [
    "Solar panels convert sunlight into electricity.",
    "Wind turbines generate electricity from moving air.",
    "The cat is running after the mouse.",
    "Coal plants burn fossil fuel.",
    "A dog runs in the park.",
]


@pytest.fixture
def retriever():
    return BM25Retriever.from_texts(TEXTS, metadatas=[{"n": i} for i in range(5)], ids=[f"d{i}" for i in range(5)])


def test_it_is_a_retriever_importable_from_rag_retrievers():
    from rag.retrievers import BM25Retriever as exported

    assert exported is BM25Retriever and issubclass(BM25Retriever, BaseRetriever)


def test_the_best_match_comes_first(retriever):
    assert retriever.invoke("wind electricity")[0].page_content == TEXTS[1]


def test_stemming_matches_other_word_forms(retriever):
    assert {d.id for d in retriever.invoke("run")} == {"d2", "d4"}


def test_without_stemming_only_exact_words_match():
    plain = BM25Retriever.from_texts(TEXTS, stemmer=None)
    assert [d.page_content for d in plain.invoke("runs")] == [TEXTS[4]]


def test_stopwords_alone_match_nothing(retriever):
    assert retriever.invoke("the is a") == []


def test_matching_ignores_case(retriever):
    assert retriever.invoke("SOLAR")[0].id == "d0"


def test_documents_sharing_no_term_are_not_returned(retriever):
    assert [d.id for d in retriever.invoke("coal")] == ["d3"]


def test_k_limits_the_results_and_defaults_to_4():
    many = BM25Retriever.from_texts([f"apple number {i}" for i in range(10)])
    assert len(many.invoke("apple")) == 4
    assert len(many.invoke("apple", k=7)) == 7
    assert len(BM25Retriever.from_texts([f"apple {i}" for i in range(10)], k=2).invoke("apple")) == 2


def test_metadata_and_ids_are_kept(retriever):
    best = retriever.invoke("coal")[0]
    assert best.metadata == {"n": 3} and best.id == "d3"


def test_from_documents_keeps_ids_and_metadata():
    docs = [Document("alpha beta", {"s": 1}, "x"), Document("gamma delta", {"s": 2}, "y")]
    assert BM25Retriever.from_documents(docs).invoke("gamma") == [docs[1]]


def test_returned_documents_are_copies(retriever):
    retriever.invoke("coal")[0].metadata["n"] = 99
    assert retriever.invoke("coal")[0].metadata == {"n": 3}


def test_search_with_scores_gives_descending_positive_scores(retriever):
    scores = [s for _, s in retriever.search_with_scores("electricity solar wind", k=5)]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_a_preprocess_func_replaces_the_analysis():
    plain = BM25Retriever.from_texts(["The Cat", "the dog"], preprocess_func=str.split)
    assert [d.page_content for d in plain.invoke("The")] == ["The Cat"]


def test_bm25_params_change_the_scores():
    default = BM25Retriever.from_texts(TEXTS).search_with_scores("electricity")
    no_length = BM25Retriever.from_texts(TEXTS, bm25_params={"b": 0.0}).search_with_scores("electricity")
    assert default[0][1] != no_length[0][1]


def test_an_empty_corpus_returns_nothing():
    assert BM25Retriever.from_texts([]).invoke("anything") == []


@pytest.mark.parametrize("kwargs, shown", [({"k": 0}, "0"), ({"stemmer": "klingon"}, "klingon"),
                                           ({"stopwords": "fr"}, "fr"), ({"bm25_params": {"k1": -2}}, "-2")])
def test_bad_arguments_fail_at_construction_showing_the_value(kwargs, shown):
    with pytest.raises(ValidationError, match=shown):
        BM25Retriever.from_texts(TEXTS, **kwargs)


def test_mismatched_metadatas_are_refused():
    with pytest.raises(ValidationError, match="2 texts, 1 metadatas"):
        BM25Retriever.from_texts(["a b", "c d"], metadatas=[{}])


def test_unknown_invoke_keywords_are_refused(retriever):
    with pytest.raises(ValidationError, match="filter"):
        retriever.invoke("coal", filter={"n": 3})


def test_a_missing_pystemmer_names_the_install_command(monkeypatch):
    import sys

    from rag.bm25 import analysis

    monkeypatch.setitem(sys.modules, "Stemmer", None)
    monkeypatch.setattr(analysis, "_per_thread", type(analysis._per_thread)())
    with pytest.raises(MissingDependencyError, match="pip install PyStemmer"):
        Analyzer(stemmer="english")


def test_save_and_load_give_the_same_results(retriever, tmp_path):
    retriever.save(tmp_path / "bm25")
    loaded = BM25Retriever.load(tmp_path / "bm25")
    for query in ["wind electricity", "run", "coal fuel"]:
        assert loaded.search_with_scores(query) == retriever.search_with_scores(query)
    assert loaded.k == retriever.k


def test_the_saved_folder_holds_only_npy_and_json(retriever, tmp_path):
    retriever.save(tmp_path / "bm25")
    suffixes = {p.suffix for p in (tmp_path / "bm25").iterdir()}
    assert suffixes == {".npy", ".json"}
    assert json.loads((tmp_path / "bm25" / "manifest.json").read_text())["store_class"] == "BM25Retriever"


def test_a_tampered_array_is_refused(retriever, tmp_path):
    retriever.save(tmp_path / "bm25")
    scores = tmp_path / "bm25" / "bm25_scores.npy"
    payload = bytearray(scores.read_bytes())
    payload[-1] ^= 0xFF
    scores.write_bytes(bytes(payload))
    with pytest.raises(CorruptIndexError):
        BM25Retriever.load(tmp_path / "bm25")


def test_an_index_built_with_a_custom_preprocess_func_needs_it_to_load(tmp_path):
    BM25Retriever.from_texts(["a b", "c d"], preprocess_func=str.split).save(tmp_path / "custom")
    with pytest.raises(ValidationError, match="preprocess_func"):
        BM25Retriever.load(tmp_path / "custom")
    loaded = BM25Retriever.load(tmp_path / "custom", preprocess_func=str.split)
    assert [d.page_content for d in loaded.invoke("c")] == ["c d"]


def test_the_analyzer_lowercases_drops_stopwords_and_short_tokens_and_stems():
    assert Analyzer().analyze("The Cats are RUNNING a b 42") == ["cat", "run", "42"]
