"""FAISS save/load streamed: faiss's own file written and memory-mapped, documents as JSON
lines, every file verified before use, older folders still loading."""

import hashlib
import json
import subprocess
import sys
import textwrap

import faiss
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag import Document
from rag.embeddings import DeterministicFakeEmbedding
from rag.errors import CorruptIndexError
from rag.persistence import Manifest, read_index_folder, write_index_folder
from stores import FAISS
from stores import _columns

DIM = 8


def store_of(count, seed=1, **kwargs):
    store = FAISS(DeterministicFakeEmbedding(size=DIM), **kwargs)
    rows = np.random.default_rng(seed).normal(size=(count, DIM)).astype(np.float32)
    store.add_vectors(rows, [Document(f"doc {i}", {"n": i}) for i in range(count)], ids=[f"d{i}" for i in range(count)])
    return store


def query():
    return np.random.default_rng(9).normal(size=DIM).astype(np.float32)


def found(store, k=5):
    return [(d.id, round(s, 4)) for d, s in store.similarity_search_with_score_by_vector(query(), k=k)]


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_loaded_index_is_memory_mapped_and_answers_as_the_saved_store(tmp_path):
    store = store_of(30)
    store.save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, store.embeddings)
    assert loaded.memory_mapped and found(loaded) == found(store)


def test_the_first_add_after_loading_reads_the_index_into_memory_and_leaves_the_file_alone(tmp_path):
    store_of(30).save_local(tmp_path)
    before = sha256(tmp_path / "index" / "index.faiss")
    loaded = FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=DIM))
    loaded.add_texts(["a new one"], ids=["new"])
    assert not loaded.memory_mapped and len(loaded) == 31 and loaded.get_by_ids(["new"])[0].page_content == "a new one"
    assert sha256(tmp_path / "index" / "index.faiss") == before


def test_deleting_from_a_loaded_store_works_on_the_copy_in_memory(tmp_path):
    store_of(30).save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=DIM))
    loaded.delete(["d0", "d1"])
    assert len(loaded) == 28 and loaded.index.ntotal == 28 and "d0" not in [d.id for d, _ in
                                                                            loaded.similarity_search_with_score_by_vector(query(), k=28)]


