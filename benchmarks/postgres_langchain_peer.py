"""The langchain-postgres side of benchmarks/postgres.py, run in its own environment
(langchain-postgres needs pgvector<0.4, which the toolkit's `pgvector` extra does not pin):

    python3 -m venv /tmp/venv-lcpg
    /tmp/venv-lcpg/bin/pip install langchain-postgres==0.0.19 langchain-core==1.7.2 "psycopg[binary]" "pgvector<0.4" numpy

benchmarks/postgres.py runs it with ``--uri URI --data FILE.npz``; it prints one JSON line:
insert seconds, exact query times, and per ``ef_search`` the HNSW query times and ids.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True, help="postgresql+psycopg:// URI")
    parser.add_argument("--data", required=True, help=".npz with vectors (n, d) and queries (q, d)")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--ef", type=int, nargs="*", default=[])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import FakeEmbeddings
    from langchain_postgres import PGVector
    from sqlalchemy import text

    data = np.load(args.data)
    vectors, queries = data["vectors"], data["queries"]
    dimension = vectors.shape[1]
    fake = FakeEmbeddings(size=dimension)
    store = PGVector(fake, connection=args.uri, collection_name="peer", embedding_length=dimension,
                     pre_delete_collection=True)
    start = time.perf_counter()
    for first in range(0, len(vectors), args.batch):
        rows = vectors[first:first + args.batch]
        store.add_embeddings([f"doc {i}" for i in range(first, first + len(rows))], rows.tolist(),
                             [{"i": i} for i in range(first, first + len(rows))],
                             ids=[str(i) for i in range(first, first + len(rows))])
    result: dict = {"insert_seconds": time.perf_counter() - start, "count": len(vectors)}

    def run(target) -> tuple[list[float], list[list[int]]]:
        times, ids = [], []
        for query in queries:
            began = time.perf_counter()
            found = target.similarity_search_with_score_by_vector(query.tolist(), k=10)
            times.append(time.perf_counter() - began)
            ids.append([int(doc.id) for doc, _ in found])
        return times, ids

    result["exact_times"], result["exact_ids"] = run(store)
    if args.ef:
        with store._make_sync_session() as session:
            began = time.perf_counter()
            session.execute(text("CREATE INDEX IF NOT EXISTS peer_hnsw ON langchain_pg_embedding "
                                 "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"))
            session.commit()
            result["hnsw_build_seconds"] = time.perf_counter() - began
        result["hnsw"] = {}
        for ef in args.ef:
            tuned = PGVector(fake, connection=args.uri, collection_name="peer", embedding_length=dimension,
                             engine_args={"connect_args": {"options": f"-c hnsw.ef_search={ef}"}})
            times, ids = run(tuned)
            result["hnsw"][str(ef)] = {"times": times, "ids": ids}
    store.delete_collection()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
