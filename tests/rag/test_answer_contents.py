"""Following a page's table of contents: a retrieved contents list whose entry matches the
question brings the chunk where that section begins into the answer's context."""

from rag.bm25.analysis import Analyzer
from rag.documents import Document
from rag.index import Index
from rag.index.chunk_ids import chunk_ids
from rag.index.passages import with_context
from rag.index.toc import section_start, toc_entry

analyze = Analyzer().analyze_many
CONTENTS = "5.6. Modifying Tables\n\n5.6.1. Adding a Column\n5.6.2. Removing a Column\n5.6.3. Adding a Constraint"


def terms(question):
    return set(analyze([question])[0])


def test_the_entry_sharing_the_most_terms_with_the_question_is_chosen():
    assert toc_entry(terms("How do I remove a column from a table?"), CONTENTS, analyze) == "5.6.2. Removing a Column"


def test_an_entry_sharing_one_term_only_is_not_followed():
    assert toc_entry(terms("Which column types exist?"), CONTENTS, analyze) is None


def test_text_without_a_list_of_entries_has_no_entry():
    assert toc_entry(terms("remove a column"), "5.6.2. Removing a Column\n\nTo remove a column, run this.", analyze) is None


def page(source="alter.html"):
    """A page stored as an index stores it: its contents list, then its sections, the one
    on removing a column starting in the fourth chunk."""
    parts = [CONTENTS, "Adding a column takes a command.", "More on adding.", "To remove a column, run DROP COLUMN.",
             "Constraints are added like this."]
    headings = [[], [[0, "5.6.1. Adding a Column", "A"]], [], [[0, "5.6.2. Removing a Column", "R"]],
                [[0, "5.6.3. Adding a Constraint", "C"]]]
    chunks, offset = {}, 0
    for chunk_id, text, marks in zip(chunk_ids(source, len(parts)), parts, headings):
        metadata = {"source": source, "start_index": offset, **({"headings": marks} if marks else {})}
        chunks[chunk_id] = Document(text, metadata, chunk_id)
        offset += len(text) + 2
    return chunks


def getter(chunks, calls=None):
    def get_by_ids(ids):
        if calls is not None:
            calls.append(list(ids))
        return [chunks[i] for i in ids if i in chunks]
    return get_by_ids


def test_the_section_starts_in_the_chunk_holding_its_heading():
    chunks = page()
    first, *_, fourth, _ = chunks
    assert section_start("5.6.2. Removing a Column", chunks[first], getter(chunks)).id == fourth


def test_a_section_not_found_after_the_contents_gives_nothing():
    chunks = page()
    assert section_start("9.9. Elsewhere", chunks[next(iter(chunks))], getter(chunks)) is None
    assert section_start("5.6.2. Removing a Column", Document(CONTENTS, {}, "doc-1"), getter(chunks)) is None


def test_a_retrieved_contents_list_brings_the_section_its_entry_names():
    chunks = page()
    ids = list(chunks)
    hit = Document(CONTENTS, {**chunks[ids[0]].metadata, "n": 1}, ids[0])
    found = with_context([hit], getter(chunks), window=1, openings=0, question="How do I remove a column?")
    assert [d.id for d in found] == [ids[0], ids[1], ids[3], ids[4]]
    assert {d.metadata["n"] for d in found} == {1}


def test_no_section_is_followed_without_the_question_or_with_contents_zero():
    chunks = page()
    ids = list(chunks)
    hit = Document(CONTENTS, {**chunks[ids[0]].metadata, "n": 1}, ids[0])
    plain = [d.id for d in with_context([hit], getter(chunks), window=0, openings=0)]
    off = [d.id for d in with_context([hit], getter(chunks), window=0, openings=0, question="remove a column",
                                      contents=0)]
    assert plain == off == [ids[0]]


def test_a_section_outside_the_search_filter_is_not_added():
    chunks = page()
    ids = list(chunks)
    hit = Document(CONTENTS, {**chunks[ids[0]].metadata, "n": 1}, ids[0])
    found = with_context([hit], getter(chunks), window=0, openings=0, question="How do I remove a column?",
                         keep=lambda metadata: "headings" not in metadata)
    assert [d.id for d in found] == [ids[0]]


CABINET_QUESTION = "How do I remove a widget from a cabinet?"


def cabinet_pages(folder):
    """A folder with one HTML page: a chapter's opening, its contents list, then three
    sections, the last on removing a widget, ending with the command that does it."""
    sections = "".join(
        f"<h2 id='s{n}'>3.{n}. {title}</h2><p>{body}</p>" for n, (title, body) in enumerate([
            ("Installing a Cabinet", "Cabinets arrive flat. " * 30),
            ("Painting a Cabinet", "Paint dries slowly in winter. " * 30),
            ("Removing a Widget", "Unscrew the panel first. To remove a widget, run this command:"),
        ], start=1))
    page_html = ("<html><head><title>Cabinets</title></head><body><h1>3. Cabinets and widgets</h1>"
                 "<p>This chapter explains widgets in a cabinet: how a widget sits in a cabinet, how to remove a "
                 "widget from a cabinet and how a cabinet holds widgets.</p>"
                 "<div class='toc'><p>3.1. Installing a Cabinet<br>3.2. Painting a Cabinet<br>3.3. Removing a Widget"
                 f"</p></div>{sections}<pre>cabinet-tool --eject widget-7</pre></body></html>")
    folder.mkdir()
    (folder / "cabinets.html").write_text(page_html)
    return folder


def test_an_answer_quotes_the_section_a_retrieved_contents_list_points_to(tmp_path):
    docs = cabinet_pages(tmp_path / "docs")
    index = Index.create(tmp_path / "index", embeddings="hashing", chunk_size=400, chunk_overlap=0)
    index.update([str(docs)])
    assert index.search(CABINET_QUESTION, k=1)[0][0].id.endswith("-00000")  # the contents list is what is retrieved
    followed = index.ask(CABINET_QUESTION, k=1, openings=0)
    alone = index.ask(CABINET_QUESTION, k=1, openings=0, contents=0)
    assert "cabinet-tool --eject widget-7" in followed.answer
    assert "cabinet-tool" not in alone.answer
