"""Pages a question names by their file name ("git push" names git-push.html) join the
answer's context even when the search ranks other pages above them."""

import inspect

import pytest

from rag.index import Index
from rag.index.answer import IndexRetriever, passages
from rag.index.named_pages import named_pages, page_name


@pytest.mark.parametrize("source, name", [
    ("/usr/share/doc/git-doc/git-push.html", ("git", "push")),
    ("https://example.org/docs/pg_dump/", ("pg", "dump")),
    ("manual/ch01.en.html", None),  # one word names too much
    ("docs/index.html", None),
    ("a/b-c-d-e-f-g-h.html", None),  # seven words: not a name a question would say
])
def test_a_pages_name_is_the_words_of_its_file_name_without_extensions(source, name):
    assert page_name(source) == name


def test_a_question_names_the_page_whose_words_it_says_in_a_row():
    sources = ["m/git-push.html", "m/git-pull.html", "m/git-log.html"]
    assert named_pages("How do I delete a branch with git push?", sources) == ["m/git-push.html"]
    assert named_pages("How do I push with git?", sources) == []  # not in a row


def test_of_nested_names_only_the_longest_counts():
    sources = ["m/git-push.html", "m/git-push-certificate.html"]
    assert named_pages("What does git push certificate check?", sources, limit=2) == ["m/git-push-certificate.html"]


def test_a_name_two_pages_share_names_neither():
    assert named_pages("How do I use git push?", ["a/git-push.html", "b/git-push.txt"]) == []


def test_no_page_is_named_with_a_limit_of_zero_or_a_question_of_one_word():
    assert named_pages("git push", ["m/git-push.html"], limit=0) == []
    assert named_pages("push", ["m/push-x.html"]) == []


@pytest.fixture
def manual_index(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    # Many pages that share the question's words, and the page it names, which shares few.
    for n in range(8):
        (docs / f"branches-{n}.txt").write_text(
            f"Deleting a remote branch, topic {n}: a remote branch is deleted when the remote repository "
            "deletes it; deleting remote branches is how a remote repository stays tidy.\n")
    (docs / "tool-push.txt").write_text("Examples\n\ntool push origin :old\nRemoves old from origin.\n")
    index = Index.create(tmp_path / "index", embeddings="hashing", chunk_size=400, chunk_overlap=0)
    index.update([str(docs)])
    return index


def context_sources(index, question, **kwargs):
    defaults = inspect.signature(passages).parameters
    retriever = IndexRetriever(index, k=3)
    found = passages(retriever, get_by_ids=index.get_by_ids, window=0, openings=0, contents=0,
                     **{"named": defaults["named"].default, **kwargs}).invoke(question)
    return [document.metadata["source"].rsplit("/", 1)[-1] for document in found]


def test_the_page_a_question_names_joins_the_context_after_the_retrieved_passages(manual_index):
    question = "How do I delete a remote branch with tool push?"
    assert "tool-push.txt" not in context_sources(manual_index, question, named=0)
    sources = context_sources(manual_index, question)
    assert sources[-1] == "tool-push.txt" and len(sources) == 4


def test_a_named_page_already_retrieved_is_not_added_again(manual_index):
    sources = context_sources(manual_index, "tool push origin old removes", named=1)
    assert sources.count("tool-push.txt") == 1


def test_a_named_page_outside_the_searchs_filter_is_not_added(manual_index):
    allowed = [source for source in manual_index.sources() if "branches" in source]
    retriever = IndexRetriever(manual_index, k=3, filter={"source": {"$in": allowed}})
    found = passages(retriever, get_by_ids=manual_index.get_by_ids, window=0, openings=0, contents=0).invoke(
        "How do I delete a remote branch with tool push?")
    assert found and all(document.metadata["source"] in allowed for document in found)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
def test_a_bad_named_count_is_refused_naming_it(manual_index, bad):
    from rag.errors import ValidationError

    with pytest.raises(ValidationError, match="named must be an int >= 0"):
        manual_index.ask("How do I delete a remote branch with tool push?", named=bad)


def test_a_page_named_twice_is_named_once_and_man_pages_are_named_by_their_command():
    assert named_pages("git push or git push --force?", ["a/git-push.html", "a/git-pull.html"], limit=3) == \
        ["a/git-push.html"]
    assert page_name("/usr/share/man/man1/git-push.1.gz") == ("git", "push")


def test_a_named_page_brings_its_best_chunk_that_the_searchs_filter_lets_through(tmp_path):
    from rag.index.named_pages import with_named_pages
    from stores.filters import compile_filter

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tool-push.txt").write_text("tool push deletes a remote branch: tool push origin :old.\n\n" + "filler " * 80
                                        + "\n\nMore about it.\n")
    index = Index.create(tmp_path / "index", embeddings="hashing", chunk_size=200, chunk_overlap=0)
    index.update([str(docs)])
    page = next(iter(index.sources()))
    allowed = {"start_index": {"$gt": 0}}  # the page's best chunk (its first) is filtered out
    added = with_named_pages("How do I delete a remote branch with tool push?", [],
                             IndexRetriever(index, k=2, filter=allowed), 1, compile_filter(allowed))
    assert [d.metadata["source"] for d in added] == [page] and added[0].metadata["start_index"] > 0
