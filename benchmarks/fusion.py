"""Hybrid fusion on SciFact: reciprocal rank against the score fusions, over each side's own
candidates (zscore, minmax) and over their union with true scores (union-zscore, the
default, and union-minmax) (issue 43).

    python benchmarks/fusion.py [--data PATH] [--cache NPZ] [--splits 5] [--rounds 5]
                                [--latency-embeddings local|hashing] [--skip-latency]

1. Indexes SciFact (read in place) with MiniLM (FAISS flat, cosine: the ``minilm-faiss``
   configuration) and stemmed BM25, and keeps each side's scored top 100 for the 300 test
   queries in an ``.npz`` cache (default under /tmp: a rerun takes seconds).
   For the union fusions (``union-zscore``, ``union-minmax``: every candidate scored on
   both sides) it also keeps each side's true score of the other side's top 100 (dense
   relevance from the stored vectors, ``relevance_scores_by_ids``; BM25 from the full
   score array, ``scores_of``), in a second cache beside the first; the passage vectors
   are read from ``scifact-passages-minilm.npy`` there when present, else embedded.
2. Fuses the cached lists offline with ``rag.hybrid.fuse`` (what the index runs) for every
   fusion, lexical weight 0.1..0.9 (dense = 1 - lexical) and fetch_k 20/50/100. nDCG@10 is
   a k=10 search (each side gives max(fetch_k, 10)); recall@100 a k=100 search (each side
   gives 100, so fetch_k does not change it).
3. Held out: weight and fetch_k chosen by nDCG@10 on one half of the queries (sorted ids,
   alternate) and reported on the other, both ways; then seeded random 50/50 splits.
4. Latency: ``Index.search(q, k=10)`` (hybrid) on a folder index of SciFact (built once
   under /tmp, default MiniLM), each query under every fusion in turn (switched with
   ``Index.configure``), in rounds; p50, ratio to rrf, and ``fuse`` alone.
Needs the ``local`` extra. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.documents import Document  # noqa: E402
from rag.evaluation import BeirDataset, load_beir, ndcg_at_k, recall_at_k  # noqa: E402
from rag.hybrid import FUSIONS, HybridConfig, fuse  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "beir" / "scifact"
WORK = Path("/tmp/rag-fusion-bench")
DEPTH = 100  # candidates kept per side: recall@100 and every fetch_k below
LEXICAL_WEIGHTS = tuple(round(0.1 * step, 1) for step in range(1, 10))
FETCH_KS = (20, 50, 100)
Setting = tuple[str, float, int]  # (fusion, lexical weight, fetch_k)


@dataclass
class Candidates:
    """Each side's scored top ``DEPTH`` per query: positions in the corpus (-1 pads a short
    list) and scores (dense: relevance in [0, 1]; lexical: BM25)."""

    query_ids: list[str]
    dense_positions: np.ndarray
    dense_scores: np.ndarray
    lexical_positions: np.ndarray
    lexical_scores: np.ndarray

    def sides(self, row: int, docs: Sequence[Document], per_side: int) -> tuple[list[tuple[Document, float]], ...]:
        """The two ``(document, score)`` lists of query ``row``, ``per_side`` each at most."""
        return tuple([(docs[p], float(s)) for p, s in zip(positions[row, :per_side].tolist(), scores[row, :per_side].tolist())
                      if p >= 0] for positions, scores in ((self.dense_positions, self.dense_scores),
                                                           (self.lexical_positions, self.lexical_scores)))


def _matrix(rows: list[list[tuple[Document, float]]], position: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    positions, scores = np.full((len(rows), DEPTH), -1, np.int32), np.zeros((len(rows), DEPTH), np.float64)
    for i, row in enumerate(rows):
        positions[i, :len(row)] = [position[str(doc.id)] for doc, _ in row]
        scores[i, :len(row)] = [score for _, score in row]
    return positions, scores


def compute_candidates(dataset: BeirDataset, query_ids: list[str]) -> Candidates:
    """Index the corpus once per side and keep each side's top ``DEPTH`` for every query."""
    from rag.embeddings import LocalEmbeddings
    from rag.evaluation import BM25System, CorpusVectors, DenseSystem
    from rag.index.registry import evaluation_store_factories

    # As rag.evaluation.configurations builds "minilm-faiss" and the hybrid's stemmed "bm25".
    dense = DenseSystem("minilm-faiss", LocalEmbeddings(), evaluation_store_factories()["faiss"], CorpusVectors())
    lexical = BM25System("bm25")
    passages, queries = dataset.passages(), [dataset.queries[qid] for qid in query_ids]
    started = time.perf_counter()
    dense.index(dataset.doc_ids, passages)
    lexical.index(dataset.doc_ids, passages)
    position = {doc_id: i for i, doc_id in enumerate(dataset.doc_ids)}
    dense_matrix = _matrix(dense.search_scored(queries, DEPTH), position)
    lexical_matrix = _matrix(lexical.search_scored(queries, DEPTH), position)
    print(f"candidates computed in {time.perf_counter() - started:.1f} s")
    return Candidates(query_ids, *dense_matrix, *lexical_matrix)


