"""Loading a BEIR folder and benchmarking retrieval systems on it end to end."""

import json

import pytest

from rag.errors import ValidationError
from rag.index.registry import evaluation_store_factories
from rag.evaluation import BM25System, CONFIGURATIONS, build_systems, load_beir, run_benchmark


@pytest.fixture
def beir(tmp_path):
    corpus = [
        {"_id": "d1", "title": "Solar power", "text": "Panels turn sunlight into electricity."},
        {"_id": "d2", "title": "Wind power", "text": "Turbines turn moving air into electricity."},
        {"_id": "d3", "title": "", "text": "Cats sleep most of the day."},
    ]
    queries = [{"_id": "q1", "text": "sunlight panels"}, {"_id": "q2", "text": "sleeping cats"},
               {"_id": "q9", "text": "an unjudged query"}]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus))
    (tmp_path / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td3\t1\nq2\td2\t0\n")
    return tmp_path


def test_loading_keeps_only_judged_queries_with_graded_qrels(beir):
    data = load_beir(beir)
    assert data.doc_ids == ["d1", "d2", "d3"]
    assert set(data.queries) == {"q1", "q2"}
    assert data.qrels == {"q1": {"d1": 2}, "q2": {"d3": 1, "d2": 0}}


def test_passages_are_title_then_text(beir):
    passages = load_beir(beir).passages()
    assert passages[0] == "Solar power Panels turn sunlight into electricity." and passages[2] == "Cats sleep most of the day."


def test_documents_carry_the_beir_ids(beir):
    assert [d.id for d in load_beir(beir).documents()] == ["d1", "d2", "d3"]


def test_a_missing_split_names_the_file(beir):
    with pytest.raises(FileNotFoundError, match="dev.tsv"):
        load_beir(beir, split="dev")


def test_qrels_for_unknown_queries_are_refused(beir):
    with open(beir / "qrels" / "test.tsv", "a") as handle:
        handle.write("q404\td1\t1\n")
    with pytest.raises(ValidationError, match="q404"):
        load_beir(beir)


def test_bm25_finds_both_answers(beir):
    result = run_benchmark(load_beir(beir), BM25System("bm25"))
    assert result.metrics.ndcg_at_10 == 1.0 and result.metrics.queries == 2
    assert result.run["q1"][0] == "d1" and result.index_seconds > 0


def test_every_configuration_runs_end_to_end(beir):
    data = load_beir(beir)
    for system in build_systems(list(CONFIGURATIONS), store_factories=evaluation_store_factories()):
        result = run_benchmark(data, system, k=3)
        assert result.metrics.recall_at_100 > 0, system.name
        assert all(len(ranking) <= 3 for ranking in result.run.values())


def test_dense_systems_share_one_embedding_of_the_corpus(beir):
    data = load_beir(beir)
    first, second = build_systems(["minilm-faiss", "minilm-memory"], store_factories=evaluation_store_factories())
    run_benchmark(data, first)
    assert first.cached_seconds == 0.0
    run_benchmark(data, second)
    assert second.cached_seconds == first.embed_seconds > 0


def test_unknown_configurations_are_refused():
    with pytest.raises(ValueError, match="bm99"):
        build_systems(["bm99"], store_factories=evaluation_store_factories())


def test_a_score_that_is_not_an_integer_is_refused_naming_the_line(beir):
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\thigh\n")
    with pytest.raises(ValidationError, match=r"test.tsv:2: the score 'high' is not an integer"):
        load_beir(beir)


@pytest.mark.parametrize("line", ['{"_id": "q1"}', '["q1", "sunlight"]'])
def test_a_query_line_without_id_and_text_is_refused_naming_the_file(beir, line):
    (beir / "queries.jsonl").write_text(line + "\n")
    with pytest.raises(ValidationError, match="queries.jsonl: each line must be a JSON object with '_id' and 'text'"):
        load_beir(beir)


def test_a_corpus_that_is_not_utf8_is_refused_naming_the_file(beir):
    (beir / "corpus.jsonl").write_bytes(b'{"_id": "d1", "text": "caf\xe9"}\n')
    with pytest.raises(ValidationError, match="corpus.jsonl is not UTF-8 text"):
        load_beir(beir)
