"""LocalEmbeddings(arithmetic="int8"): the shipped MiniLM rewritten for integer products,
built once into the cache folder from the installed package (needs the `local` extra)."""

import hashlib
import sys

import numpy as np
import pytest

from rag.embeddings import LocalEmbeddings
from rag.embeddings._quantize import cached_dynamic_int8, dynamic_int8_model
from rag.embeddings.local import DYNAMIC_INT8_SHA256, MODEL_SHA256, _default_model_path
from rag.errors import EmbeddingMismatchError, MissingDependencyError, ValidationError
from rag.index import Index

onnx = pytest.importorskip("onnx")

SENTENCES = ["A man is eating food.", "A man is eating a piece of bread.",
             "The stock market closed higher on Tuesday.",
             "Vitamin D deficiency is associated with an increased risk of fractures in older adults."]


@pytest.fixture(scope="module")
def converted():
    return dynamic_int8_model(_default_model_path().read_bytes())


@pytest.fixture(scope="module")
def int8_vectors():
    return LocalEmbeddings(arithmetic="int8").embed_documents_array(SENTENCES)


def test_the_rewrite_gives_the_same_bytes_every_time_with_the_published_hash(converted):
    assert hashlib.sha256(converted).hexdigest() == DYNAMIC_INT8_SHA256
    assert dynamic_int8_model(_default_model_path().read_bytes()) == converted


def test_the_rewritten_graph_multiplies_int8_weights_with_no_float_copy_of_them(converted):
    graph = onnx.load_from_string(converted).graph
    kinds = [node.op_type for node in graph.node]
    assert kinds.count("DynamicQuantizeMatMul") == 35
    weights = {node.input[1] for node in graph.node if node.op_type == "DynamicQuantizeMatMul"}
    types = {tensor.name: tensor.data_type for tensor in graph.initializer}
    assert {types[name] for name in weights} == {onnx.TensorProto.INT8}
    # Only the two embedding tables and the one matrix kept in float are still cast from int8.
    int8_casts = [node for node in graph.node if node.op_type == "Cast" and types.get(node.input[0]) == onnx.TensorProto.INT8]
    assert len(int8_casts) == 3


def test_int8_vectors_stay_within_cosine_0_99_of_the_float_model(int8_vectors):
    reference = LocalEmbeddings().embed_documents_array(SENTENCES)
    assert np.min(np.sum(int8_vectors * reference, axis=1)) > 0.99


def test_int8_vectors_are_unit_length_float32(int8_vectors):
    assert int8_vectors.dtype == np.float32 and int8_vectors.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(int8_vectors, axis=1), 1.0, atol=1e-5)


def test_the_int8_model_has_its_own_model_id():
    int8, float_ = LocalEmbeddings(arithmetic="int8").model_id, LocalEmbeddings().model_id
    assert "dynamic-int8" in int8 and DYNAMIC_INT8_SHA256[:12] in int8 and int8 != float_


def test_a_damaged_cached_model_is_built_again(tmp_path):
    first = cached_dynamic_int8(_default_model_path(), MODEL_SHA256, DYNAMIC_INT8_SHA256, cache=tmp_path)
    (cached,) = (tmp_path / "models").glob("*/model.onnx")
    cached.write_bytes(b"damaged")
    assert cached_dynamic_int8(_default_model_path(), MODEL_SHA256, DYNAMIC_INT8_SHA256, cache=tmp_path) == first
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == DYNAMIC_INT8_SHA256


def test_without_onnx_the_conversion_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[local\]"'):
        cached_dynamic_int8(_default_model_path(), MODEL_SHA256, DYNAMIC_INT8_SHA256, cache=tmp_path)


def test_an_unknown_arithmetic_is_refused_showing_the_value():
    with pytest.raises(ValidationError, match="'int4'"):
        LocalEmbeddings(arithmetic="int4")


def test_an_index_built_with_local_int8_records_it_and_refuses_the_float_model(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "food.txt").write_text(SENTENCES[0])
    (tmp_path / "docs" / "market.txt").write_text(SENTENCES[2])
    index = Index.create(tmp_path / "ix", embeddings="local-int8")
    index.update([str(tmp_path / "docs")])
    reopened = Index.open(tmp_path / "ix")
    assert reopened.info().embeddings == "local-int8" and "dynamic-int8" in reopened.info().model_id
    assert reopened.search(SENTENCES[1], k=1)[0][0].page_content == SENTENCES[0]
    with pytest.raises(EmbeddingMismatchError, match="local-int8"):
        Index.open(tmp_path / "ix", embeddings="local")
