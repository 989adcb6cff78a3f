"""FAISS-specific behaviour: index types, training, tombstones, merging, persistence."""

import json

import faiss
import numpy as np
import pytest

from rag import Document
from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from rag.errors import CorruptIndexError, ValidationError
from stores import FAISS
from stores.faiss import DistanceStrategy
from stores.testing import brute_force_cosine, unit_rows


def docs(count):
    return [Document(f"doc {i}", {"n": i}) for i in range(count)]


def ids(count):
    return [str(i) for i in range(count)]


def flat_store(count=20, dim=8, **kwargs):
    store = FAISS(DeterministicFakeEmbedding(size=dim), **kwargs)
    store.add_vectors(unit_rows(1, count, dim), docs(count), ids=ids(count))
    return store


def test_the_default_is_an_exact_euclidean_flat_index_scoring_squared_distance():
    store = flat_store()
    vectors = unit_rows(1, 20, 8)
    query = unit_rows(2, 1, 8)[0]
    pairs = store.similarity_search_with_score_by_vector(query, k=3)
    distances = ((vectors - query) ** 2).sum(axis=1)
    assert store.distance_strategy == DistanceStrategy.EUCLIDEAN_DISTANCE
    assert [int(d.id) for d, _ in pairs] == list(np.argsort(distances)[:3])
    np.testing.assert_allclose([s for _, s in pairs], np.sort(distances)[:3], rtol=1e-5)


def test_inner_product_scores_are_the_products_best_first():
    store = flat_store(distance_strategy="MAX_INNER_PRODUCT")
    query = unit_rows(2, 1, 8)[0]
    scores = [s for _, s in store.similarity_search_with_score_by_vector(query, k=5)]
    assert scores == sorted(scores, reverse=True)
    np.testing.assert_allclose(scores, np.sort(unit_rows(1, 20, 8) @ query)[::-1][:5], rtol=1e-5)


def test_cosine_scores_are_cosines_even_for_unnormalised_vectors():
    store = FAISS(DeterministicFakeEmbedding(size=8), distance_strategy=DistanceStrategy.COSINE)
    vectors = unit_rows(1, 10, 8) * np.arange(1, 11, dtype=np.float32)[:, None]
    store.add_vectors(vectors, docs(10), ids=ids(10))
    query = unit_rows(2, 1, 8)[0] * 7
    scores = [s for _, s in store.similarity_search_with_score_by_vector(query, k=3)]
    np.testing.assert_allclose(scores, np.sort(brute_force_cosine(query, vectors))[::-1][:3], rtol=1e-5)


def test_relevance_of_non_unit_euclidean_vectors_is_one_over_one_plus_distance():
    store = FAISS(DeterministicFakeEmbedding(size=2))
    store.add_vectors([[0.0, 0.0], [3.0, 4.0]], docs(2), ids=ids(2))
    store._embedding = _Constant([0.0, 0.0])
    pairs = store.similarity_search_with_relevance_scores("q", k=2)
    assert [round(s, 6) for _, s in pairs] == [1.0, round(1 / 6, 6)]


def test_relevance_of_non_unit_inner_products_is_logistic():
    store = FAISS(DeterministicFakeEmbedding(size=2), distance_strategy="MAX_INNER_PRODUCT")
    store.add_vectors([[2.0, 0.0], [-1.0, 0.0]], docs(2), ids=ids(2))
    store._embedding = _Constant([1.0, 0.0])
    pairs = store.similarity_search_with_relevance_scores("q", k=2)
    np.testing.assert_allclose([s for _, s in pairs], [1 / (1 + np.exp(-2)), 1 / (1 + np.exp(1))], rtol=1e-5)


def test_a_custom_relevance_function_is_used_and_clipped():
    store = flat_store(relevance_score_fn=lambda distance: 2.0 - distance)
    store._embedding = _Constant(unit_rows(1, 20, 8)[0])
    assert store.similarity_search_with_relevance_scores("q", k=1)[0][1] == 1.0


def test_flat_deletes_and_replacements_remove_vectors_for_real():
    store = flat_store()
    store.delete(["0", "1"])
    store.add_vectors(unit_rows(9, 1, 8), [Document("new")], ids=["5"])
    assert store.index.ntotal == len(store) == 18


def test_filtered_flat_search_passes_an_id_selector_and_is_exact():
    store = flat_store(count=1000)
    query = unit_rows(3, 1, 8)[0]
    found = store.similarity_search_by_vector(query, k=10, filter={"n": {"$lt": 10}})
    cosines = brute_force_cosine(query, unit_rows(1, 1000, 8))
    assert [int(d.id) for d in found] == list(np.argsort(-cosines[:10]))


def test_hnsw_deletes_leave_tombstones_that_search_skips():
    store = flat_store(count=50, index_factory="HNSW16", efSearch=64)
    store.delete(["3"])
    assert store.index.ntotal == 50 and len(store) == 49
    assert "3" not in [d.id for d in store.similarity_search_by_vector(unit_rows(1, 50, 8)[3], k=49)]


