"""Store add throughput with LangChain-style list embeddings vs the float32 array twins.

    python benchmarks/embedding_types.py            # 20,000 texts x 384 dimensions
    python benchmarks/embedding_types.py --quick    # 2,000 texts, a smoke run

The public ``embed_documents`` returns lists, as LangChain's does; the stores and the
indexer call ``embed_documents_array`` instead. This measures what that saves, side by side
in one run, for ``FAISS.add_texts`` and ``InMemoryVectorStore.add_texts``:

- ``array``: our store calling ``embed_documents_array`` (what it does);
- ``lists``: our store given the same model behind LangChain's list interface only (what
  every add would cost had the store called the public method);
- ``LangChain``: langchain-community's FAISS / langchain-core's InMemoryVectorStore with the
  same model (the ``bench`` extra).

Two models: ``precomputed`` returns rows of a fixed matrix (isolates the store path: the
conversion is then the whole difference) and ``hashing`` (``HashingEmbeddings``, a real
model whose own cost dilutes the difference). Ratios: other time / array time.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path[0] = str(Path(__file__).resolve().parents[1])  # the `stores` package, not this folder

from benchmarks._timing import fmt_time, paired  # noqa: E402

from rag.embeddings import Embeddings, HashingEmbeddings  # noqa: E402
from rag.process_defaults import apply_process_defaults  # noqa: E402
from stores import FAISS, InMemoryVectorStore  # noqa: E402

DIM = 384


class Precomputed(Embeddings):
    """Text i -> row i of a fixed random matrix (texts are "i"): no model cost."""

    def __init__(self, count: int) -> None:
        rows = np.random.default_rng(0).standard_normal((count, DIM), dtype=np.float32)
        self.rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        self.dimension = DIM

    def embed_documents_array(self, texts):
        return self.rows[np.fromiter((int(t) for t in texts), dtype=np.intp, count=len(texts))]


class ListsOnly:
    """The same model behind LangChain's interface alone (lists in, lists out)."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def lc_adapter(inner: Embeddings):
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    class Adapter(LCEmbeddings):
        def embed_documents(self, texts):
            return inner.embed_documents(texts)

        def embed_query(self, text):
            return inner.embed_query(text)

    return Adapter()


def measure(count: int, model_name: str) -> None:
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemory

    if model_name == "precomputed":
        model: Embeddings = Precomputed(count)
        texts = [str(i) for i in range(count)]
    else:
        model = HashingEmbeddings(dim=DIM)
        rng = np.random.default_rng(1)
        words = [f"w{i}" for i in range(5000)]
        texts = [" ".join(rng.choice(words, size=40)) for _ in range(count)]
    lists, peer = ListsOnly(model), lc_adapter(model)
    for store_name, ours_cls, peer_cls in (("FAISS", FAISS, LCFAISS), ("InMemoryVectorStore", InMemoryVectorStore, LCInMemory)):
        array_time, list_time = paired(lambda: ours_cls(embedding=model).add_texts(texts),
                                       lambda: ours_cls(embedding=lists).add_texts(texts), repeat=3, number=1)
        if peer_cls is LCFAISS:
            _, peer_time = paired(lambda: None, lambda: peer_cls.from_texts(texts, peer), repeat=1, number=1)
        else:
            _, peer_time = paired(lambda: None, lambda: peer_cls(peer).add_texts(texts), repeat=1, number=1)
        print(f"| {store_name}.add_texts, {model_name}, {count:,} texts | {fmt_time(array_time)} | "
              f"{fmt_time(list_time)} ({list_time / array_time:.2f}x) | {fmt_time(peer_time)} ({peer_time / array_time:.2f}x) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 texts instead of 20,000")
    args = parser.parse_args()
    apply_process_defaults()
    warnings.filterwarnings("ignore")
    count = 2_000 if args.quick else 20_000
    print("| add | array (ours) | lists (ratio) | LangChain (ratio) |")
    print("|---|---|---|---|")
    for model_name in ("precomputed", "hashing"):
        measure(count, model_name)


if __name__ == "__main__":
    main()