def load_or_compute(dataset: BeirDataset, cache: Path) -> Candidates:
    """The cached candidates when they match ``dataset`` (no pickle), else computed and saved."""
    query_ids = sorted(dataset.queries)
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as data:
            if data["query_ids"].tolist() == query_ids and int(data["documents"]) == len(dataset.doc_ids):
                print(f"candidates read from {cache}")
                return Candidates(query_ids, *(data[name] for name in ("dense_positions", "dense_scores",
                                                                        "lexical_positions", "lexical_scores")))
    found = compute_candidates(dataset, query_ids)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(cache.name + ".partial.npz")
    np.savez(partial, query_ids=np.asarray(query_ids), documents=np.int64(len(dataset.doc_ids)),
             dense_positions=found.dense_positions, dense_scores=found.dense_scores,
             lexical_positions=found.lexical_positions, lexical_scores=found.lexical_scores)
    os.replace(partial, cache)  # atomic: a run cut short leaves no half-written cache
    return found


@dataclass
class TrueScores:
    """Each side's true score of the other side's candidates, aligned with
    :class:`Candidates`: ``dense_of_lexical[row, j]`` is the dense relevance of
    ``lexical_positions[row, j]``, ``lexical_of_dense[row, j]`` the BM25 of
    ``dense_positions[row, j]`` (0 where it holds no query term)."""

    dense_of_lexical: np.ndarray
    lexical_of_dense: np.ndarray

    def rescorers(self, cands: Candidates, row: int, position: dict[str, int]) -> tuple[Any, Any]:
        """``fuse``'s rescorers for query ``row``: every candidate's true score on each side."""
        sides = []
        for own_positions, own_scores, other_positions, other_scores in (
                (cands.dense_positions, cands.dense_scores, cands.lexical_positions, self.dense_of_lexical),
                (cands.lexical_positions, cands.lexical_scores, cands.dense_positions, self.lexical_of_dense)):
            known = dict(zip(other_positions[row].tolist(), other_scores[row].tolist()))
            known.update(zip(own_positions[row].tolist(), own_scores[row].tolist()))
            sides.append(lambda docs, known=known: [known[position[str(doc.id)]] for doc in docs])
        return sides[0], sides[1]