def test_compact_rebuilds_an_hnsw_index_without_tombstones():
    store = flat_store(count=50, index_factory="HNSW16", efSearch=64)
    store.delete(["3", "4"])
    store.add_vectors(unit_rows(7, 1, 8), [Document("replaced")], ids=["5"])
    store.compact()
    assert store.index.ntotal == len(store) == 48
    assert store.similarity_search_by_vector(unit_rows(7, 1, 8)[0], k=1)[0].page_content == "replaced"


def test_saving_an_hnsw_store_compacts_it(tmp_path):
    store = flat_store(count=50, index_factory="HNSW16", efSearch=64)
    store.delete(["3"])
    store.save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, store.embeddings)
    assert loaded.index.ntotal == 49 and loaded.efSearch == 64 and loaded.index_factory == "HNSW16"


def test_ivf_trains_on_the_first_add():
    store = FAISS(DeterministicFakeEmbedding(size=8), index_factory="IVF4,Flat", nprobe=4)
    store.add_vectors(unit_rows(1, 200, 8), docs(200), ids=ids(200))
    assert store.index.is_trained and faiss.extract_index_ivf(store.index).nprobe == 4
    assert store.similarity_search_by_vector(unit_rows(1, 200, 8)[17], k=1)[0].id == "17"


def test_too_few_training_vectors_raise_a_clear_error_and_store_nothing():
    store = FAISS(DeterministicFakeEmbedding(size=8), index_factory="IVF16,Flat")
    with pytest.raises(ValidationError, match="'IVF16,Flat' needs at least 16 training vectors, got 5"):
        store.add_vectors(unit_rows(1, 5, 8), docs(5), ids=ids(5))
    assert len(store) == 0 and store.get_by_ids(["0"]) == []


def test_pq_needs_a_training_vector_per_code():
    store = FAISS(DeterministicFakeEmbedding(size=8), index_factory="IVF2,PQ4")
    with pytest.raises(ValidationError, match="needs at least 256 training vectors"):
        store.add_vectors(unit_rows(1, 100, 8), docs(100), ids=ids(100))


def test_an_explicit_train_call_allows_small_first_adds():
    store = FAISS(DeterministicFakeEmbedding(size=8), index_factory="IVF8,Flat", nprobe=8)
    store.train(unit_rows(5, 400, 8))
    store.add_vectors(unit_rows(1, 3, 8), docs(3), ids=ids(3))
    assert store.similarity_search_by_vector(unit_rows(1, 3, 8)[2], k=1)[0].id == "2"


def test_approximate_filtered_search_fills_k_by_over_fetching():
    store = flat_store(count=500, index_factory="HNSW16", efSearch=200)
    found = store.similarity_search_by_vector(unit_rows(3, 1, 8)[0], k=5, filter={"n": {"$gte": 490}})
    assert len(found) == 5 and all(d.metadata["n"] >= 490 for d in found)


def test_search_parameters_can_be_changed_later():
    store = flat_store(count=300, index_factory="IVF4,Flat")
    store.nprobe = 3
    assert faiss.extract_index_ivf(store.index).nprobe == 3
    with pytest.raises(ValidationError, match="nprobe must be a positive int"):
        store.nprobe = 0


def test_an_invalid_factory_string_is_named():
    with pytest.raises(ValidationError, match="'NotAnIndex' is not a faiss factory string"):
        FAISS(DeterministicFakeEmbedding(size=8), index_factory="NotAnIndex").add_vectors(unit_rows(1, 1, 8), docs(1))


def test_an_unsupported_distance_strategy_lists_the_supported_ones():
    with pytest.raises(ValidationError, match="EUCLIDEAN_DISTANCE, MAX_INNER_PRODUCT, COSINE, got 'JACCARD'"):
        FAISS(DeterministicFakeEmbedding(size=8), distance_strategy="JACCARD")


def test_langchain_style_construction_with_an_empty_index_works():
    class EmptyDocstore:
        _dict: dict = {}

    store = FAISS(DeterministicFakeEmbedding(size=8), faiss.IndexFlatIP(8), EmptyDocstore(), {},
                  distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT)
    store.add_texts(["a", "b"], ids=["a", "b"])
    assert store.similarity_search("a", k=1)[0].id == "a"


def test_a_filled_index_or_a_metric_mismatch_is_refused():
    filled = faiss.IndexFlatL2(8)
    filled.add(unit_rows(1, 2, 8))
    with pytest.raises(ValidationError, match="must be an empty faiss index"):
        FAISS(DeterministicFakeEmbedding(size=8), filled)
    with pytest.raises(ValidationError, match="metric"):
        FAISS(DeterministicFakeEmbedding(size=8), faiss.IndexFlatIP(8))


def test_from_embeddings_takes_text_vector_pairs():
    vectors = unit_rows(1, 4, 8)
    store = FAISS.from_embeddings([(f"t{i}", vectors[i]) for i in range(4)], DeterministicFakeEmbedding(size=8),
                                  metadatas=[{"i": i} for i in range(4)], ids=ids(4))
    found = store.similarity_search_by_vector(vectors[2], k=1)[0]
    assert (found.page_content, found.metadata, found.id) == ("t2", {"i": 2}, "2")


