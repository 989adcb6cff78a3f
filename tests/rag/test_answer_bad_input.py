"""Input the offline answerer must survive: pages without block structure, tables with
ragged rows, a huge single paragraph. Each gets an answer or the clear "no answer", never
an exception."""

from loaders import ReadableHTMLLoader
from rag.chains import NO_ANSWER, ExtractiveAnswerer
from rag.chains.candidates import READ_CHARS
from rag.documents import Document


def answer(question, documents):
    return ExtractiveAnswerer().invoke({"input": question, "context": documents})


def test_a_page_whose_text_sits_in_no_block_is_answered_from_its_text(tmp_path):
    page = tmp_path / "bare.html"
    page.write_text("<html><body>Backups are written to tape every night.</body></html>")
    assert answer("When are backups written?", ReadableHTMLLoader(page).load()) == \
        "Backups are written to tape every night. [1]"


def test_a_table_with_ragged_rows_is_quoted_whole(tmp_path):
    page = tmp_path / "ragged.html"
    page.write_text("<html><body><p>Each mode and what it keeps:</p><table>"
                    "<tr><th>mode</th><th>keeps</th><th>note</th></tr>"
                    "<tr><td>soft</td><td>index and tree</td></tr><tr><td>hard</td></tr></table></body></html>")
    documents = ReadableHTMLLoader(page).load()
    assert documents[0].metadata.get("blocks")
    quoted = answer("Which mode keeps the index and tree?", documents)
    assert "soft | index and tree" in quoted and "hard" in quoted


def test_a_50_mb_paragraph_is_read_up_to_the_limit_and_answered():
    text = "Backups are written to tape every night. " * (50_000_000 // 41)
    document = Document(text, metadata={"blocks": [[0, len(text), "paragraph"]]})
    assert answer("When are backups written?", [document]) == "Backups are written to tape every night. [1]"


def test_text_past_the_reading_limit_is_not_read():
    filler = "Mirrors sync from the archive. " * (READ_CHARS // 31 + 10)
    document = Document(filler + "Backups are written to tape every night.")
    assert "tape" not in answer("When are backups written to tape?", [document])


def test_a_50_mb_paragraph_without_a_sentence_end_gets_no_answer_rather_than_a_50_mb_quote():
    text = "backups tape night archive " * (50_000_000 // 27)
    assert answer("When are backups written?", [Document(text)]) == NO_ANSWER
