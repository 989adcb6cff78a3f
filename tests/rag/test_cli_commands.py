"""The `rag` command through a real subprocess: index, re-index, search, info, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


def rag(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=120)


def info(index: Path) -> dict:
    result = rag("info", "--index", str(index), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def summary(index: Path, *sources: str, extra: tuple[str, ...] = ()) -> dict:
    result = rag("index", *sources, "--index", str(index), "--embeddings", "hashing", "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_indexing_a_folder_adds_every_file(corpus, tmp_path):
    result = summary(tmp_path / "ix", str(corpus))
    assert (result["added"], result["updated"], result["skipped"], result["deleted"]) == (3, 0, 0, 0)
    facts = info(tmp_path / "ix")
    assert facts["sources"] == 3 and facts["chunks"] == 3 and facts["embeddings"] == "hashing"


def test_reindexing_unchanged_sources_skips_them(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    again = summary(tmp_path / "ix", str(corpus))
    assert (again["added"], again["updated"], again["skipped"], again["deleted"], again["chunks"]) == (0, 0, 3, 0, 0)


def test_reindexing_after_edit_add_and_delete_reports_each(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    (corpus / "cats.md").write_text("# Cats\n\nCats chase laser pointers at night.\n")
    (corpus / "birds.txt").write_text("Parrots can learn words and whistle tunes.\n")
    (corpus / "dogs.txt").unlink()
    result = summary(tmp_path / "ix", str(corpus))
    assert (result["added"], result["updated"], result["skipped"], result["deleted"]) == (1, 1, 1, 1)
    found = json.loads(rag("search", "postman bark", "--index", str(tmp_path / "ix"), "--json", "--k", "4").stdout)
    assert all("dogs.txt" not in row["source"] for row in found)
    assert info(tmp_path / "ix")["chunks"] == 3


def test_a_source_that_fails_to_load_is_kept_and_reported(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    (corpus / "dogs.txt").write_bytes(b"\x81\x8d\x8f\x90\x9d not decodable")
    result = summary(tmp_path / "ix", str(corpus))
    assert [Path(f["source"]).name for f in result["failed"]] == ["dogs.txt"]
    assert result["deleted"] == 0 and info(tmp_path / "ix")["sources"] == 3


def test_changing_the_chunk_size_rechunks_everything(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    result = summary(tmp_path / "ix", str(corpus), extra=("--chunk-size", "40", "--chunk-overlap", "5"))
    assert result["updated"] == 3 and info(tmp_path / "ix")["chunks"] > 3


def test_search_ranks_the_matching_chunk_first_with_its_source(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    for search_type in ("hybrid", "similarity", "mmr"):
        result = rag("search", "goldfish bowls", "--index", str(tmp_path / "ix"), "--type", search_type, "--json")
        rows = json.loads(result.stdout)
        assert rows[0]["source"].endswith("fish.md"), (search_type, rows)


def test_similarity_scores_are_relevances_and_threshold_filters(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    rows = json.loads(rag("search", "goldfish", "--index", str(tmp_path / "ix"), "--type", "similarity", "--json").stdout)
    assert all(0 <= row["relevance"] <= 1 for row in rows)
    kept = json.loads(rag("search", "goldfish", "--index", str(tmp_path / "ix"), "--type", "threshold",
                          "--threshold", "0.1", "--json").stdout)
    assert [r["source"] for r in kept] == [r["source"] for r in rows if r["relevance"] >= 0.1]


def test_search_prints_ranked_sources_as_text(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    out = rag("search", "dogs postman", "--index", str(tmp_path / "ix")).stdout
    assert out.startswith("1. [fused ") and "dogs.txt" in out.splitlines()[0]


def test_another_embedding_model_on_an_existing_index_is_refused_with_the_fix(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    result = rag("index", str(corpus), "--index", str(tmp_path / "ix"), "--embeddings", "openai:text-embedding-3-small")
    assert result.returncode == 1
    assert "built with --embeddings hashing" in result.stderr and "rebuild" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("index", "/no/such/folder"), 1, "does not exist"),
        (("index", "ftp://example.org/x"), 1, "only http and https"),
        (("index", "--embeddings", "word2vec", "."), 1, "not one of local, local-int8, hashing"),
        (("search", "q", "--index", "/no/such/index"), 1, "no index at /no/such/index"),
        (("search", "q", "--k", "0"), 2, "expected a positive integer"),
        (("search", "q", "--type", "fuzzy"), 2, "invalid choice"),
        (("index", ".", "--chunk-size", "100", "--chunk-overlap", "100"), 1, "must be smaller"),
        (("frobnicate",), 2, "invalid choice"),
    ],
)
def test_bad_arguments_exit_with_a_clear_one_line_message(args, code, message, tmp_path):
    result = rag(*args, cwd=tmp_path)
    assert result.returncode == code
    assert message in result.stderr and "Traceback" not in result.stderr


def test_verbose_shows_the_traceback(tmp_path):
    result = rag("--verbose", "index", "ftp://example.org/x", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" in result.stderr


@pytest.mark.parametrize("command", ["index", "search", "ask", "bench", "info", "trace"])
def test_every_command_has_help(command):
    result = rag(command, "--help")
    assert result.returncode == 0 and "usage: rag" in result.stdout


@pytest.fixture
def site(tmp_path: Path):
    root = tmp_path / "site"
    (root / "guide").mkdir(parents=True)
    (root / "index.html").write_text('<html><head><title>Home</title></head><body><h1>Home</h1>'
                                     '<p>Welcome to the otter sanctuary.</p><a href="guide/a.html">A</a></body></html>')
    (root / "guide" / "a.html").write_text('<html><head><title>Guide A</title></head><body><h1>Feeding</h1>'
                                           '<p>Otters eat fish and crabs twice a day.</p><a href="b.html">B</a></body></html>')
    (root / "guide" / "b.html").write_text('<html><head><title>Guide B</title></head><body><h1>Sleeping</h1>'
                                           '<p>Otters hold hands while they sleep.</p></body></html>')
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    base = f"http://127.0.0.1:{server.server_port}/"
    (root / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base}index.html</loc></url><url><loc>{base}guide/b.html</loc></url></urlset>")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base
    server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


def test_indexing_a_site_by_crawl_follows_links(site, tmp_path):
    result = summary(tmp_path / "ix", site + "index.html", extra=("--crawl", "2"))
    assert result["added"] == 3 and result["failed"] == []
    rows = json.loads(rag("search", "otters sleep holding hands", "--index", str(tmp_path / "ix"), "--json").stdout)
    assert rows[0]["source"].endswith("guide/b.html")


def test_indexing_a_sitemap_loads_its_pages(site, tmp_path):
    result = summary(tmp_path / "ix", site + "sitemap.xml", extra=("--sitemap",))
    assert result["added"] == 2
    assert sorted(Path(r).name for r in _sources(tmp_path / "ix")) == ["b.html", "index.html"]


def _sources(index: Path) -> list[str]:
    return [row["source"] for row in json.loads(rag("search", "otters", "--index", str(index), "--json", "--k", "10").stdout)]


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "tiny-beir"
    (root / "qrels").mkdir(parents=True)
    corpus = {"d1": "Otters hold hands while sleeping", "d2": "Volcanoes erupt molten rock",
              "d3": "Bees dance to share where flowers are", "d4": "Glaciers carve valleys over millennia"}
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in corpus.items()))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "why do bees dance"}) + "\n"
                                        + json.dumps({"_id": "q2", "text": "sleeping otters"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td3\t1\nq2\td1\t1\n")
    return root


def test_bench_reports_the_metrics_of_the_chosen_configuration(beir):
    result = rag("bench", str(beir), "--type", "bm25", "--json")
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert row["system"] == "bm25" and row["queries"] == 2 and row["ndcg_at_10"] == pytest.approx(1.0)


def test_bench_refuses_choosing_a_configuration_for_an_existing_index(beir, tmp_path):
    summary(tmp_path / "ix", str(beir), extra=("--beir",))
    result = rag("bench", str(beir), "--index", str(tmp_path / "ix"), "--embeddings", "hashing")
    assert result.returncode == 1 and "--embeddings cannot be combined with --index" in result.stderr


def test_ask_offline_answers_with_cited_sentences_and_numbered_sources(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    result = rag("ask", "What do goldfish swim in?", "--index", str(tmp_path / "ix"), "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert "Goldfish swim in bowls" in answer["answer"] and "[1]" in answer["answer"]
    assert answer["sources"][0]["n"] == 1 and answer["sources"][0]["source"].endswith("fish.md")


def test_ask_offline_streams_the_answer_then_lists_sources(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    out = rag("ask", "What do goldfish swim in?", "--index", str(tmp_path / "ix"), "--stream").stdout
    answer, _, sources = out.partition("\nSources:\n")
    assert "Goldfish swim in bowls" in answer and "[1]" in sources and "fish.md" in sources


def test_an_api_key_in_the_environment_alone_sends_nothing(corpus, tmp_path):
    from chat_completions_server import ScriptedServer

    summary(tmp_path / "ix", str(corpus))
    with ScriptedServer() as server:
        env = {"OPENAI_API_KEY": "sk-test-secret", "OPENAI_BASE_URL": server.base_url}
        result = rag("ask", "What do goldfish swim in?", "--index", str(tmp_path / "ix"), env=env)
        assert result.returncode == 0 and server.requests == []


def test_ask_through_a_local_openai_compatible_server_sends_the_passages(corpus, tmp_path):
    from chat_completions_server import Reply, ScriptedServer, completion

    summary(tmp_path / "ix", str(corpus))
    with ScriptedServer() as server:
        server.script(Reply(body=completion("They swim in bowls [1].")))
        result = rag("ask", "What do goldfish swim in?", "--index", str(tmp_path / "ix"), "--model", "test-model",
                     "--base-url", server.base_url, "--json", env={"OPENAI_API_KEY": "sk-test-secret"})
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["answer"] == "They swim in bowls [1]."
        [request] = server.requests
        assert request["model"] == "test-model"
        system = request["messages"][0]["content"]
        assert "[1] Fish" in system and "Goldfish swim in bowls" in system
        assert server.headers[0]["Authorization"] == "Bearer sk-test-secret"


def test_ask_records_a_trace_that_rag_trace_prints_as_a_tree(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    trace = tmp_path / "trace.jsonl"
    assert rag("ask", "goldfish?", "--index", str(tmp_path / "ix"), "--trace", str(trace)).returncode == 0
    printed = rag("trace", str(trace))
    assert printed.returncode == 0
    assert "IndexRetriever [retriever]" in printed.stdout and "ExtractiveAnswerer" in printed.stdout


def test_base_url_without_a_model_is_refused(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    result = rag("ask", "q", "--index", str(tmp_path / "ix"), "--base-url", "http://127.0.0.1:9")
    assert result.returncode == 1 and "--base-url needs --model" in result.stderr


def test_indexing_into_a_folder_of_other_files_is_refused_and_keeps_them(corpus, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "precious.txt").write_text("keep me")
    result = rag("index", str(corpus), "--index", str(tmp_path / "mine"), "--embeddings", "hashing")
    assert result.returncode == 1 and "not an index folder" in result.stderr
    assert (tmp_path / "mine" / "precious.txt").read_text() == "keep me"


def test_a_file_name_with_glob_characters_is_indexed_as_itself(tmp_path):
    (tmp_path / "notes[1].md").write_text("Apples are red and crunchy.\n")
    (tmp_path / "notes1.md").write_text("Oranges are a different file.\n")
    summary(tmp_path / "ix", str(tmp_path / "notes[1].md"))
    rows = json.loads(rag("search", "fruit", "--index", str(tmp_path / "ix"), "--json", "--type", "similarity").stdout)
    assert [Path(r["source"]).name for r in rows] == ["notes[1].md"]


def test_an_index_inside_the_indexed_folder_does_not_index_itself(corpus, tmp_path):
    index = corpus / "idx"
    for _ in range(3):
        summary(index, str(corpus))
    facts = info(index)
    assert facts["sources"] == 3 and facts["chunks"] == 3


def test_overlapping_roots_index_each_file_once(corpus, tmp_path):
    result = summary(tmp_path / "ix", str(corpus), str(corpus / "sub"))
    assert (result["added"], result["updated"]) == (3, 0)


def test_a_page_that_fails_on_a_later_run_is_kept(site, tmp_path):
    summary(tmp_path / "ix", site + "sitemap.xml", extra=("--sitemap",))
    site_root = tmp_path / "site"
    (site_root / "guide" / "b.html").unlink()  # now answers 404
    result = summary(tmp_path / "ix", site + "sitemap.xml", extra=("--sitemap",))
    assert [Path(f["source"]).name for f in result["failed"]] == ["b.html"] and result["deleted"] == 0
    assert info(tmp_path / "ix")["sources"] == 2
