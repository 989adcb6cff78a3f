"""Citations a reader can follow: overlapping chunks merged into one source, sources with
their section and anchor, quotes with exact text and document offsets, uncited sources
apart, and citations to missing sources removed and reported."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loaders import ReadableHTMLLoader
from rag.chains import ExtractiveAnswerer, create_retrieval_chain
from rag.documents import Document
from rag.index import Answer, Index
from rag.index.passages import locate_quote, merge_sources
from rag.models import FakeListChatModel

PGDOC = Path(__file__).parent / "data" / "pgdoc"
ROOT = Path(__file__).resolve().parents[2]


def chunk(text, start, source="a.html", id=None, **metadata):
    return Document(text, {"source": source, "start_index": start, **metadata}, id)


def test_overlapping_chunks_of_one_document_become_one_source_numbered_by_its_best_rank():
    text = "alpha beta gamma delta epsilon zeta"
    first, second = chunk(text[:16], 0, id="c1"), chunk(text[11:], 11, id="c2")
    other = chunk("unrelated", 0, source="b.html", id="c3")
    merged = merge_sources([other, second, first])
    assert [(d.page_content, d.metadata["n"]) for d in merged] == [("unrelated", 1), (text, 2)]
    assert merged[1].metadata["start_index"] == 0 and merged[1].metadata["chunk_ids"] == ["c1", "c2"]


def test_distant_chunks_of_one_document_stay_apart():
    merged = merge_sources([chunk("one two", 0), chunk("five six", 500)])
    assert len(merged) == 2


def test_chunks_whose_offsets_disagree_with_their_text_are_not_spliced():
    assert len(merge_sources([chunk("alpha beta", 0), chunk("XXXX gamma", 6)])) == 2


def test_a_merged_sources_headings_are_shifted_to_its_text():
    text = "Intro text here.\n\nUsage\n\nMore text follows."
    first = chunk(text[:20], 0, section="Intro", anchor="intro")
    second = chunk(text[16:], 16, section="Intro", anchor="intro", headings=[[2, "Usage", "usage"]])
    [merged] = merge_sources([first, second])
    offset, title, anchor = merged.metadata["headings"][0]
    assert merged.page_content[offset:offset + 5] == "Usage" and anchor == "usage"


def test_a_quote_is_found_whatever_its_white_space():
    assert locate_quote("Paris is in\n  France.", "Paris is in France.") == (0, 21)
    assert locate_quote("Paris", "Rome") is None


def test_citations_to_missing_sources_are_removed_and_reported():
    context = [chunk("Paris is in France.", 0, n=1)]
    answer = Answer.from_result({"input": "q", "context": context, "answer": "Paris is in France. [1][4]"})
    assert answer.answer == "Paris is in France. [1]" and answer.invalid_citations == [4]


@pytest.fixture(scope="module")
def pg_index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pgcite")
    shutil.copytree(PGDOC, folder / "html")
    index = Index.create(folder / "index", embeddings="hashing")
    index.update([str(folder / "html")])
    return index, folder / "html"


def test_indexed_chunks_of_an_html_page_record_their_section_and_anchor(pg_index):
    index, _ = pg_index
    found = index.search("ALTER TABLE products DROP COLUMN description", k=1, search_type="bm25")
    metadata = found[0][0].metadata
    assert metadata["section"].startswith("5.6.") and metadata["anchor"].startswith("DDL-ALTER")


def test_each_citation_gives_the_exact_text_and_offsets_in_the_source_document(pg_index):
    index, html = pg_index
    answer = index.ask("How do I create an index on the id column?", k=4)
    assert answer.citations
    for citation in answer.citations:
        source = next(s for s in answer.sources if s.n == citation.n)
        text = ReadableHTMLLoader(source.source).load()[0].page_content  # the page as indexed
        assert text[citation.start:citation.end] == citation.text
        assert " ".join(citation.text.split()) in " ".join(answer.answer.split())


def test_sources_the_answer_does_not_cite_are_listed_apart(pg_index):
    index, _ = pg_index
    answer = index.ask("How do I create an index on the id column?", k=6)
    cited = {s.n for s in answer.cited_sources}
    assert cited and all(f"[{n}]" in answer.answer for n in cited)
    assert all(f"[{s.n}]" not in answer.answer for s in answer.also_retrieved)
    assert {s.n for s in answer.sources} == cited | {s.n for s in answer.also_retrieved}


def test_a_models_citation_to_a_missing_source_is_removed_and_reported(pg_index):
    index, _ = pg_index
    llm = FakeListChatModel(responses=["Use CREATE INDEX [1]. Also see [9]."])
    answer = index.ask("How do I create an index?", k=2, llm=llm)
    assert answer.answer == "Use CREATE INDEX [1]. Also see." and answer.invalid_citations == [9]


def rag(*args):
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, cwd=ROOT)


def test_rag_ask_lists_cited_sources_with_section_and_anchor_then_the_others(pg_index):
    index, _ = pg_index
    out = rag("ask", "How do I remove a column from a table?", "--index", str(index.path), "--k", "6")
    assert out.returncode == 0, out.stderr
    answer, _, rest = out.stdout.partition("\nSources:\n")
    cited, _, others = rest.partition("\nAlso retrieved:\n")
    assert "ddl-alter.html#DDL-ALTER" in cited and "(§ 5.6." in cited
    assert others.strip().startswith("[")


def test_rag_ask_json_quotes_each_citation_with_its_offsets(pg_index):
    index, _ = pg_index
    out = rag("ask", "How do I create an index on the id column?", "--index", str(index.path), "--json")
    data = json.loads(out.stdout)
    assert {"citations", "sources", "also_retrieved", "invalid_citations"} <= set(data)
    first = data["citations"][0]
    assert isinstance(first["start"], int) and first["end"] - first["start"] == len(first["text"])
    assert all(source["cited"] for source in data["sources"])


def test_a_table_quoted_from_another_passage_of_its_page_cites_that_passage_at_its_offsets():
    page = ("Lock modes differ in which other modes each conflicts with (see Table 13.2). Two transactions "
            "cannot hold locks of conflicting modes on the same table at the same time.\n\n"
            "Table 13.2. Conflicting Lock Modes\n\nRequested Lock Mode | Conflicts With\n\n"
            "SHARE | ROW EXCLUSIVE, EXCLUSIVE\nEXCLUSIVE | ALL MODES")
    cut = page.index("Table 13.2. C")
    context = [chunk(page[:cut], 0, source="lock.html", id="a", n=1),
               chunk("Indexes speed up lookups of rows in big tables.", 0, source="idx.html", id="b", n=2),
               chunk(page[cut:], cut, source="lock.html", id="c", n=3)]
    question = "Which lock modes conflict with each other?"
    answer = Answer.from_result(create_retrieval_chain(lambda _: context, ExtractiveAnswerer()).invoke({"input": question}))
    # Numbers follow the order of citation: a quote's passage is found by the number it cites.
    ids = {document.metadata["n"]: document.id for document in answer.context}
    quotes = {(ids[c.n], c.text.split("\n")[0]): (c.start, c.end) for c in answer.citations}
    table = quotes[("c", "Requested Lock Mode | Conflicts With")]
    assert ("a", "Lock modes differ in which other modes each conflicts with (see Table 13.2).") in quotes
    assert page[table[0]:table[1]] == page[page.index("Requested"):]


def test_a_cited_sources_section_and_anchor_are_those_in_force_at_its_quote():
    text = "Modifying Tables\n\nTables change over time.\n\nAdding a Column\n\nTo add a column, use ALTER TABLE ADD COLUMN."
    document = Document(text, metadata={"source": "ddl.html", "section": "Modifying Tables", "anchor": "DDL",
                                        "headings": [[0, "Modifying Tables", "DDL"],
                                                     [text.index("Adding"), "Adding a Column", "DDL-ADD"]]})
    answer = Answer("How do I add a column?", "To add a column, use ALTER TABLE ADD COLUMN. [1]", [document])
    source = answer.sources[0]
    assert (source.section, source.anchor) == ("Adding a Column", "DDL-ADD")
    assert (answer.citations[0].section, answer.citations[0].anchor) == ("Adding a Column", "DDL-ADD")


def test_an_uncited_sources_section_is_the_one_where_it_starts():
    document = Document("Intro text here.", metadata={"section": "Intro", "anchor": "I"})
    source = Answer("q", "Nothing quoted.", [document]).sources[0]
    assert (source.section, source.anchor, source.cited) == ("Intro", "I", False)
