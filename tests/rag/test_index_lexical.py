"""BM25 over an index's segments, and building an index without holding it in memory."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.bm25.index import BM25Index, BM25Params
from rag.documents import Document
from rag.index import Index
from rag.index.lexical import LEXICAL_FILES, LexicalSettings, SegmentedBM25

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "kappa"]


def _corpus(folder: Path, files: int, paragraphs: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        text = "\n\n".join(f"File {n} paragraph {p} about {WORDS[(n + p) % len(WORDS)]}: " +
                           " ".join(f"word{n}x{p}x{w}" for w in range(25)) for p in range(paragraphs))
        (folder / f"doc-{n:03d}.md").write_text(text)
    old = time.time() - 10
    for path in folder.iterdir():
        os.utime(path, (old, old))
    return folder


def _index(path: Path, checkpoint_chunks: int = 8) -> Index:
    index = Index.create(path, embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = checkpoint_chunks
    return index


batches = st.lists(
    st.tuples(
        st.lists(st.tuples(st.integers(0, 7), st.lists(st.sampled_from(WORDS), min_size=0, max_size=6)),
                 max_size=5, unique_by=lambda row: row[0]),
        st.lists(st.integers(0, 7), max_size=3, unique=True),
    ),
    min_size=1, max_size=6,
)


@settings(deadline=None, max_examples=60)
@given(batches=batches, query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), settle=st.booleans(),
       consolidate=st.booleans())
def test_segmented_bm25_scores_equal_one_index_built_over_the_live_chunks(batches, query, settle, consolidate):
    settings_ = LexicalSettings.default()
    live: dict[str, str] = {}
    segmented = SegmentedBM25(settings_, lambda ids: [Document(live[i], {}, i) for i in ids])
    for rows, removed in batches:
        removed_ids = [f"c{n}" for n in removed if all(n != m for m, _ in rows)]
        for chunk_id in removed_ids:
            live.pop(chunk_id, None)
        ids = [f"c{n}" for n, _ in rows]
        texts = [" ".join(words) for _, words in rows]
        live.update(zip(ids, texts))
        segmented.remove(removed_ids)
        segmented.append(ids, settings_.postings(texts), settle=settle)
    if consolidate:
        segmented.consolidate()
    text = " ".join(query)
    got = {document.id: score for document, score in segmented.search_with_scores(text, k=10)}
    ids = list(live)
    reference = BM25Index.build(settings_.analyzer.analyze_many([live[i] for i in ids]), BM25Params())
    scores = reference.score(settings_.analyzer.analyze(text))
    expected = {ids[n]: float(scores[n]) for n in np.flatnonzero(scores > 0)}
    assert len(segmented) == len(live)
    assert got.keys() == expected.keys()
    assert all(got[i] == pytest.approx(expected[i], rel=1e-5) for i in got)


def test_a_filtered_lexical_search_ranks_only_matching_chunks():
    settings_ = LexicalSettings.default()
    documents = {f"c{n}": Document(f"alpha {'beta ' * n}", {"n": n}, f"c{n}") for n in range(6)}
    segmented = SegmentedBM25(settings_, lambda ids: [documents[i] for i in ids])
    segmented.append(list(documents), settings_.postings([d.page_content for d in documents.values()]))
    found = segmented.search_with_scores("alpha", k=2, predicate=lambda metadata: metadata["n"] % 2 == 1)
    assert sorted(d.metadata["n"] for d, _ in found) == [1, 3]


def test_building_an_index_streams_to_disk_without_holding_the_vectors(tmp_path):
    docs = _corpus(tmp_path / "docs", files=12)
    index = _index(tmp_path / "ix")
    summary = index.update([str(docs)])
    assert summary.added == 12 and not index.backend._state.loaded
    assert len(json.loads((tmp_path / "ix" / "manifest.json").read_text())["segments"]) > 1
    found = index.search("alpha", k=3)  # read from the segments on first need
    assert len(found) == 3 and index.backend._state.loaded


def test_each_segment_keeps_the_postings_of_its_own_chunks(tmp_path):
    docs = _corpus(tmp_path / "docs", files=6)
    _index(tmp_path / "ix").update([str(docs)])
    manifest = json.loads((tmp_path / "ix" / "manifest.json").read_text())
    assert manifest["bm25"] is None and not (tmp_path / "ix" / "bm25").exists()
    for entry in manifest["segments"]:
        assert set(LEXICAL_FILES) <= set(entry["files"])
        lengths = np.load(tmp_path / "ix" / "segments" / entry["name"] / "lengths.npy")
        assert lengths.shape == (entry["rows"],)


def test_an_edit_writes_one_segment_and_rewrites_no_postings(tmp_path):
    docs = _corpus(tmp_path / "docs", files=10)
    _index(tmp_path / "ix").update([str(docs)])
    before = {p.name for p in (tmp_path / "ix" / "segments").iterdir()}
    (docs / "doc-003.md").write_text("A single new paragraph about zebras and their stripes.")
    summary = Index.open(tmp_path / "ix").update([str(docs)])
    after = {p.name for p in (tmp_path / "ix" / "segments").iterdir()}
    assert summary.updated == 1 and before < after and len(after - before) == 1
    reopened = Index.open(tmp_path / "ix")
    top, _ = reopened.search("zebras stripes", k=1, search_type="bm25")[0]
    assert top.metadata["source"].endswith("doc-003.md")
    assert not reopened.search("word3x1x5", k=1, search_type="bm25")  # the old text is gone from BM25


def test_an_index_searches_the_same_in_memory_and_after_reopening(tmp_path):
    docs = _corpus(tmp_path / "docs", files=8)
    index = _index(tmp_path / "ix")
    index.update([str(docs)])
    index.search("alpha", k=1)  # in memory from here: the next update changes it in place
    (docs / "doc-001.md").write_text("Beta and gamma, rewritten.\n\nAnd a second paragraph about delta.")
    (docs / "doc-005.md").unlink()
    index.update([str(docs)])
    reopened = Index.open(tmp_path / "ix")
    for search_type in ("hybrid", "bm25", "similarity"):
        for query in ("alpha", "beta gamma", "delta paragraph"):
            warm = [(d.id, round(s, 6)) for d, s in index.search(query, k=6, search_type=search_type)]
            cold = [(d.id, round(s, 6)) for d, s in reopened.search(query, k=6, search_type=search_type)]
            assert warm == cold, (search_type, query)


def test_segments_without_postings_are_analysed_when_the_index_is_read(tmp_path):
    docs = _corpus(tmp_path / "docs", files=6)
    _index(tmp_path / "ix").update([str(docs)])
    expected = [(d.id, s) for d, s in Index.open(tmp_path / "ix").search("alpha beta", k=5, search_type="bm25")]
    manifest_path = tmp_path / "ix" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["segments"]:  # as an index written before segments held postings
        for name in LEXICAL_FILES:
            del entry["files"][name]
            (tmp_path / "ix" / "segments" / entry["name"] / name).unlink()
    del manifest["checksum"]  # such an index was also written before manifests had checksums
    manifest_path.write_text(json.dumps(manifest))
    got = [(d.id, s) for d, s in Index.open(tmp_path / "ix").search("alpha beta", k=5, search_type="bm25")]
    assert [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected])
