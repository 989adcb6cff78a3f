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


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "cats.md").write_text("# Cats\n\nCats purr when they are content and sleep most of the day.\n")
    (folder / "dogs.txt").write_text("Dogs bark at the postman and love long walks in the park.\n")
    (folder / "sub" / "fish.md").write_text("# Fish\n\nGoldfish swim in bowls and remember more than people think.\n")
    return folder


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
    assert out.startswith("1. [rrf ") and "dogs.txt" in out.splitlines()[0]


def test_a_crash_in_the_middle_of_saving_leaves_the_previous_index(corpus, tmp_path):
    summary(tmp_path / "ix", str(corpus))
    (corpus / "new.txt").write_text("A brand new document about owls.\n")
    for point in ("mid-write", "before-swap"):
        crashed = rag("index", str(corpus), "--index", str(tmp_path / "ix"), env={"RAG_TEST_CRASH_AT": point})
        assert crashed.returncode == 70
        assert info(tmp_path / "ix")["sources"] == 3
    assert summary(tmp_path / "ix", str(corpus))["added"] == 1
    assert info(tmp_path / "ix")["sources"] == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "ix"]


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
        (("index", "--embeddings", "word2vec", "."), 1, "not one of local, hashing"),
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


@pytest.mark.parametrize("command", ["index", "search", "info", "bench", "demo"])
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


def test_bench_refuses_a_combination_it_cannot_measure_and_lists_the_choices(beir):
    result = rag("bench", str(beir), "--embeddings", "hashing", "--type", "hybrid")
    assert result.returncode == 1 and "--type bm25" in result.stderr
