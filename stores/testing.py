"""The conformance suite every vector store backend runs (needs the ``test`` extra).

Subclass :class:`VectorStoreConformance` in a test module and supply one fixture,
``make_store``, returning a function ``(embedding) -> empty store``. Backends that persist
override :meth:`VectorStoreConformance.save` and :meth:`VectorStoreConformance.load`;
approximate backends set ``exact = False`` to skip the brute-force agreement checks::

    class TestMyStore(VectorStoreConformance):
        @pytest.fixture
        def make_store(self):
            return lambda embedding: MyStore(embedding)
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from rag.errors import (
    CorruptIndexError,
    DimensionMismatchError,
    EmbeddingMismatchError,
    ValidationError,
)
from stores.base import VectorStore

__all__ = ["VectorStoreConformance", "unit_rows", "brute_force_cosine"]

DIM = 8

# The fixtures used inside @given tests are factories or read-only stores, so sharing them
# between generated examples is intended; each backend subclass runs the same test method.
_shared_fixture = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors]
)


def unit_rows(seed: int, count: int, dim: int = DIM) -> np.ndarray:
    """``count`` random unit vectors (float32), reproducible from ``seed``."""
    rows = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def brute_force_cosine(query: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Reference cosine similarities computed in float64."""
    q = query.astype(np.float64) / np.linalg.norm(query)
    r = rows.astype(np.float64) / np.linalg.norm(rows, axis=1, keepdims=True)
    return r @ q