def test_merge_from_adds_the_other_stores_documents_and_vectors():
    first = flat_store(count=5)
    second = FAISS(DeterministicFakeEmbedding(size=8))
    second.add_vectors(unit_rows(42, 3, 8), [Document(f"other {i}") for i in range(3)], ids=["x", "y", "z"])
    first.merge_from(second)
    assert len(first) == 8 and first.index.ntotal == 8
    assert first.similarity_search_by_vector(unit_rows(42, 3, 8)[1], k=1)[0].id == "y"


def test_merge_from_replaces_ids_present_in_both():
    first = flat_store(count=5)
    second = FAISS(DeterministicFakeEmbedding(size=8))
    second.add_vectors(unit_rows(42, 1, 8), [Document("newer")], ids=["2"])
    first.merge_from(second)
    assert len(first) == 5 and first.get_by_ids(["2"])[0].page_content == "newer"


def test_merge_from_refuses_a_store_with_another_strategy():
    with pytest.raises(ValidationError, match="cannot merge"):
        flat_store().merge_from(flat_store(distance_strategy="COSINE"))


def test_save_local_writes_no_pickle_and_round_trips_the_configuration(tmp_path):
    store = flat_store(distance_strategy="MAX_INNER_PRODUCT", normalize_L2=True)
    store.save_local(tmp_path / "folder", index_name="my")
    files = sorted(p.name for p in (tmp_path / "folder" / "my").iterdir())
    assert files == ["documents.jsonl", "index.faiss", "labels.npy", "manifest.json"]
    loaded = FAISS.load_local(tmp_path / "folder", store.embeddings, index_name="my", allow_dangerous_deserialization=True)
    assert loaded.distance_strategy == DistanceStrategy.MAX_INNER_PRODUCT and loaded._normalize_L2
    manifest = json.loads((tmp_path / "folder" / "my" / "manifest.json").read_text())
    assert manifest["embedding"] == {"model_id": "DeterministicFakeEmbedding-8", "dimension": 8}


def test_load_local_refuses_a_different_distance_strategy(tmp_path):
    flat_store().save_local(tmp_path)
    with pytest.raises(ValidationError, match="differs from the saved index"):
        FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=8), distance_strategy="COSINE")


def test_an_unreadable_faiss_file_is_reported_as_corrupt(tmp_path):
    import hashlib

    flat_store().save_local(tmp_path)
    folder = tmp_path / "index"
    (folder / "index.faiss").write_bytes(b"garbage")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["sections"]["index"].update(bytes=7, sha256=hashlib.sha256(b"garbage").hexdigest())
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CorruptIndexError, match="cannot be read"):
        FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=8))


def test_an_empty_store_saves_and_loads(tmp_path):
    FAISS(HashingEmbeddings(dim=16)).save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, HashingEmbeddings(dim=16))
    assert len(loaded) == 0 and loaded.similarity_search("x") == []
    loaded.add_texts(["now it has one"])
    assert len(loaded) == 1


class _Constant(HashingEmbeddings):
    def __init__(self, vector):
        super().__init__(dim=len(vector))
        self.vector = np.asarray(vector, dtype=np.float32)

    def embed_documents(self, texts):
        return np.tile(self.vector, (len(texts), 1))


def test_a_failed_compaction_leaves_the_store_searchable():
    store = FAISS(DeterministicFakeEmbedding(size=8), index_factory="HNSW16,PQ4")
    store.add_vectors(unit_rows(1, 300, 8), docs(300), ids=ids(300))
    store.delete([str(i) for i in range(200)])
    with pytest.raises(ValidationError, match="training vectors"):
        store.compact()
    assert len(store) == 100 and store.index.ntotal == 300
    assert store.similarity_search_by_vector(unit_rows(1, 300, 8)[250], k=1)[0].id == "250"


def test_tombstones_are_compacted_once_they_outnumber_live_vectors(monkeypatch):
    import stores.faiss as faiss_store

    monkeypatch.setattr(faiss_store, "AUTO_COMPACT_MIN", 10)
    store = flat_store(count=30, index_factory="HNSW16", efSearch=64)
    store.delete([str(i) for i in range(16)])
    assert store.index.ntotal == len(store) == 14 and not store._tombstones
    assert store.similarity_search_by_vector(unit_rows(1, 30, 8)[20], k=1)[0].id == "20"


def test_replacing_documents_while_compaction_triggers_keeps_the_new_vectors(monkeypatch):
    import stores.faiss as faiss_store

    monkeypatch.setattr(faiss_store, "AUTO_COMPACT_MIN", 4)
    store = flat_store(count=10, index_factory="HNSW16", efSearch=64)
    for round_ in (1, 2):  # the second round's removals outnumber the live vectors
        fresh = unit_rows(70 + round_, 10, 8)
        store.add_vectors(fresh, [Document(f"round {round_} doc {i}") for i in range(10)], ids=ids(10))
    assert len(store) == store.index.ntotal == 10 and not store._tombstones
    for i in range(10):
        assert store.similarity_search_by_vector(fresh[i], k=1)[0].page_content == f"round 2 doc {i}"