def test_changing_a_loaded_index_directly_through_store_index_is_safe(tmp_path):
    # faiss aborts the whole process on a write to a mapped index: run it in a child.
    store_of(30).save_local(tmp_path)
    code = textwrap.dedent(f"""
        import numpy as np
        from rag.embeddings import DeterministicFakeEmbedding
        from stores import FAISS
        loaded = FAISS.load_local({str(tmp_path)!r}, DeterministicFakeEmbedding(size={DIM}))
        loaded.index.add_with_ids(np.ones((1, {DIM}), dtype=np.float32), np.array([1000]))
        print(loaded.index.ntotal, loaded.memory_mapped)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["31", "False"]


@pytest.mark.parametrize("factory", ["HNSW16", "IVF4,Flat"])
def test_approximate_indexes_load_mapped_and_accept_changes(tmp_path, factory):
    store = store_of(60, index_factory=factory)
    store.save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, store.embeddings)
    assert found(loaded) == found(store)
    loaded.delete(["d3"])
    loaded.add_texts(["added"], ids=["added"])
    assert len(loaded) == 60 and "d3" not in loaded._columns


def test_documents_are_saved_as_json_lines_of_column_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "BLOCK_ROWS", 4)
    store_of(10).save_local(tmp_path)
    lines = (tmp_path / "index" / "documents.jsonl").read_text(encoding="utf-8").splitlines()
    blocks = [json.loads(line) for line in lines]
    assert [len(block["ids"]) for block in blocks] == [4, 4, 2]
    assert blocks[0]["page_contents"][1] == "doc 1" and blocks[2]["metadatas"][1] == {"n": 9}


def flip_middle_byte(data):  # inside the vectors
    return data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 1]) + data[len(data) // 2 + 1 :]


@pytest.mark.parametrize("victim, alter", [("index.faiss", flip_middle_byte),
                                           ("documents.jsonl", lambda data: data.replace(b'"doc 7"', b'"dog 7"'))])
def test_an_altered_streamed_file_that_still_parses_is_refused_by_its_hash(tmp_path, victim, alter):
    store_of(30).save_local(tmp_path)
    path = tmp_path / "index" / victim
    altered = alter(path.read_bytes())
    assert altered != path.read_bytes()
    path.write_bytes(altered)
    with pytest.raises(CorruptIndexError, match="sha256"):
        FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=DIM))


def test_a_documents_file_cut_at_a_line_end_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "BLOCK_ROWS", 4)
    store_of(10).save_local(tmp_path)
    path = tmp_path / "index" / "documents.jsonl"
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:2]))  # valid JSON lines, one block gone
    with pytest.raises(CorruptIndexError, match="truncated"):
        FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=DIM))


def test_a_store_saved_in_format_1_still_loads(tmp_path):
    # Format 1 as save_local wrote it before: faiss's bytes in index.bin, one documents.json.
    store = store_of(12)
    labels, ids = store._columns.in_label_order()
    rows = [{"id": i, "page_content": store._columns.texts[i], "metadata": store._columns.metadatas[i]} for i in ids]
    manifest = Manifest(store_class="FAISS", model_id=store.embeddings.model_id, dimension=DIM,
                        distance_strategy="EUCLIDEAN_DISTANCE", config={"store_class": "FAISS", **store._config()},
                        format_version=1)
    write_index_folder(tmp_path / "index", manifest, {"documents": {"documents": rows}, "labels": labels,
                                                      "index": faiss.serialize_index(store.index).tobytes()})
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == ["documents.json", "index.bin", "labels.npy",
                                                                      "manifest.json"]
    loaded = FAISS.load_local(tmp_path, store.embeddings)
    assert found(loaded) == found(store) and not loaded.memory_mapped
    loaded.add_texts(["more"], ids=["more"])
    assert len(loaded) == 13


def test_a_load_reads_the_save_it_opened_even_when_a_later_save_replaces_the_folder(tmp_path):
    store_of(10, seed=1).save_local(tmp_path)
    folder = read_index_folder(tmp_path / "index", store_class="FAISS")
    store_of(20, seed=2).save_local(tmp_path)  # swapped in after the files were opened
    with folder:
        loaded = FAISS.from_sections(folder, DeterministicFakeEmbedding(size=DIM), folder.manifest.config)
    assert found(loaded) == found(store_of(10, seed=1)) and len(loaded) == 10
    loaded.add_texts(["after"], ids=["after"])  # the copy into memory reads the same opened file
    assert len(loaded) == 11 and loaded.index.ntotal == 11


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
metadata = st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                                                           texts, st.lists(st.integers(0, 9), max_size=3)), max_size=3)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(texts, metadata), min_size=1, max_size=12))
def test_any_texts_and_metadata_survive_a_save_and_load(tmp_path_factory, rows):
    # Newlines, U+2028, quotes and non-ASCII in texts and keys: each block stays one line.
    path = tmp_path_factory.mktemp("roundtrip")
    store = FAISS(DeterministicFakeEmbedding(size=DIM))
    vectors = np.random.default_rng(0).normal(size=(len(rows), DIM)).astype(np.float32)
    store.add_vectors(vectors, [Document(text, meta) for text, meta in rows], ids=[str(i) for i in range(len(rows))])
    store.save_local(path)
    loaded = FAISS.load_local(path, store.embeddings)
    ids = [str(i) for i in range(len(rows))]
    assert loaded.get_by_ids(ids) == store.get_by_ids(ids)


def test_where_no_descriptor_path_exists_the_index_is_read_by_its_name(tmp_path, monkeypatch):
    from stores import _faiss_index

    store_of(10).save_local(tmp_path)
    real_exists = _faiss_index.os.path.exists
    monkeypatch.setattr(_faiss_index.os.path, "exists", lambda path: not str(path).startswith(("/proc/self/fd", "/dev/fd"))
                        and real_exists(path))
    loaded = FAISS.load_local(tmp_path, DeterministicFakeEmbedding(size=DIM))
    assert loaded.memory_mapped and found(loaded) == found(store_of(10))
    loaded.add_texts(["more"], ids=["more"])  # read again, unmapped, by name
    assert len(loaded) == 11 and loaded._mapped_file is None