def load_or_compute_true_scores(dataset: BeirDataset, cands: Candidates, cache: Path) -> TrueScores:
    """The cached true scores when they match ``cands``, else computed (through the stores'
    and BM25's own ``relevance_scores_by_ids`` / ``scores_of``) and saved."""
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as data:
            if data["query_ids"].tolist() == cands.query_ids and int(data["documents"]) == len(dataset.doc_ids):
                print(f"true scores read from {cache}")
                return TrueScores(data["dense_of_lexical"], data["lexical_of_dense"])
    from rag.embeddings import LocalEmbeddings
    from rag.embeddings.base import embed_texts
    from rag.evaluation import BM25System
    from rag.index.registry import evaluation_store_factories

    started = time.perf_counter()
    embeddings, passages = LocalEmbeddings(), dataset.passages()
    kept = WORK / "scifact-passages-minilm.npy"
    vectors = np.load(kept) if kept.is_file() else None
    if vectors is None or vectors.shape[0] != len(passages):
        vectors = embed_texts(embeddings, list(passages))
    store = evaluation_store_factories()["faiss"](embeddings)
    store.add_vectors(vectors, [Document(text, {}, doc_id) for doc_id, text in zip(dataset.doc_ids, passages)],
                      ids=list(dataset.doc_ids))
    lexical = BM25System("bm25")
    lexical.index(dataset.doc_ids, passages)
    queries = [dataset.queries[qid] for qid in cands.query_ids]
    query_vectors = embed_texts(embeddings, queries)
    ids = np.asarray(dataset.doc_ids + [""])  # position -1 (padding) names no document
    dense_of_lexical = np.zeros(cands.lexical_positions.shape)
    lexical_of_dense = np.zeros(cands.dense_positions.shape)
    for row, (query, vector) in enumerate(zip(queries, query_vectors)):
        wanted = ids[cands.lexical_positions[row]].tolist()
        relevance = store.relevance_scores_by_ids(vector, [i for i in wanted if i])
        dense_of_lexical[row] = [relevance.get(i, 0.0) for i in wanted]
        wanted = ids[cands.dense_positions[row]].tolist()
        bm25 = lexical.retriever.scores_of(query, [i for i in wanted if i])
        lexical_of_dense[row] = [bm25.get(i, 0.0) for i in wanted]
    # The cached dense scores are this same relevance: a check that the vectors match.
    both = cands.dense_positions[0][:5]
    again = store.relevance_scores_by_ids(query_vectors[0], ids[both].tolist())
    drift = max(abs(again[i] - s) for i, s in zip(ids[both].tolist(), cands.dense_scores[0][:5].tolist()))
    print(f"true scores computed in {time.perf_counter() - started:.1f} s (vector check: max drift {drift:.1e})")
    partial = cache.with_name(cache.name + ".partial.npz")
    np.savez(partial, query_ids=np.asarray(cands.query_ids), documents=np.int64(len(dataset.doc_ids)),
             dense_of_lexical=dense_of_lexical, lexical_of_dense=lexical_of_dense)
    os.replace(partial, cache)
    return TrueScores(dense_of_lexical, lexical_of_dense)


def config_of(setting: Setting) -> HybridConfig:
    fusion, lexical, fetch_k = setting
    return HybridConfig(fetch_k=fetch_k, weights=(round(1 - lexical, 1), lexical), fusion=fusion)


def per_query(cands: Candidates, docs: Sequence[Document], qrels: dict[str, dict[str, int]], config: HybridConfig,
              k: int, metric: Callable[[Sequence[str], Any, int], float], truth: TrueScores) -> np.ndarray:
    """``metric`` at ``k`` of a k-result hybrid search, one value per query (cands' order)."""
    values = np.empty(len(cands.query_ids))
    position = {str(doc.id): p for p, doc in enumerate(docs)}
    for row, qid in enumerate(cands.query_ids):
        dense, lexical = cands.sides(row, docs, config.per_side(k))
        rescorers = truth.rescorers(cands, row, position) if config.rescores else None
        values[row] = metric([str(doc.id) for doc, _ in fuse(dense, lexical, config, k, rescorers)], qrels[qid], k)
    return values


def choose(ndcg: dict[Setting, np.ndarray], fusion: str, mask: np.ndarray) -> Setting:
    """The setting of ``fusion`` with the best mean nDCG@10 over ``mask`` (ties: grid order)."""
    settings = [s for s in ndcg if s[0] == fusion]
    return max(settings, key=lambda s: (float(ndcg[s][mask].mean()), -settings.index(s)))


def side_alone(cands: Candidates, docs: Sequence[Document], qrels: dict[str, dict[str, int]], side: int) -> str:
    """nDCG@10 / recall@100 of one side's own ranking, for reference."""
    runs = [[str(doc.id) for doc, _ in cands.sides(row, docs, DEPTH)[side]] for row in range(len(cands.query_ids))]
    judged = [qrels[qid] for qid in cands.query_ids]
    ndcg = np.mean([ndcg_at_k(run, j, 10) for run, j in zip(runs, judged)])
    recall = np.mean([recall_at_k(run, j, 100) for run, j in zip(runs, judged)])
    return f"{ndcg:.3f} | {recall:.3f}"


