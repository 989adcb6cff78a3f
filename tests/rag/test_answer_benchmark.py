"""The answer benchmark: QA.tsv parsing, the three checks of an answer, and
``rag bench --answers`` on an index of real PostgreSQL manual pages."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag.errors import ValidationError
from rag.chains.citations import cited_units
from rag.evaluation.answers import QAItem, load_qa, score_answer, summarize_scores

PGDOC = Path(__file__).parent / "data" / "pgdoc"
ROOT = Path(__file__).resolve().parents[2]


def write_qa(path: Path, rows: list[str]) -> Path:
    path.write_text("question\tkey_phrases\tsources\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_qa_rows_split_key_phrases_and_sources_on_bars(tmp_path):
    qa = write_qa(tmp_path / "qa.tsv", ["How do I index?\tCREATE INDEX x| DROP INDEX \tindexes-intro.html|a.html"])
    assert load_qa(qa) == [QAItem("How do I index?", ("CREATE INDEX x", "DROP INDEX"), ("indexes-intro.html", "a.html"))]


def test_a_qa_row_without_three_columns_is_refused_naming_its_line(tmp_path):
    qa = write_qa(tmp_path / "qa.tsv", ["Q one\tphrase\tsource.html", "Q two\tphrase only"])
    with pytest.raises(ValidationError, match="line 3: expected 3 tab-separated columns"):
        load_qa(qa)


def test_an_expected_source_matches_a_full_path_ending_in_it():
    item = QAItem("q", ("p",), ("backup-dump.html",))
    assert item.matches_source("/usr/share/doc/html/backup-dump.html")
    assert not item.matches_source("/usr/share/doc/html/xbackup-dump.html")


def test_cited_units_are_the_texts_before_each_group_of_marks():
    assert cited_units("One. [1] Two [2, 3]. Three [4][1] Trailing") == [
        ("One.", (1,)), ("Two", (2, 3)), ("Three", (4, 1))]


def test_brackets_inside_a_quote_followed_by_a_lower_case_word_are_not_citations():
    assert cited_units("In an integer range type [4,8] and (3,9) denote the same set of values. [1]") == [
        ("In an integer range type [4,8] and (3,9) denote the same set of values.", (1,))]


def test_a_quote_is_verbatim_when_found_in_its_source_after_collapsing_white_space():
    item = QAItem("q", ("create index",), ("a.html",))
    sources = {1: ("/docs/a.html", "Use\n  CREATE INDEX   t ON x;\nto index."), 2: ("/docs/b.html", "Other text.")}
    score = score_answer(item, "CREATE INDEX t ON x; [1] Made up sentence. [2] Unknown [7]", sources)
    assert (score.key_phrase, score.source_cited, score.units, score.verbatim) == (True, True, 3, 1)
    assert score.invalid == [7]


def test_overall_precision_counts_units_not_answers():
    item = QAItem("q", ("x y z",), ("a.html",))
    sources = {1: ("a.html", "alpha beta. gamma.")}
    scores = [score_answer(item, "alpha beta. [1] gamma. [1]", sources), score_answer(item, "delta. [1]", sources)]
    totals = summarize_scores(scores)
    assert (totals.precision, totals.units, totals.key_phrase, totals.source_cited) == (2 / 3, 3, 0.0, 1.0)


def rag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def pg_index(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pg")
    shutil.copytree(PGDOC, folder / "html")
    done = rag("index", str(folder / "html"), "--index", str(folder / "index"), "--embeddings", "hashing")
    assert done.returncode == 0, done.stderr
    return folder / "index"


def test_bench_answers_reports_each_question_and_the_overall_figures(pg_index, tmp_path):
    qa = write_qa(tmp_path / "qa.tsv", [
        "How do I create an index on the id column?\tCREATE INDEX test1_id_index ON test1 (id);\tindexes-intro.html",
        "How do I create a database?\tCREATE DATABASE name;\tmanage-ag-createdb.html",
    ])
    done = rag("bench", "--answers", str(qa), "--index", str(pg_index), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [q["question"] for q in report["questions"]] == [
        "How do I create an index on the id column?", "How do I create a database?"]
    assert report["model"] == "offline" and report["overall"]["questions"] == 2
    every = report["questions"]
    assert report["overall"]["source_cited"] == sum(q["source_cited"] for q in every) / 2
    assert all(0 <= q["verbatim"] <= q["units"] for q in every)


def test_bench_answers_without_the_qa_file_names_it(pg_index, tmp_path):
    done = rag("bench", "--answers", str(tmp_path / "missing.tsv"), "--index", str(pg_index))
    assert done.returncode == 1 and "no QA file at" in done.stderr and "missing.tsv" in done.stderr


def test_bench_without_dataset_or_answers_says_what_to_give():
    done = rag("bench")
    assert done.returncode == 1 and "--answers QA.tsv" in done.stderr


def test_bench_answers_with_a_model_asks_it_and_counts_invalid_citations(pg_index, tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from chat_completions_server import Reply, ScriptedServer, completion

    qa = write_qa(tmp_path / "qa.tsv", ["How do I create a database?\tCREATE DATABASE name;\tmanage-ag-createdb.html"])
    with ScriptedServer() as server:
        server.script(Reply(body=completion("Run CREATE DATABASE name; [1] as shown in [7].")))
        done = subprocess.run([sys.executable, "-m", "rag", "bench", "--answers", str(qa), "--index", str(pg_index),
                               "--model", "test-model", "--base-url", server.base_url, "--json"],
                              capture_output=True, text=True, cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": "sk-test"})
        assert done.returncode == 0, done.stderr
        assert "[1]" in server.requests[0]["messages"][0]["content"]
    [question] = json.loads(done.stdout)["questions"]
    assert question["key_phrase"] is True and question["invalid_citations"] == [7]
    assert json.loads(done.stdout)["model"] == "test-model"
