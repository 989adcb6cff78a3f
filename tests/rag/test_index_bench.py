"""`rag bench` measures the system `rag index` builds and `rag search` runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.evaluation import load_beir
from rag.index import Index, IndexConfig, bench_dataset, bench_index
from rag.index.bench import chunks_per_query, rank_documents

TOPICS = {
    "d1": ("Otters", "Sea otters hold hands while sleeping so they do not drift apart on the water."),
    "d2": ("Volcanoes", "Volcanoes erupt molten rock, ash and gases from the mantle below the crust."),
    "d3": ("Bees", "Honey bees dance to tell the hive where flowers with nectar are found."),
    "d4": ("Glaciers", "Glaciers carve deep valleys over millennia as the ice slowly moves downhill."),
    "d5": ("Owls", "Owls hunt mice at night and can turn their heads far around."),
    "d6": ("Coral", "Coral reefs grow slowly in warm shallow seas and shelter many fish."),
}
QUERIES = {"q1": "why do bees dance", "q2": "sleeping otters", "q3": "how are valleys carved", "q4": "night hunting birds"}
QRELS = {"q1": "d3", "q2": "d1", "q3": "d4", "q4": "d5"}


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, env=dict(os.environ),
                          timeout=300)


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "tiny-beir"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in TOPICS.items()))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in QUERIES.items()))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in QRELS.items()))
    return root


def _search_ranking(index: Path, query: str, k: int, *extra: str) -> list[str]:
    result = rag("search", query, "--index", str(index), "--k", str(k), "--json", *extra)
    assert result.returncode == 0, result.stderr
    return list(dict.fromkeys(row["metadata"]["doc_id"] for row in json.loads(result.stdout)))


@pytest.mark.parametrize("search_type", ["hybrid", "similarity"])
def test_the_bench_of_an_index_ranks_exactly_as_rag_search(beir, tmp_path, search_type):
    indexed = rag("index", str(beir), "--beir", "--index", str(tmp_path / "ix"), "--embeddings", "hashing", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["added"] == len(TOPICS)
    run_file = tmp_path / "run.json"
    bench = rag("bench", str(beir), "--index", str(tmp_path / "ix"), "--type", search_type, "--json", "--save-run", str(run_file))
    assert bench.returncode == 0, bench.stderr
    run = json.loads(run_file.read_text())
    assert set(run) == set(QUERIES)
    for qid, query in QUERIES.items():
        assert run[qid] == _search_ranking(tmp_path / "ix", query, 100, "--type", search_type)[:100]


def test_split_documents_are_ranked_by_their_best_chunk_each_once(beir, tmp_path):
    index = Index.create(tmp_path / "ix", embeddings="hashing", chunk_size=40, chunk_overlap=0)
    index.update([str(beir)], beir=True)
    chunk_k = chunks_per_query(index, 100)
    assert chunk_k > 100 and len(index) > len(TOPICS)
    for query in QUERIES.values():
        ranking = rank_documents(index, query, k=100, chunk_k=chunk_k, search_type="hybrid")
        chunks = [d.metadata["doc_id"] for d, _ in index.search(query, k=chunk_k)]
        assert ranking == list(dict.fromkeys(chunks)) and len(ranking) == len(set(ranking))


def test_a_bench_without_an_index_builds_one_as_rag_index_would(beir, tmp_path):
    built = bench_dataset(beir, IndexConfig("hashing"), search_type="bm25")
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(beir)], beir=True)
    assert built.run == bench_index(index, load_beir(beir), search_type="bm25").run
    assert built.metrics.queries == len(QUERIES) and built.metrics.mrr_at_10 > 0.5


def test_an_index_that_does_not_hold_the_dataset_is_measured_on_a_copy_built_alike(beir, tmp_path):
    (tmp_path / "notes.txt").write_text("Unrelated notes about gardening.")
    assert rag("index", str(tmp_path / "notes.txt"), "--index", str(tmp_path / "ix"), "--embeddings", "hashing").returncode == 0
    result = rag("bench", str(beir), "--index", str(tmp_path / "ix"), "--type", "bm25", "--json")
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert row["queries"] == len(QUERIES) and row["mrr_at_10"] > 0.5


def test_an_index_holding_part_of_the_dataset_is_refused(beir, tmp_path):
    partial = tmp_path / "partial"
    (partial / "qrels").mkdir(parents=True)
    lines = (beir / "corpus.jsonl").read_text().splitlines(keepends=True)
    (partial / "corpus.jsonl").write_text("".join(lines[:3]))
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(partial)], beir=True)
    with pytest.raises(ValueError, match="holds 3 of the 6 documents"):
        bench_index(index, load_beir(beir))
