"""Document: LangChain's shape as a dataclass."""

import pytest

from rag import Document


def test_page_content_is_positional_and_metadata_defaults_to_an_empty_dict():
    document = Document("hello")
    assert (document.page_content, document.metadata, document.id) == ("hello", {}, None)


def test_each_document_gets_its_own_metadata_dict():
    first, second = Document("a"), Document("b")
    first.metadata["x"] = 1
    assert second.metadata == {}


def test_numeric_ids_become_strings():
    assert Document("a", id=7).id == "7"


def test_equality_compares_content_metadata_and_id():
    assert Document("a", {"k": 1}, id="1") == Document("a", {"k": 1}, id="1")
    assert Document("a", {"k": 1}, id="1") != Document("a", {"k": 1}, id="2")
    assert Document("a", {"k": 1}) != Document("a", {"k": 2})


def test_non_string_content_raises_type_error_naming_the_type():
    with pytest.raises(TypeError, match="page_content must be a str, got int"):
        Document(42)


def test_str_matches_langchain_format():
    assert str(Document("hi", {"a": 1})) == "page_content='hi' metadata={'a': 1}"


def test_copy_does_not_share_metadata():
    original = Document("a", {"k": [1]})
    copied = original.copy()
    copied.metadata["k2"] = 2
    assert original.metadata == {"k": [1]} and copied == Document("a", {"k": [1], "k2": 2})
