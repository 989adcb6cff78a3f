"""``rag bench --answers`` inputs: a QA file with or without its header row, a file with
no question, and an index with nothing in it, each said plainly."""

import subprocess
import sys
from pathlib import Path

import pytest

from rag.errors import UsageError, ValidationError
from rag.evaluation.answers import QAItem, load_qa
from rag.index import Index
from rag.index.answer_bench import bench_answers

ROOT = Path(__file__).resolve().parents[2]
ROW = "How do I index?\tCREATE INDEX\tindexes.html"
ITEM = QAItem("How do I index?", ("CREATE INDEX",), ("indexes.html",))


def qa_file(tmp_path, text):
    path = tmp_path / "qa.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def rag(*args):
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, cwd=ROOT)


def test_a_file_without_a_header_row_keeps_its_first_question(tmp_path):
    assert load_qa(qa_file(tmp_path, f"{ROW}\nWhat is a view?\tCREATE VIEW\tviews.html\n"))[0] == ITEM


def test_a_header_row_is_not_read_as_a_question(tmp_path):
    assert load_qa(qa_file(tmp_path, f"question\tkey_phrases\tsources\n{ROW}\n")) == [ITEM]


@pytest.mark.parametrize("header", ["Question\tKey phrases\tSources", "QUERY\tphrases\tpaths", " questions \ta\tb"])
def test_a_header_is_recognised_by_its_first_cell_in_any_case(tmp_path, header):
    assert load_qa(qa_file(tmp_path, f"{header}\n{ROW}\n")) == [ITEM]


def test_a_row_errors_line_number_counts_from_the_files_first_line_without_a_header(tmp_path):
    with pytest.raises(ValidationError, match="line 2: expected 3 tab-separated columns"):
        load_qa(qa_file(tmp_path, f"{ROW}\nWhat is a view?\tCREATE VIEW\n"))


@pytest.mark.parametrize("text", ["", "question\tkey_phrases\tsources\n", "\n\n"])
def test_a_file_with_no_question_says_so(tmp_path, text):
    with pytest.raises(ValidationError, match="holds no questions: expected one question per line"):
        load_qa(qa_file(tmp_path, text))


@pytest.fixture
def empty_index(tmp_path):
    (tmp_path / "docs").mkdir()
    index = Index.create(tmp_path / "index", embeddings="hashing")
    index.update([str(tmp_path / "docs")])
    return index


def test_an_index_with_no_chunks_is_refused_saying_so(empty_index, tmp_path):
    with pytest.raises(UsageError, match="holds no chunks"):
        bench_answers(empty_index, [ITEM])


def test_rag_bench_answers_on_an_index_with_no_chunks_says_so(empty_index, tmp_path):
    done = rag("bench", "--answers", str(qa_file(tmp_path, f"{ROW}\n")), "--index", str(empty_index.path))
    assert done.returncode == 1 and "holds no chunks" in done.stderr and "rag index" in done.stderr