def fuse_microseconds(cands: Candidates, docs: Sequence[Document], rounds: int, truth: TrueScores) -> dict[str, float]:
    """``fuse`` alone (equal weights, fetch_k 20, k 10), µs per call, best of ``rounds``
    passes over all queries, fusions alternated (union fusions: rescoring from memory)."""
    position = {str(doc.id): p for p, doc in enumerate(docs)}
    lists = [(*cands.sides(row, docs, 20), truth.rescorers(cands, row, position)) for row in range(len(cands.query_ids))]
    best = {fusion: float("inf") for fusion in FUSIONS}
    for _ in range(rounds):
        for fusion in FUSIONS:
            config = HybridConfig(fusion=fusion)
            started = time.perf_counter()
            for dense, lexical, rescorers in lists:
                fuse(dense, lexical, config, 10, rescorers)
            best[fusion] = min(best[fusion], (time.perf_counter() - started) / len(lists) * 1e6)
    return best


def search_latency(data: Path, queries: list[str], embeddings: str, rounds: int) -> tuple[dict[str, list[float]], int]:
    """Seconds of each ``Index.search(q, k=10)`` (hybrid) per fusion, and the chunk count.
    The index is built once under WORK and reused. Each query is searched under every
    fusion in turn (``configure`` between, untimed), the order rotating with the query and
    the round, so load changes and warm caches hit the fusions alike."""
    from rag.errors import IndexNotFoundError
    from rag.index import Index

    folder = WORK / f"scifact-index-{embeddings}"
    try:
        index = Index.open(folder)
    except IndexNotFoundError:
        started = time.perf_counter()
        index = Index.create(folder, embeddings=embeddings)
        index.update([data], beir=True)
        print(f"index built in {time.perf_counter() - started:.1f} s ({folder})")
    samples: dict[str, list[float]] = {fusion: [] for fusion in FUSIONS}
    with index:
        for query in queries[:10]:  # warm up: model, store and postings loaded
            index.search(query, k=10)
        for round_number in range(rounds):
            for number, query in enumerate(queries):
                shift = (round_number + number) % len(FUSIONS)
                for fusion in FUSIONS[shift:] + FUSIONS[:shift]:
                    index.configure(hybrid=HybridConfig(fusion=fusion))
                    started = time.perf_counter()
                    index.search(query, k=10)
                    samples[fusion].append(time.perf_counter() - started)
        index.configure(hybrid=HybridConfig())
        chunks = len(index)
    return samples, chunks


