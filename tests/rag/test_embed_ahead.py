"""Embedding one checkpoint while the next is prepared (rag.index.embed_ahead)."""

from __future__ import annotations

import threading
from typing import Optional

import numpy as np
import pytest

from rag.embeddings import HashingEmbeddings
from rag.index.embed_ahead import EmbedAhead, serialized
from rag.index.segments import Batch


class _Embedder:
    """Vectors [len(text), 0]; ``gate``: each call waits for it (up to 10 s) and records
    whether it was open; ``fail_on``: the call number (1-based) that raises."""

    def __init__(self, gate: Optional[threading.Event] = None, fail_on: Optional[int] = None) -> None:
        self.gate, self.fail_on, self.calls, self.gate_was_open = gate, fail_on, 0, []

    def embed(self, texts, dimension, progress):
        self.calls += 1
        if self.gate is not None:
            self.gate_was_open.append(self.gate.wait(timeout=10))
        if self.calls == self.fail_on:
            raise RuntimeError("model failed")
        return np.array([[float(len(text)), 0.0] for text in texts], dtype=np.float32).reshape(len(texts), 2)

    def close(self) -> None:
        pass


def _batch(*texts: str) -> Batch:
    return Batch(ids=[f"id-{text}" for text in texts], texts=list(texts), metadatas=[{} for _ in texts])


def _ahead(embedder, commits):
    return EmbedAhead(embedder, lambda batch, final: commits.append((list(batch.ids), batch.vectors, final)),
                      lambda batch: None, lambda: 2)


def test_checkpoints_are_committed_in_the_order_they_were_handed_over():
    commits: list = []
    ahead = _ahead(_Embedder(), commits)
    ahead.put(_batch("a", "bb"), [0, 1], {}, final=False)
    ahead.put(_batch("ccc"), [0], {}, final=False)
    ahead.put(_batch("dddd"), [0], {}, final=True)
    ahead.close()
    assert [ids for ids, _, _ in commits] == [["id-a", "id-bb"], ["id-ccc"], ["id-dddd"]]
    assert [final for _, _, final in commits] == [False, False, True]


def test_reused_vectors_and_embedded_ones_land_on_their_own_rows():
    commits: list = []
    ahead = _ahead(_Embedder(), commits)
    ahead.put(_batch("a", "bb", "ccc"), [0, 2], {1: np.array([7.0, 7.0], dtype=np.float32)}, final=True)
    ahead.close()
    assert commits[0][1].tolist() == [[1.0, 0.0], [7.0, 7.0], [3.0, 0.0]]


def test_handing_over_a_checkpoint_returns_before_the_model_has_embedded_it():
    gate = threading.Event()
    embedder, commits = _Embedder(gate), []
    ahead = _ahead(embedder, commits)
    ahead.put(_batch("a"), [0], {}, final=False)
    gate.set()  # reached only because put() did not wait for the model
    ahead.close()
    assert embedder.gate_was_open == [True]
    assert [ids for ids, _, _ in commits] == [["id-a"]]


def test_a_model_error_is_raised_and_nothing_of_that_checkpoint_is_written():
    commits: list = []
    ahead = _ahead(_Embedder(fail_on=2), commits)
    ahead.put(_batch("a"), [0], {}, final=False)
    ahead.put(_batch("bb"), [0], {}, final=False)
    with pytest.raises(RuntimeError, match="model failed"):
        ahead.put(_batch("ccc"), [0], {}, final=False)
    assert [ids for ids, _, _ in commits] == [["id-a"]]
    ahead.close(failed=True)


def test_a_checkpoint_in_flight_is_still_committed_when_the_caller_fails():
    commits: list = []
    ahead = _ahead(_Embedder(), commits)
    ahead.put(_batch("a"), [0], {}, final=False)
    ahead.close(failed=True)
    assert [ids for ids, _, _ in commits] == [["id-a"]]


def test_closing_after_a_caller_failure_does_not_replace_its_error_with_the_models():
    ahead = _ahead(_Embedder(fail_on=1), [])
    ahead.put(_batch("a"), [0], {}, final=False)
    ahead.close(failed=True)  # the model's error is not raised over the caller's


def test_phases_count_the_model_and_the_commits():
    ahead = _ahead(_Embedder(), [])
    ahead.put(_batch("a"), [0], {}, final=True)
    ahead.close()
    assert set(ahead.phases) == {"embed", "commit", "wait"}
    assert all(seconds >= 0 for seconds in ahead.phases.values())
    assert ahead.seconds_per_chunk is not None


def test_progress_reported_from_two_threads_is_never_interleaved():
    inside, overlaps = [0], []

    def progress(stage, done, total):
        inside[0] += 1
        overlaps.append(inside[0] > 1)
        for _ in range(50):
            pass
        inside[0] -= 1

    report = serialized(progress)
    threads = [threading.Thread(target=lambda: [report("embed", n, 500) for n in range(500)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(overlaps) == 2000 and not any(overlaps)


def test_a_text_met_again_is_not_embedded_again_and_gets_the_same_vector():
    from rag.index.embed_ahead import RecentVectors

    asked: list[list[str]] = []

    def embed(texts):
        asked.append(list(texts))
        return np.array([[float(len(t)), float(t.count("a"))] for t in texts], dtype=np.float32).reshape(-1, 2)

    recent = RecentVectors()
    first = recent.embed(["aa", "b", "aa"], embed)
    second = recent.embed(["b", "ccc"], embed)
    assert asked == [["aa", "b"], ["ccc"]]
    assert first.tolist() == [[2.0, 2.0], [1.0, 0.0], [2.0, 2.0]]
    assert second.tolist() == [[1.0, 0.0], [3.0, 0.0]]


def test_vectors_beyond_the_budget_are_forgotten_oldest_first():
    from rag.index.embed_ahead import RecentVectors

    asked: list[str] = []

    def embed(texts):
        asked.extend(texts)
        return np.ones((len(texts), 2), dtype=np.float32)

    recent = RecentVectors(budget=2 * 8)  # two vectors of two float32
    recent.embed(["a", "b", "c"], embed)
    recent.embed(["a", "c"], embed)  # "a" was forgotten, "c" was kept
    assert asked == ["a", "b", "c", "a"]


class CountingHashing(HashingEmbeddings):
    """Hashing embeddings that record every text they embed (class-wide)."""

    embedded: list[str] = []

    def embed_documents_array(self, texts):
        CountingHashing.embedded.extend(texts)
        return super().embed_documents_array(texts)


@pytest.fixture
def counting_spec():
    from rag.index import registry

    registry.register_embeddings(registry.EmbeddingModel("counting-test", f"{__name__}:CountingHashing"))
    CountingHashing.embedded = []
    yield "counting-test"
    registry._EMBEDDINGS.pop("counting-test")


def test_an_update_embeds_each_distinct_chunk_text_once(tmp_path, counting_spec):
    from rag.index import Index

    folder = tmp_path / "docs"
    folder.mkdir()
    shared = "A paragraph that every page repeats word for word. " * 3
    for n in range(5):
        (folder / f"page{n}.txt").write_text(f"Page {n} has its own opening line.\n\n" + shared * 20 + f"\n\nEnd {n}.")
    with Index.create(tmp_path / "ix", embeddings=counting_spec) as index:
        summary = index.update([str(folder)])
        ids = [c for record in index.backend.record.values() for c in record.chunk_ids]
        stored = [d.page_content for d in index.backend.store.get_by_ids(ids)]
    assert summary.chunks == len(stored) > len(set(stored))  # pages share chunks of equal text
    assert sorted(CountingHashing.embedded) == sorted(set(stored))