class VectorStoreConformance:
    """Behaviour every VectorStore must show; one behaviour per test."""

    #: False for approximate indexes: skips exact agreement with brute force.
    exact: bool = True

    @pytest.fixture
    def make_store(self) -> Callable[[Any], VectorStore]:  # pragma: no cover - overridden
        raise NotImplementedError("a conformance subclass must define the make_store fixture")

    def save(self, store: VectorStore, path: Path) -> None:
        """Persist ``store`` to the folder ``path``."""
        pytest.skip(f"{type(store).__name__} does not persist")

    def load(self, store_class: type, path: Path, embedding: Any) -> VectorStore:
        """Load a store saved by :meth:`save`."""
        pytest.skip(f"{store_class.__name__} does not persist")

    # ------------------------------------------------------------------ helpers

    @pytest.fixture
    def embedding(self) -> HashingEmbeddings:
        return HashingEmbeddings(dim=64)

    @pytest.fixture
    def store(self, make_store, embedding) -> VectorStore:
        return make_store(embedding)

    @pytest.fixture
    def vector_store(self, make_store) -> VectorStore:
        """A store of 50 random unit vectors with ids "0".."49" and metadata n, parity."""
        store = make_store(DeterministicFakeEmbedding(size=DIM))
        vectors = unit_rows(7, 50)
        documents = [Document(f"doc {i}", {"n": i, "parity": "even" if i % 2 == 0 else "odd"}) for i in range(50)]
        store.add_vectors(vectors, documents, ids=[str(i) for i in range(50)])
        store._test_vectors = vectors  # type: ignore[attr-defined]
        return store

    # ------------------------------------------------------------------ ids and writing

    def test_add_texts_returns_the_given_ids(self, store):
        assert store.add_texts(["a", "b"], ids=["x", "y"]) == ["x", "y"]

    def test_add_texts_generates_distinct_ids_when_none_given(self, store):
        ids = store.add_texts(["a", "b", "c"])
        assert len(set(ids)) == 3 and all(isinstance(i, str) and i for i in ids)

    def test_add_documents_uses_the_document_id_when_no_ids_are_given(self, store):
        assert store.add_documents([Document("a", id="doc-a")]) == ["doc-a"]
        assert store.get_by_ids(["doc-a"])[0].page_content == "a"

    def test_get_by_ids_keeps_the_order_asked_and_skips_missing_ids(self, store):
        store.add_texts(["a", "b", "c"], ids=["1", "2", "3"])
        assert [d.id for d in store.get_by_ids(["3", "missing", "1"])] == ["3", "1"]

    def test_metadata_is_stored_and_returned(self, store):
        store.add_texts(["a"], [{"source": "x.txt", "page": 2}], ids=["1"])
        assert store.get_by_ids(["1"]) == [Document("a", {"source": "x.txt", "page": 2}, id="1")]

    def test_readding_an_id_replaces_the_document_and_its_vector(self, store):
        store.add_texts(["apples are red", "bananas are yellow"], ids=["fruit", "other"])
        store.add_texts(["kiwis are green"], ids=["fruit"])
        assert len(store) == 2
        assert store.get_by_ids(["fruit"])[0].page_content == "kiwis are green"
        top = store.similarity_search("kiwis are green", k=2)
        assert [d.page_content for d in top].count("kiwis are green") == 1
        assert "apples are red" not in [d.page_content for d in top]

    def test_duplicate_ids_in_one_call_raise_before_anything_is_written(self, store):
        store.add_texts(["kept"], ids=["k"])
        with pytest.raises(ValidationError, match="duplicate ids"):
            store.add_texts(["a", "b"], ids=["same", "same"])
        assert len(store) == 1 and store.get_by_ids(["same"]) == []

    def test_delete_removes_documents_from_search_and_get(self, store):
        store.add_texts(["alpha", "beta", "gamma"], ids=["a", "b", "c"])
        store.delete(["b"])
        assert len(store) == 2
        assert store.get_by_ids(["b"]) == []
        assert "beta" not in [d.page_content for d in store.similarity_search("beta", k=3)]

    def test_deleting_a_missing_id_does_not_raise(self, store):
        store.add_texts(["alpha"], ids=["a"])
        assert store.delete(["nope"]) is True
        assert len(store) == 1

    def test_delete_then_add_keeps_every_remaining_vector_searchable(self, vector_store):
        vector_store.delete([str(i) for i in range(0, 50, 3)])
        vectors = vector_store._test_vectors
        for i in (1, 2, 4, 49):
            assert vector_store.similarity_search_by_vector(vectors[i], k=1)[0].id == str(i)

    def test_returned_documents_are_copies(self, store):
        store.add_texts(["a"], [{"tag": "original"}], ids=["1"])
        store.get_by_ids(["1"])[0].metadata["tag"] = "changed"
        store.similarity_search("a", k=1)[0].metadata["tag"] = "changed"
        assert store.get_by_ids(["1"])[0].metadata == {"tag": "original"}

    # ------------------------------------------------------------------ bad input

    def test_a_vector_of_the_wrong_dimension_raises_and_keeps_the_store(self, vector_store):
        with pytest.raises(DimensionMismatchError, match="dimension 3, expected 8"):
            vector_store.add_vectors([[1.0, 0.0, 0.0]], [Document("bad")])
        with pytest.raises(DimensionMismatchError):
            vector_store.similarity_search_by_vector([1.0, 0.0, 0.0])
        assert len(vector_store) == 50

    def test_nan_vectors_raise_and_keep_the_store(self, vector_store):
        bad = np.full((1, DIM), np.nan, dtype=np.float32)
        with pytest.raises(ValidationError, match="NaN"):
            vector_store.add_vectors(bad, [Document("bad")])
        with pytest.raises(ValidationError, match="NaN"):
            vector_store.similarity_search_by_vector(bad[0])
        assert len(vector_store) == 50

    def test_an_empty_query_vector_raises(self, vector_store):
        with pytest.raises(ValidationError, match="empty"):
            vector_store.similarity_search_by_vector([])

    def test_adding_nothing_returns_no_ids_and_keeps_the_store(self, vector_store):
        assert vector_store.add_texts([]) == []
        assert vector_store.add_documents([]) == []
        assert len(vector_store) == 50

    @pytest.mark.parametrize("k", [0, -1, 2.5, True])
    def test_k_must_be_a_positive_int(self, vector_store, k):
        with pytest.raises(ValidationError, match="k must be a positive int"):
            vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=k)

    def test_a_failing_embedding_model_leaves_the_store_unchanged(self, make_store):
        class Broken(HashingEmbeddings):
            def embed_documents(self, texts):
                raise RuntimeError("model crashed")

        store = make_store(HashingEmbeddings(dim=16))
        store.add_texts(["kept"], ids=["k"])
        store._embedding = Broken(dim=16)
        with pytest.raises(RuntimeError, match="model crashed"):
            store.add_texts(["lost"], ids=["k"])
        assert store.get_by_ids(["k"])[0].page_content == "kept"

    def test_texts_and_metadatas_of_different_lengths_raise(self, store):
        with pytest.raises(ValidationError, match="2 metadatas for 1 texts"):
            store.add_texts(["a"], [{}, {}])

    # ------------------------------------------------------------------ searching

    def test_search_on_an_empty_store_returns_nothing(self, store):
        assert store.similarity_search("anything") == []

    def test_k_larger_than_the_store_returns_every_document(self, vector_store):
        assert len(vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=500)) == 50

    def test_a_stored_vector_finds_itself_first(self, vector_store):
        for i in (0, 17, 49):
            assert vector_store.similarity_search_by_vector(vector_store._test_vectors[i], k=1)[0].id == str(i)

    @_shared_fixture
    @given(seed=st.integers(0, 10_000), k=st.integers(1, 60))
    def test_results_agree_with_brute_force(self, make_store, seed, k):
        if not self.exact:
            pytest.skip("approximate index")
        vectors = unit_rows(seed, 40)
        store = make_store(None)
        store.add_vectors(vectors, [Document(str(i)) for i in range(40)], ids=[str(i) for i in range(40)])
        query = unit_rows(seed + 1, 1)[0]
        expected = np.sort(brute_force_cosine(query, vectors))[::-1][: min(k, 40)]
        ids = [int(d.id) for d in store.similarity_search_by_vector(query, k)]
        assert len(ids) == min(k, 40)
        np.testing.assert_allclose(brute_force_cosine(query, vectors)[ids], expected, atol=1e-5)

    @_shared_fixture
    @given(seed=st.integers(0, 10_000), k=st.integers(1, 20))
    def test_relevance_scores_are_in_unit_range_and_ordered(self, make_store, seed, k):
        store = make_store(HashingEmbeddings(dim=32))
        words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
        rng = np.random.default_rng(seed)
        texts = [" ".join(rng.choice(words, size=3)) for _ in range(15)]
        store.add_texts(texts)
        scores = [s for _, s in store.similarity_search_with_relevance_scores(" ".join(rng.choice(words, 2)), k=k)]
        assert all(0.0 <= s <= 1.0 for s in scores)
        assert scores == sorted(scores, reverse=True)

    def test_relevance_of_unit_vectors_is_the_clipped_cosine(self, vector_store):
        query = vector_store._test_vectors[3]
        vector_store._embedding = _Fixed(query)
        pairs = vector_store.similarity_search_with_relevance_scores("q", k=50)
        cosines = brute_force_cosine(query, vector_store._test_vectors)
        for document, relevance in pairs:
            assert relevance == pytest.approx(min(max(cosines[int(document.id)], 0.0), 1.0), abs=1e-4)

    def test_score_threshold_drops_less_relevant_results(self, vector_store):
        vector_store._embedding = _Fixed(vector_store._test_vectors[3])
        pairs = vector_store.similarity_search_with_relevance_scores("q", k=50, score_threshold=0.5)
        assert pairs and all(score >= 0.5 for _, score in pairs)
        everything = vector_store.similarity_search_with_relevance_scores("q", k=50)
        assert len(pairs) == sum(1 for _, s in everything if s >= 0.5)

    @pytest.mark.parametrize("threshold", [-0.1, 1.5, "0.5"])
    def test_a_threshold_outside_unit_range_raises(self, vector_store, threshold):
        vector_store._embedding = _Fixed(vector_store._test_vectors[0])
        with pytest.raises(ValidationError, match="score_threshold"):
            vector_store.similarity_search_with_relevance_scores("q", score_threshold=threshold)

    def test_batched_search_equals_one_search_per_query(self, vector_store):
        queries = unit_rows(99, 5)
        batched = vector_store.similarity_search_with_score_by_vectors(queries, k=4)
        single = [vector_store.similarity_search_with_score_by_vector(q, k=4) for q in queries]
        assert [[d.id for d, _ in row] for row in batched] == [[d.id for d, _ in row] for row in single]
        for row_b, row_s in zip(batched, single):
            np.testing.assert_allclose([s for _, s in row_b], [s for _, s in row_s], rtol=1e-5, atol=1e-6)

    # ------------------------------------------------------------------ filters

    def test_a_dict_filter_keeps_only_matching_documents(self, vector_store):
        found = vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=10, filter={"parity": "odd"})
        assert len(found) == 10 and all(d.metadata["parity"] == "odd" for d in found)

    @_shared_fixture
    @given(cut=st.integers(0, 60), k=st.integers(1, 30), seed=st.integers(0, 1000))
    def test_filtered_search_returns_min_of_k_and_the_matches(self, vector_store, cut, k, seed):
        query = unit_rows(seed, 1)[0]
        found = vector_store.similarity_search_by_vector(query, k=k, filter={"n": {"$lt": cut}})
        matches = min(cut, 50)
        if self.exact:
            assert len(found) == min(k, matches)
        assert all(d.metadata["n"] < cut for d in found)

    def test_filtered_results_are_the_best_among_the_matches(self, vector_store):
        if not self.exact:
            pytest.skip("approximate index")
        query = unit_rows(5, 1)[0]
        cosines = brute_force_cosine(query, vector_store._test_vectors)
        odd = [i for i in range(50) if i % 2]
        expected = sorted(odd, key=lambda i: -cosines[i])[:5]
        found = vector_store.similarity_search_by_vector(query, k=5, filter={"parity": {"$eq": "odd"}})
        assert [int(d.id) for d in found] == expected

    def test_a_callable_filter_receives_what_langchain_passes(self, vector_store):
        seen: list[Any] = []

        def keep_small(item):
            seen.append(item)
            metadata = item.metadata if isinstance(item, Document) else item
            return metadata["n"] < 3

        found = vector_store.similarity_search_by_vector(vector_store._test_vectors[0], k=10, filter=keep_small)
        assert sorted(int(d.id) for d in found) == [0, 1, 2]
        expected_type = Document if vector_store.callable_filter_receives == "document" else dict
        assert all(isinstance(item, expected_type) for item in seen)

    def test_a_callable_filter_sees_documents_added_replaced_and_deleted_since_the_last_one(self, make_store):
        store = make_store(DeterministicFakeEmbedding(size=DIM))
        store.add_texts(["a", "b"], [{"keep": True}, {"keep": True}], ids=["a", "b"])
        query = unit_rows(3, 1)[0]

        def kept(item: Any) -> bool:
            return (item.metadata if isinstance(item, Document) else item)["keep"]

        assert sorted(d.id for d in store.similarity_search_by_vector(query, k=10, filter=kept)) == ["a", "b"]
        store.add_texts(["c", "b2"], [{"keep": True}, {"keep": False}], ids=["c", "b"])
        store.delete(["a"])
        found = store.similarity_search_by_vector(query, k=10, filter=kept)
        assert [(d.id, d.page_content) for d in found] == [("c", "c")]

    def test_an_unknown_filter_operator_raises_naming_it(self, vector_store):
        with pytest.raises(ValidationError, match=r"\$regex"):
            vector_store.similarity_search_by_vector(vector_store._test_vectors[0], filter={"n": {"$regex": "1"}})

    def test_a_filter_matching_nothing_returns_nothing(self, vector_store):
        assert vector_store.similarity_search_by_vector(vector_store._test_vectors[0], filter={"n": -1}) == []

    # ------------------------------------------------------------------ MMR

    def test_mmr_returns_k_distinct_documents_starting_with_the_most_similar(self, vector_store):
        query = vector_store._test_vectors[10]
        found = vector_store.max_marginal_relevance_search_by_vector(query, k=5, fetch_k=20)
        assert len({d.id for d in found}) == 5 and found[0].id == "10"

    def test_mmr_with_lambda_one_is_plain_similarity(self, vector_store):
        if not self.exact:
            pytest.skip("approximate index")
        query = unit_rows(11, 1)[0]
        mmr = vector_store.max_marginal_relevance_search_by_vector(query, k=6, fetch_k=30, lambda_mult=1.0)
        plain = vector_store.similarity_search_by_vector(query, k=6)
        assert [d.id for d in mmr] == [d.id for d in plain]

    def test_mmr_uses_k_candidates_when_fetch_k_is_smaller(self, vector_store):
        found = vector_store.max_marginal_relevance_search_by_vector(vector_store._test_vectors[0], k=6, fetch_k=2)
        assert len(found) == 6

    @pytest.mark.parametrize("lambda_mult", [-0.5, 1.5])
    def test_mmr_rejects_lambda_outside_unit_range(self, vector_store, lambda_mult):
        with pytest.raises(ValidationError, match="lambda_mult"):
            vector_store.max_marginal_relevance_search_by_vector(vector_store._test_vectors[0], lambda_mult=lambda_mult)

    def test_mmr_respects_the_filter(self, vector_store):
        found = vector_store.max_marginal_relevance_search_by_vector(
            vector_store._test_vectors[0], k=4, filter={"parity": "even"})
        assert len(found) == 4 and all(d.metadata["parity"] == "even" for d in found)

    # ------------------------------------------------------------------ search types and retrievers

    @pytest.mark.parametrize("search_type", ["similarity", "mmr"])
    def test_search_dispatches_on_search_type(self, store, search_type):
        store.add_texts(["red apple", "green pear", "blue sky"])
        assert len(store.search("apple", search_type, k=2)) == 2

    def test_search_threshold_type_dispatches(self, store):
        store.add_texts(["red apple", "green pear", "blue sky"])
        found = store.search("red apple", "similarity_score_threshold", score_threshold=0.9)
        assert [d.page_content for d in found] == ["red apple"]

    def test_an_unknown_search_type_raises_with_the_choices(self, store):
        with pytest.raises(ValidationError, match="similarity_score_threshold"):
            store.search("q", "nearest")

    def test_as_retriever_returns_a_working_retriever(self, store):
        store.add_texts(["red apple", "green pear"], ids=["a", "p"])
        retriever = store.as_retriever(search_kwargs={"k": 1})
        assert [d.id for d in retriever.invoke("apple")] == ["a"]

    def test_from_texts_builds_a_searchable_store(self, make_store, embedding):
        store_class = type(make_store(embedding))
        store = store_class.from_texts(["red apple", "green pear"], embedding, ids=["a", "p"])
        assert store.similarity_search("pear", k=1)[0].id == "p"

    # ------------------------------------------------------------------ async

    def test_async_methods_give_the_sync_results(self, store):
        async def run():
            await store.aadd_texts(["red apple", "green pear", "blue sky"], ids=["a", "p", "s"])
            similar = await store.asimilarity_search("apple", k=2)
            expected = store.similarity_search("apple", k=2)
            mmr = await store.amax_marginal_relevance_search("apple", k=2)
            scored = await store.asimilarity_search_with_relevance_scores("apple", k=1)
            await store.adelete(["s"])
            return similar, expected, mmr, scored, await store.aget_by_ids(["a", "s"])

        similar, expected, mmr, scored, got = asyncio.run(run())
        assert [d.id for d in similar] == [d.id for d in expected]
        assert mmr[0].id == "a" and scored[0][0].id == "a"
        assert [d.id for d in got] == ["a"]

    # ------------------------------------------------------------------ concurrency

    def test_eight_threads_adding_and_searching_lose_nothing(self, make_store):
        store = make_store(HashingEmbeddings(dim=32))
        errors: list[BaseException] = []

        def work(worker: int) -> None:
            try:
                for batch in range(10):
                    ids = [f"{worker}-{batch}-{i}" for i in range(5)]
                    store.add_texts([f"worker {worker} batch {batch} item {i}" for i in range(5)], ids=ids)
                    assert len(store.similarity_search(f"worker {worker}", k=3)) == 3
            except BaseException as exc:  # collected: a thread's failure must fail the test
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(store) == 8 * 10 * 5
        wanted = [f"{w}-{b}-{i}" for w in range(8) for b in range(10) for i in range(5)]
        assert len(store.get_by_ids(wanted)) == 400
        assert store.similarity_search("worker 3 batch 7 item 2", k=1)[0].id == "3-7-2"

    # ------------------------------------------------------------------ persistence

    def test_a_saved_store_loads_with_the_same_documents_and_results(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        loaded = self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)
        assert len(loaded) == 50
        assert loaded.get_by_ids(["7"]) == vector_store.get_by_ids(["7"])
        query = unit_rows(3, 1)[0]
        assert [d.id for d in loaded.similarity_search_by_vector(query, k=5)] == [
            d.id for d in vector_store.similarity_search_by_vector(query, k=5)]

    def test_a_loaded_store_accepts_new_documents(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        loaded = self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)
        loaded.add_vectors(unit_rows(123, 1), [Document("new")], ids=["new"])
        assert len(loaded) == 51 and loaded.get_by_ids(["7"])[0].page_content == "doc 7"

    def test_saving_again_replaces_the_previous_index(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        vector_store.delete(["0", "1"])
        self.save(vector_store, tmp_path / "index")
        assert len(self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)) == 48
        assert [p.name for p in tmp_path.iterdir()] == ["index"]

    def test_loading_with_another_embedding_model_raises(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        with pytest.raises(EmbeddingMismatchError, match="DeterministicFakeEmbedding"):
            self.load(type(vector_store), tmp_path / "index", HashingEmbeddings(dim=DIM))

    def test_loading_with_another_dimension_raises(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        with pytest.raises(EmbeddingMismatchError):
            self.load(type(vector_store), tmp_path / "index", DeterministicFakeEmbedding(size=DIM + 1))

    def test_a_truncated_file_is_detected(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        victim = _largest_data_file(tmp_path / "index")
        victim.write_bytes(victim.read_bytes()[:-10])
        with pytest.raises(CorruptIndexError, match="truncated"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_a_missing_file_is_detected(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        _largest_data_file(tmp_path / "index").unlink()
        with pytest.raises(CorruptIndexError, match="missing"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_an_altered_file_is_detected_by_its_hash(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        victim = _largest_data_file(tmp_path / "index")
        data = bytearray(victim.read_bytes())
        data[-1] ^= 0xFF
        victim.write_bytes(bytes(data))
        with pytest.raises(CorruptIndexError, match="sha256"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_another_format_version_is_refused(self, vector_store, tmp_path):
        self.save(vector_store, tmp_path / "index")
        manifest_path = tmp_path / "index" / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["format_version"] = 99
        manifest_path.write_text(json.dumps(manifest))
        with pytest.raises(CorruptIndexError, match="version 99"):
            self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)

    def test_a_missing_folder_raises_file_not_found(self, vector_store, tmp_path):
        with pytest.raises(FileNotFoundError):
            self.load(type(vector_store), tmp_path / "nothing-here", vector_store.embeddings)

    def test_an_interrupted_save_leaves_the_previous_index_loadable(self, vector_store, tmp_path, monkeypatch):
        import rag.persistence.atomic as persistence

        self.save(vector_store, tmp_path / "index")
        vector_store.delete(["0"])
        calls = {"n": 0}
        real_write = persistence._write_file

        def crash_on_second_file(path, payload):
            calls["n"] += 1
            if calls["n"] == 2:
                raise OSError(28, "No space left on device")
            real_write(path, payload)

        monkeypatch.setattr(persistence, "_write_file", crash_on_second_file)
        with pytest.raises(OSError):
            self.save(vector_store, tmp_path / "index")
        monkeypatch.undo()
        assert len(self.load(type(vector_store), tmp_path / "index", vector_store.embeddings)) == 50
        assert [p.name for p in tmp_path.iterdir()] == ["index"]


class _Fixed(HashingEmbeddings):
    """Embeds every text as one fixed vector (to search by a known query through text APIs)."""

    def __init__(self, vector: np.ndarray) -> None:
        super().__init__(dim=int(vector.shape[0]))
        self.vector = np.asarray(vector, dtype=np.float32)

    def embed_documents(self, texts):
        return np.tile(self.vector, (len(texts), 1))


def _largest_data_file(folder: Path) -> Path:
    return max((p for p in folder.iterdir() if p.name != "manifest.json"), key=lambda p: p.stat().st_size)
