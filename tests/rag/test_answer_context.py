"""The context of an answer: each retrieved chunk widened by its neighbours in its
document and the best documents by their opening chunks, fetched by the index's chunk ids."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.documents import Document
from rag.errors import ValidationError
from rag.index import Index
from rag.index.chunk_ids import around, chunk_ids, chunk_position
from rag.index.passages import merge_sources, with_context


def stored_document(source, parts):
    """The chunks of one document as the index stores them: its ids, offsets in order."""
    ids, offset, chunks = chunk_ids(source, len(parts)), 0, {}
    for chunk_id, text in zip(ids, parts):
        chunks[chunk_id] = Document(text, {"source": source, "start_index": offset, "kind": "doc"}, chunk_id)
        offset += len(text) + 2
    return chunks


def fetcher(*stores):
    everything = {k: v for store in stores for k, v in store.items()}
    calls = []

    def get_by_ids(ids):
        calls.append(list(ids))
        return [everything[i] for i in ids if i in everything]

    get_by_ids.calls = calls
    return get_by_ids


def hit(document, n):
    return Document(document.page_content, {**document.metadata, "n": n}, document.id)


@settings(deadline=None, max_examples=50)
@given(st.text(min_size=1, max_size=40), st.integers(0, 3000))
def test_a_chunk_id_names_its_documents_stem_and_position(source, count):
    ids = chunk_ids(source, count + 1)
    stem, n = chunk_position(ids[-1])
    assert n == count and ids[0].startswith(stem)
    assert around(stem, n, 1)[0] == ids[-2] if count else around(stem, 0, 1)[0] == ids[0]


def test_ids_of_another_scheme_have_no_position():
    assert chunk_position("doc-1") is None and chunk_position(7) is None
    assert chunk_position(str("0" * 16) + "-1") is None  # fewer than five digits


def test_a_chunk_is_followed_by_its_neighbours_numbered_as_it_is():
    doc = stored_document("a.html", ["zero", "one", "two", "three", "four"])
    ids = list(doc)
    found = with_context([hit(doc[ids[2]], 1)], fetcher(doc), window=1, openings=0)
    assert [(d.page_content, d.metadata["n"]) for d in found] == [("two", 1), ("one", 1), ("three", 1)]


def test_a_widened_chunk_merges_with_its_neighbours_into_one_source():
    doc = stored_document("a.html", ["zero", "one", "two", "three", "four"])
    ids = list(doc)
    other = stored_document("b.html", ["elsewhere"])
    context = with_context([hit(doc[ids[2]], 1), hit(other[list(other)[0]], 2)], fetcher(doc, other),
                           window=1, openings=0)
    merged = merge_sources(context)
    assert [d.page_content for d in merged] == ["one\n\ntwo\n\nthree", "elsewhere"]
    assert [d.metadata["n"] for d in merged] == [1, 2]


def test_the_best_documents_bring_their_opening_chunks():
    first = stored_document("a.html", [f"a{i}" for i in range(6)])
    second = stored_document("b.html", [f"b{i}" for i in range(6)])
    chunks = [hit(first[list(first)[4]], 1), hit(second[list(second)[4]], 2)]
    found = with_context(chunks, fetcher(first, second), window=0, openings=1)
    assert [d.page_content for d in found] == ["a4", "a0", "b4"]


def test_no_chunk_is_repeated_when_contexts_overlap():
    doc = stored_document("a.html", ["zero", "one", "two", "three"])
    ids = list(doc)
    found = with_context([hit(doc[ids[1]], 1), hit(doc[ids[2]], 2)], fetcher(doc), window=1, openings=1)
    assert sorted(d.id for d in found) == sorted(ids)
    assert len(found) == len({d.id for d in found})


def test_context_chunks_must_pass_the_searchs_filter():
    doc = stored_document("a.html", ["zero", "one", "two"])
    ids = list(doc)
    doc[ids[1]].metadata["kind"] = "draft"
    found = with_context([hit(doc[ids[2]], 1)], fetcher(doc), window=1, openings=1,
                         keep=lambda metadata: metadata["kind"] != "draft")
    assert [d.page_content for d in found] == ["two", "zero"]


def test_chunks_with_foreign_ids_get_no_context_and_nothing_is_fetched():
    get_by_ids = fetcher({})
    chunk = Document("text", {"n": 1}, "my-own-id")
    assert with_context([chunk], get_by_ids) == [chunk] and get_by_ids.calls == []


@pytest.mark.parametrize("name, value", [("window", -1), ("openings", 1.5), ("window", True)])
def test_a_bad_window_or_openings_is_refused_naming_it(name, value):
    with pytest.raises(ValidationError, match=name):
        with_context([], fetcher({}), **{name: value})


@pytest.fixture(scope="module")
def manual_index(tmp_path_factory):
    """A page whose example sits in the chunk after the one that asks for it."""
    folder = tmp_path_factory.mktemp("context")
    filler = " ".join(f"Filler sentence number {i} talks about nothing in particular." for i in range(12))
    page = (f"<html><head><title>Archiving</title></head><body><h1>Archiving</h1><p>{filler}</p>"
            "<h2>Making an archive of the warehouse</h2><p>The ledger of the warehouse grows every day, and "
            "the nightly rotation deletes the oldest ledger files, so an archive is worth making before it "
            "runs. To make an archive of the warehouse ledger, run the archiver with the ledger name as its "
            "only argument and the output redirected to a file kept somewhere safe, like this:</p>"
            "<pre>zz-archiver --ledger=warehouse &gt; ledger.tar</pre>"
            f"<p>{filler}</p></body></html>")
    (folder / "docs").mkdir()
    (folder / "docs" / "archiving.html").write_text(page)
    index = Index.create(folder / "index", embeddings="hashing", chunk_size=400, chunk_overlap=0)
    index.update([str(folder / "docs")])
    return index


def test_an_answer_quotes_the_example_from_the_chunk_after_the_retrieved_one(manual_index):
    question = "How do I make an archive of the warehouse ledger?"
    widened = manual_index.ask(question, k=1)
    alone = manual_index.ask(question, k=1, window=0, openings=0, contents=0, named=0)
    assert "zz-archiver --ledger=warehouse > ledger.tar" in widened.answer
    assert "zz-archiver" not in alone.answer
    assert len(widened.sources[0].chunk_ids) > len(alone.sources[0].chunk_ids) == 1