def main(argv: list[str] | None = None) -> int:
    from rag.process_defaults import apply_process_defaults

    apply_process_defaults()  # an entry point: set before faiss and onnxruntime load
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR folder (default: SciFact)")
    parser.add_argument("--cache", type=Path, default=WORK / "scifact-candidates-100.npz", help="candidates cache")
    parser.add_argument("--splits", type=int, default=5, help="seeded random 50/50 splits (default 5)")
    parser.add_argument("--rounds", type=int, default=5, help="latency rounds, fusions alternated (default 5)")
    parser.add_argument("--latency-embeddings", default="local", choices=["local", "hashing"],
                        help="the timed index's embeddings (default local, MiniLM)")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with open("/proc/loadavg") as handle:
        print(f"load average at start: {handle.read().strip()}")

    dataset = load_beir(args.data)
    cands = load_or_compute(dataset, args.cache)
    truth = load_or_compute_true_scores(dataset, cands, args.cache.with_name(args.cache.stem + "-true.npz"))
    docs, qrels = dataset.documents(), dataset.qrels
    settings: list[Setting] = [(f, w, n) for f in FUSIONS for w in LEXICAL_WEIGHTS for n in FETCH_KS]
    ndcg = {s: per_query(cands, docs, qrels, config_of(s), 10, ndcg_at_k, truth) for s in settings}
    recall = {(f, w): per_query(cands, docs, qrels, config_of((f, w, 20)), 100, recall_at_k, truth)
              for f in FUSIONS for w in LEXICAL_WEIGHTS}
    print(f"{len(settings)} settings x {len(cands.query_ids)} queries fused in {time.perf_counter() - started:.1f} s")

    count = len(cands.query_ids)
    half_a = np.arange(count) % 2 == 0  # sorted query ids, alternate
    print(f"\n## Held out: tuned on one half (sorted ids, alternate; {half_a.sum()}/{(~half_a).sum()} queries), "
          "scored on the other\n")
    print("| fusion | tuned on | chosen lexical weight, fetch_k | nDCG@10 held out | recall@100 held out "
          "| untuned (0.5/0.5, 20) nDCG@10 | untuned recall@100 |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for fusion in FUSIONS:
        held_out = []
        for name, tune in (("A", half_a), ("B", ~half_a)):
            chosen = choose(ndcg, fusion, tune)
            score = ~tune
            untuned = (fusion, 0.5, 20)
            held_out.append((ndcg[chosen][score].mean(), recall[chosen[:2]][score].mean(),
                             ndcg[untuned][score].mean(), recall[untuned[:2]][score].mean()))
            print(f"| {fusion} | {name} -> {'B' if name == 'A' else 'A'} | {chosen[1]}, {chosen[2]} | "
                  + " | ".join(f"{v:.3f}" for v in held_out[-1]) + " |")
        both = np.mean(held_out, axis=0)  # equal halves: the mean is the whole set's
        print(f"| {fusion} | both halves | | " + " | ".join(f"**{v:.3f}**" for v in both) + " |")

    print(f"\n## Held out over {args.splits} seeded random 50/50 splits (tuned on each half, scored on the other)\n")
    print("| fusion | nDCG@10 held out, mean ± std | min - max | recall@100 held out, mean | settings chosen |")
    print("| --- | ---: | ---: | ---: | --- |")
    for fusion in FUSIONS:
        figures, recalls, chosen_all = [], [], []
        for seed in range(args.splits):
            mask = np.zeros(count, bool)
            mask[np.random.default_rng(seed).permutation(count)[: count // 2]] = True
            picks = [(choose(ndcg, fusion, tune), ~tune) for tune in (mask, ~mask)]
            figures.append(float(np.mean([ndcg[s][held].mean() for s, held in picks])))
            recalls.append(float(np.mean([recall[s[:2]][held].mean() for s, held in picks])))
            chosen_all += [f"{s[1]}/{s[2]}" for s, _ in picks]
        tally = ", ".join(f"{c} x{chosen_all.count(c)}" for c in sorted(set(chosen_all)))
        print(f"| {fusion} | {np.mean(figures):.3f} ± {np.std(figures, ddof=1):.3f} | {min(figures):.3f} - "
              f"{max(figures):.3f} | {np.mean(recalls):.3f} | {tally} |")

    print("\n## All 300 queries (in-sample, for reference)\n")
    print("| system | nDCG@10 | recall@100 |\n| --- | ---: | ---: |")
    print(f"| MiniLM alone | {side_alone(cands, docs, qrels, 0)} |\n| BM25 alone | {side_alone(cands, docs, qrels, 1)} |")
    for fusion in FUSIONS:
        untuned = (fusion, 0.5, 20)
        print(f"| {fusion}, untuned (0.5/0.5, fetch_k 20) | {ndcg[untuned].mean():.3f} | {recall[(fusion, 0.5)].mean():.3f} |")
        best = choose(ndcg, fusion, np.ones(count, bool))
        print(f"| {fusion}, best in-sample (lexical {best[1]}, fetch_k {best[2]}) | {ndcg[best].mean():.3f} | "
              f"{recall[best[:2]].mean():.3f} |")
    print(f"\nevaluation done in {time.perf_counter() - started:.1f} s")

    if not args.skip_latency:
        micro = fuse_microseconds(cands, docs, rounds=7, truth=truth)
        queries = [dataset.queries[qid] for qid in cands.query_ids]
        times, chunks = search_latency(args.data, queries, args.latency_embeddings, args.rounds)
        p50 = {fusion: statistics.median(values) for fusion, values in times.items()}
        print(f"\n## Latency: Index.search(q, k=10), hybrid, fetch_k 20, {args.latency_embeddings} embeddings, "
              f"{chunks} chunks, {len(queries)} queries x {args.rounds} rounds\n")
        print("| fusion | search p50 | p50 ratio to rrf | median paired ratio (same query, same round) "
              "| fuse() alone, µs/call (best of 7) | fuse() over rrf's, % of rrf search p50 |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for fusion in FUSIONS:
            paired = statistics.median(t / r for t, r in zip(times[fusion], times["rrf"]))
            extra = (micro[fusion] - micro["rrf"]) * 1e-6 / p50["rrf"] * 100
            print(f"| {fusion} | {p50[fusion] * 1e3:.2f} ms | {p50[fusion] / p50['rrf']:.3f} | {paired:.3f} | "
                  f"{micro[fusion]:.0f} | {extra:+.2f} % |")
    with open("/proc/loadavg") as handle:
        print(f"\nload average at end: {handle.read().strip()}; total {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
