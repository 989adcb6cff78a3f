"""Embedding fanned out: local worker processes and a real Dask cluster on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import ClusterConnectionError, MissingDependencyError, ValidationError, WorkerLostError
from rag.index import Index

REPO = Path(__file__).resolve().parents[2]


def _corpus(folder: Path, files: int = 30) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        (folder / f"doc-{n:03d}.md").write_text("\n\n".join(
            f"Document {n}, paragraph {p}: " + " ".join(f"term{n}x{p}x{w}" for w in range(30)) for p in range(4)))
    return folder


def _build(path: Path, docs: Path, **options) -> Index:
    index = Index.create(path, embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = 64  # several checkpoints, several fan-outs
    index.update([str(docs)], **options)
    return Index.open(path)


def _contents(index: Index) -> tuple[list[str], list[str], np.ndarray]:
    ids = sorted(chunk_id for chunk_ids in index.sources().values() for chunk_id in chunk_ids)
    store = index.backend._state.store
    return ids, [d.page_content for d in store.get_by_ids(ids)], store.get_vectors_by_ids(ids)


def _assert_same_index(got: Index, expected: Index) -> None:
    got_ids, got_texts, got_vectors = _contents(got)
    ids, texts, vectors = _contents(expected)
    assert got_ids == ids and got_texts == texts
    np.testing.assert_allclose(got_vectors, vectors, rtol=1e-6, atol=1e-7)


def test_local_workers_build_the_index_a_single_process_builds(tmp_path):
    docs = _corpus(tmp_path / "docs")
    _assert_same_index(_build(tmp_path / "workers", docs, workers=2), _build(tmp_path / "single", docs))


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_integer(tmp_path, workers):
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    with pytest.raises(ValidationError, match="workers must be"):
        index.update([str(_corpus(tmp_path / "docs", 1))], workers=workers)
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--workers", "-2"], ["--workers", "2", "--cluster", "tcp://127.0.0.1:1"]])
def test_bad_fan_out_options_are_usage_errors(tmp_path, argv):
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(tmp_path), "--index", str(tmp_path / "ix"),
                             "--embeddings", "hashing", *argv], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and ("--workers" in result.stderr)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_cluster_is_one_line_and_writes_nothing(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    docs = _corpus(tmp_path / "docs", 2)
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--index", str(tmp_path / "ix"),
                             "--embeddings", "hashing", "--cluster", address], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and address in result.stderr and "scheduler" in result.stderr
    assert not (tmp_path / "ix").exists()


class _Cluster:
    """A Dask scheduler and workers on 127.0.0.1, each a process of its own (no nanny, so a
    killed worker stays dead)."""

    def __init__(self, workers: int, env: dict[str, str]) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.env = env
        self.scheduler = self._start(["scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1],
                                      "--no-dashboard"])
        self.workers = [self._start(["worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                     "--host", "127.0.0.1"]) for _ in range(workers)]
        from distributed import Client

        try:
            with Client(self.address, timeout=60) as client:
                if workers:
                    client.wait_for_workers(workers, timeout=120)
                self.worker_pids = sorted(client.run(os.getpid).values())
        except BaseException:
            self.stop()  # never leave a scheduler or worker behind
            raise

    def _start(self, argv: list[str]) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "dask", *argv], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            process.kill()
            process.wait(timeout=30)


@pytest.fixture
def cluster() -> Iterator[_Cluster]:
    started = _Cluster(2, {**os.environ, "PYTHONPATH": str(REPO)})
    yield started
    started.stop()


def test_a_worker_killed_mid_run_costs_a_retry_and_every_chunk_is_committed_once(tmp_path, cluster):
    docs = _corpus(tmp_path / "docs", files=40)
    killed: list[int] = []

    def kill_one_worker(stage: str, done: int, total: int) -> None:
        if stage == "embed" and not killed:
            killed.append(cluster.worker_pids[-1])
            os.kill(cluster.worker_pids[-1], signal.SIGKILL)

    index = Index.create(tmp_path / "cluster", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = 64
    summary = index.update([str(docs)], cluster=cluster.address, progress=kill_one_worker)
    assert killed and summary.added == 40
    reference = _build(tmp_path / "single", docs)
    built = Index.open(tmp_path / "cluster")
    assert len(built) == len(reference) == summary.chunks
    _assert_same_index(built, reference)


def test_workers_without_the_model_extra_fail_naming_the_missing_package(tmp_path):
    # The worker's interpreter cannot import onnxruntime: as if the `local` extra were missing.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text("import sys\nsys.modules['onnxruntime'] = None\n")
    started = _Cluster(1, {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])})
    try:
        index = Index.create(tmp_path / "ix", embeddings="local")
        with pytest.raises(MissingDependencyError, match="onnxruntime"):
            index.update([str(_corpus(tmp_path / "docs", 2))], cluster=started.address)
    finally:
        started.stop()
    assert not (tmp_path / "ix" / "manifest.json").exists()


def test_an_unreachable_cluster_raises_a_connection_error_naming_it(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    with pytest.raises(ClusterConnectionError, match=f"cannot reach the Dask scheduler at {address}"):
        index.update([str(_corpus(tmp_path / "docs", 1))], cluster=address)


@pytest.mark.parametrize("address", ["127.0.0.1", "http://127.0.0.1:8786", "scheduler"])
def test_a_malformed_cluster_address_is_refused_naming_it(tmp_path, address):
    pytest.importorskip("distributed")
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    with pytest.raises(ValidationError, match=f"cluster must be a scheduler address .*{address!r}"):
        index.update([str(_corpus(tmp_path / "docs", 1))], cluster=address)
    assert not (tmp_path / "ix").exists()


def test_a_scheduler_without_workers_is_refused_naming_it(tmp_path):
    started = _Cluster(0, {**os.environ, "PYTHONPATH": str(REPO)})
    try:
        index = Index.create(tmp_path / "ix", embeddings="hashing")
        with pytest.raises(ClusterConnectionError, match="has no workers"):
            index.update([str(_corpus(tmp_path / "docs", 1))], cluster=started.address)
    finally:
        started.stop()
    assert not (tmp_path / "ix").exists()


def test_a_local_worker_killed_mid_run_keeps_the_checkpoints_and_a_rerun_finishes(tmp_path):
    import multiprocessing

    docs = _corpus(tmp_path / "docs", files=40)
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.checkpoint_chunks = 64
    killed: list[int] = []

    def kill_a_worker(stage: str, done: int, total: int) -> None:
        if stage == "embed" and not killed:
            worker = multiprocessing.active_children()[0]
            killed.append(worker.pid)
            os.kill(worker.pid, signal.SIGKILL)

    with pytest.raises(WorkerLostError, match="run the same command again"):
        index.update([str(docs)], workers=2, progress=kill_a_worker)
    assert killed
    rerun = Index.open(tmp_path / "ix")
    rerun.update([str(docs)])
    _assert_same_index(Index.open(tmp_path / "ix"), _build(tmp_path / "single", docs))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=80), max_size=150))
def test_embedding_longest_first_returns_each_vector_at_its_texts_position(texts):
    from rag.embeddings import HashingEmbeddings
    from rag.index.workers import embed_in_batches

    model = HashingEmbeddings(dim=64)
    expected = model.embed_documents_array(texts) if texts else np.empty((0, 64), dtype=np.float32)
    np.testing.assert_array_equal(embed_in_batches(model, list(texts), 64), expected)


def test_fanned_out_batches_come_back_in_the_order_of_the_texts():
    from rag.embeddings import HashingEmbeddings
    from rag.index.workers import ProcessEmbedder

    texts = [("word " * (n % 37)) + str(n) for n in range(200)]  # lengths not in order
    embedder = ProcessEmbedder("hashing", HashingEmbeddings().model_id, 1)
    try:
        vectors = embedder.embed(texts, None, None)
    finally:
        embedder.close()
    np.testing.assert_array_equal(vectors, HashingEmbeddings().embed_documents_array(texts))
