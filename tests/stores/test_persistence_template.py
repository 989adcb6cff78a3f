"""One save/load template for every store: sections under a prefix, load options checked."""

import numpy as np
import pytest

from rag import Document
from rag.embeddings import DeterministicFakeEmbedding
from rag.errors import ValidationError
from rag.persistence import Manifest, read_index_folder, write_index_folder
from stores import FAISS, InMemoryVectorStore
from stores.testing import unit_rows


def filled(store_class):
    store = store_class(DeterministicFakeEmbedding(size=8))
    store.add_vectors(unit_rows(1, 5, 8), [Document(f"doc {i}", {"i": i}) for i in range(5)], ids=[str(i) for i in range(5)])
    return store


@pytest.mark.parametrize("store_class", [FAISS, InMemoryVectorStore])
def test_a_store_round_trips_through_prefixed_sections_beside_other_data(store_class, tmp_path):
    store = filled(store_class)
    config, sections = store.to_sections(prefix="store_")
    assert set(sections) >= {"store_documents"} and all(name.startswith("store_") for name in sections)
    manifest = Manifest(store_class="Combined", model_id=None, dimension=8)
    write_index_folder(tmp_path / "ix", manifest, {**sections, "other": [1, 2]})
    folder = read_index_folder(tmp_path / "ix")
    loaded = store_class.from_sections(folder, store.embeddings, config, prefix="store_")
    query = unit_rows(9, 1, 8)[0]
    assert [d.id for d in loaded.similarity_search_by_vector(query, k=5)] == [d.id for d in store.similarity_search_by_vector(query, k=5)]
    assert loaded.get_by_ids(["3"]) == store.get_by_ids(["3"]) and config["store_class"] == store_class.__name__


@pytest.mark.parametrize("store_class", [FAISS, InMemoryVectorStore])
def test_an_unknown_load_option_is_refused_with_the_accepted_ones(store_class, tmp_path):
    filled(store_class)._save_folder(tmp_path / "ix")
    with pytest.raises(ValidationError, match="unexpected load options \\['nprob'\\]"):
        store_class._load_folder(tmp_path / "ix", None, nprob=4)


def test_faiss_load_options_change_search_settings_not_the_saved_vectors(tmp_path):
    filled(FAISS).save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=8), nprobe=3, distance_strategy="EUCLIDEAN_DISTANCE")
    assert loaded.nprobe == 3 and len(loaded) == 5
    np.testing.assert_allclose(loaded._get_vectors(np.arange(5)), unit_rows(1, 5, 8), atol=1e-6)
