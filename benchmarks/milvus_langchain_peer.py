"""The langchain-milvus side of benchmarks/milvus.py, run in its own environment
(langchain-milvus 0.4 needs pymilvus 3, the toolkit's ``milvus`` extra pins pymilvus<2.4):

    python3 -m venv /work/venv-lcmilvus
    /work/venv-lcmilvus/bin/pip install langchain-milvus==0.4.0 langchain-core==1.7.2 numpy

benchmarks/milvus.py runs it with ``--uri URI --data FILE.npz``; it prints one JSON line:
insert seconds, the seconds until the index covered every row, per ``ef`` the HNSW query
times and ids, and what langchain-milvus returns (relevance scores, ``Document.id``).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True)
    parser.add_argument("--data", required=True, help=".npz with vectors (n, d) and queries (q, d)")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--ef", type=int, nargs="*", default=[])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import FakeEmbeddings
    from langchain_milvus import Milvus
    from pymilvus import connections, utility

    data = np.load(args.data)
    vectors, queries = data["vectors"], data["queries"]
    index = {"index_type": "HNSW", "metric_type": "COSINE", "params": {"M": 16, "efConstruction": 64}}
    store = Milvus(FakeEmbeddings(size=vectors.shape[1]), collection_name="bench_langchain",
                   connection_args={"uri": args.uri}, index_params=index, consistency_level="Session",
                   drop_old=True, auto_id=False)
    began = time.perf_counter()
    for first in range(0, len(vectors), args.batch):
        rows = vectors[first:first + args.batch]
        numbers = range(first, first + len(rows))
        store.add_embeddings([f"doc {i}" for i in numbers], rows.tolist(), [{"i": i} for i in numbers],
                             ids=[str(i) for i in numbers])
    insert_seconds = time.perf_counter() - began
    began = time.perf_counter()
    store.client.flush("bench_langchain")
    connections.connect(alias="bench", uri=args.uri)  # the ORM's utility: langchain-milvus uses MilvusClient
    utility.wait_for_index_building_complete("bench_langchain", using="bench")
    indexed = utility.index_building_progress("bench_langchain", using="bench")["total_rows"]
    while sum(segment.num_rows for segment in utility.get_query_segment_info("bench_langchain", using="bench")
              if segment.state != 2) < indexed:
        time.sleep(0.05)  # until the query node serves the sealed, indexed segments (as ours)
    index_seconds = time.perf_counter() - began
    time.sleep(10)  # as benchmarks/milvus.py's SETTLE: the query node switches to the index a few seconds later
    hnsw = {}
    for ef in [*args.ef, *args.ef]:  # the first pass warms up (as benchmarks/milvus.py); the second is kept
        times, ids = [], []
        param = {"metric_type": "COSINE", "params": {"ef": max(ef, 10)}}
        for query in queries:
            t = time.perf_counter()
            found = store.similarity_search_with_score_by_vector(query.tolist(), k=10, param=param)
            times.append(time.perf_counter() - t)
            ids.append([int(doc.metadata["pk"]) for doc, _ in found])
        hnsw[str(ef)] = {"times": times, "ids": ids}
    # What a user sees: relevance for the query's farthest documents, and Document.id.
    store.embedding_func = _Fixed(-queries[0])  # the opposite of a stored neighbourhood
    scored = store.similarity_search_with_relevance_scores("q", k=10)
    print(json.dumps({"insert_seconds": insert_seconds, "index_seconds": index_seconds, "hnsw": hnsw,
                      "relevance": [score for _, score in scored], "raw": [s for _, s in store.similarity_search_with_score("q", k=3)],
                      "document_ids": [doc.id for doc, _ in scored[:3]]}))
    store.drop()


class _Fixed:
    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.vector for _ in texts]


if __name__ == "__main__":
    main()
