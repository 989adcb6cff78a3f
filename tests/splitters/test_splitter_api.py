"""The public surface: parameters, validation, documents and metadata handling."""

from __future__ import annotations

import pytest

import splitters
from rag import Document
from rag.errors import ValidationError
from splitters import (
    CharacterTextSplitter,
    Language,
    RecursiveCharacterTextSplitter,
    TextSplitter,
)
from splitters._length import CachedLength


def test_public_names_are_exported():
    for name in [
        "TextSplitter", "CharacterTextSplitter", "RecursiveCharacterTextSplitter",
        "TokenTextSplitter", "MarkdownHeaderTextSplitter", "HTMLHeaderTextSplitter", "Language",
    ]:
        assert name in splitters.__all__
        assert getattr(splitters, name) is not None


def test_all_lists_only_existing_names():
    assert all(hasattr(splitters, name) for name in splitters.__all__)


def test_defaults_follow_langchain():
    splitter = RecursiveCharacterTextSplitter()
    assert (splitter._chunk_size, splitter._chunk_overlap) == (4000, 200)
    assert splitter._keep_separator is True
    assert splitter._separators == ["\n\n", "\n", " ", ""]
    character = CharacterTextSplitter()
    assert character._keep_separator is False and character._strip_whitespace is True
    assert character._length_function is len and character._add_start_index is False


def test_zero_chunk_size_is_refused_with_langchains_message():
    with pytest.raises(ValueError, match=r"^chunk_size must be > 0, got 0$"):
        RecursiveCharacterTextSplitter(chunk_size=0)


def test_negative_overlap_is_refused_with_langchains_message():
    with pytest.raises(ValueError, match=r"^chunk_overlap must be >= 0, got -1$"):
        RecursiveCharacterTextSplitter(chunk_overlap=-1)


def test_overlap_larger_than_size_is_refused_with_langchains_message():
    with pytest.raises(
        ValueError,
        match=r"Got a larger chunk overlap \(20\) than chunk size \(10\), should be smaller\.",
    ):
        RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=20)


def test_validation_errors_are_rag_validation_errors():
    with pytest.raises(ValidationError):
        CharacterTextSplitter(chunk_size=-5)


def test_non_integer_chunk_size_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="chunk_size must be an int, got str: '100'"):
        RecursiveCharacterTextSplitter(chunk_size="100")


def test_unknown_keep_separator_mode_is_refused():
    with pytest.raises(ValueError, match="keep_separator must be .* got 'middle'"):
        RecursiveCharacterTextSplitter(keep_separator="middle")


def test_non_callable_length_function_is_refused():
    with pytest.raises(TypeError, match="length_function must be callable"):
        CharacterTextSplitter(length_function=3)


def test_separator_regex_with_capturing_group_is_refused():
    with pytest.raises(ValueError, match=r"capturing groups.*\(\?:\.\.\.\)"):
        CharacterTextSplitter(separator=r"(\n)+", is_separator_regex=True)


def test_invalid_separator_regex_names_it():
    with pytest.raises(ValueError, match=r"'\[' is not a valid regular expression"):
        CharacterTextSplitter(separator="[", is_separator_regex=True)


def test_non_string_text_is_a_type_error():
    with pytest.raises(TypeError, match="text to split must be a str, got int: 42"):
        RecursiveCharacterTextSplitter().split_text(42)


def test_non_string_in_texts_is_a_type_error():
    with pytest.raises(TypeError, match="got NoneType"):
        RecursiveCharacterTextSplitter().create_documents(["fine", None])


def test_a_single_string_for_texts_is_a_type_error():
    with pytest.raises(TypeError, match="texts must be a list of str"):
        RecursiveCharacterTextSplitter().create_documents("not a list")


def test_empty_text_gives_no_chunks():
    assert RecursiveCharacterTextSplitter().split_text("") == []
    assert CharacterTextSplitter().split_text("") == []


def test_whitespace_only_text_gives_no_chunks():
    assert RecursiveCharacterTextSplitter(chunk_size=3, chunk_overlap=0).split_text(" \n\n \t ") == []


def test_metadata_list_of_wrong_length_is_a_value_error():
    with pytest.raises(ValueError, match="metadatas has 1 entries but texts has 2"):
        RecursiveCharacterTextSplitter().create_documents(["a", "b"], metadatas=[{}])


def test_create_documents_copies_metadata_per_chunk():
    metadata = {"source": "x", "tags": ["a"]}
    splitter = CharacterTextSplitter(separator=" ", chunk_size=3, chunk_overlap=0)
    documents = splitter.create_documents(["one two"], metadatas=[metadata])
    documents[0].metadata["tags"].append("changed")
    assert metadata == {"source": "x", "tags": ["a"]}
    assert documents[1].metadata == {"source": "x", "tags": ["a"]}


def test_split_documents_leaves_the_input_untouched():
    original = Document("alpha beta gamma", {"source": "s"}, id="7")
    splitter = RecursiveCharacterTextSplitter(chunk_size=6, chunk_overlap=0, add_start_index=True)
    chunks = splitter.split_documents([original])
    assert original == Document("alpha beta gamma", {"source": "s"}, id="7")
    assert [c.page_content for c in chunks] == ["alpha", "beta", "gamma"]
    assert [c.metadata for c in chunks] == [
        {"source": "s", "start_index": 0},
        {"source": "s", "start_index": 6},
        {"source": "s", "start_index": 11},
    ]


def test_transform_documents_splits_like_split_documents():
    splitter = RecursiveCharacterTextSplitter(chunk_size=6, chunk_overlap=0)
    documents = [Document("alpha beta"), Document("gamma")]
    assert splitter.transform_documents(documents) == splitter.split_documents(documents)


def test_chunks_without_start_index_have_no_start_index():
    documents = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0).create_documents(["a b c"])
    assert all("start_index" not in d.metadata for d in documents)


def test_keep_separator_end_attaches_separators_to_the_previous_piece():
    splitter = CharacterTextSplitter(
        separator=".", chunk_size=4, chunk_overlap=0, keep_separator="end"
    )
    assert splitter.split_text("ab.cd.ef") == ["ab.", "cd.", "ef"]


def test_keep_separator_start_attaches_separators_to_the_next_piece():
    splitter = CharacterTextSplitter(
        separator=".", chunk_size=4, chunk_overlap=0, keep_separator="start"
    )
    assert splitter.split_text("ab.cd.ef") == ["ab", ".cd", ".ef"]


def test_lookahead_separator_is_not_reinserted():
    splitter = CharacterTextSplitter(
        separator=r"(?=\d\.)", is_separator_regex=True, chunk_size=6, chunk_overlap=0
    )
    assert splitter.split_text("1. one 2. two") == ["1. one", "2. two"]


def test_from_language_uses_the_preset():
    splitter = RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=30, chunk_overlap=0)
    code = "def a():\n    return 1\n\ndef b():\n    return 2\n"
    assert splitter.split_text(code) == ["def a():\n    return 1", "def b():\n    return 2"]


def test_from_language_accepts_the_language_value():
    splitter = RecursiveCharacterTextSplitter.from_language("markdown", chunk_size=20, chunk_overlap=0)
    assert splitter._is_separator_regex is True


def test_language_without_preset_is_a_value_error():
    with pytest.raises(ValueError, match="'perl' has no separator preset"):
        RecursiveCharacterTextSplitter.get_separators_for_language(Language.PERL)


def test_unknown_language_is_a_value_error_listing_choices():
    with pytest.raises(ValueError, match="'klingon' is not supported; choose one of: cpp"):
        RecursiveCharacterTextSplitter.from_language("klingon")


def test_custom_length_function_measures_chunks():
    splitter = CharacterTextSplitter(
        separator=" ", chunk_size=2, chunk_overlap=0, length_function=lambda text: len(text.split())
    )
    assert splitter.split_text("a b c d e") == ["a b", "c d", "e"]


class _WordTokenizer:
    def tokenize(self, text):
        return text.split()


def test_huggingface_style_tokenizer_measures_in_tokens():
    splitter = CharacterTextSplitter.from_huggingface_tokenizer(
        _WordTokenizer(), separator=" ", chunk_size=2, chunk_overlap=0
    )
    assert splitter.split_text("a b c d e") == ["a b", "c d", "e"]


def test_object_without_tokenize_is_refused_as_tokenizer():
    with pytest.raises(ValueError, match="tokenizer must have a tokenize"):
        CharacterTextSplitter.from_huggingface_tokenizer(object())


def test_subclass_implementing_split_text_gets_documents_and_offsets():
    class Sentences(TextSplitter):
        def split_text(self, text):
            return [part.strip() + "." for part in text.split(".") if part.strip()]

    documents = Sentences(add_start_index=True).create_documents(["A b. A b. C."])
    assert [d.metadata["start_index"] for d in documents] == [0, 5, 10]


def test_merge_splits_is_available_to_subclasses():
    splitter = CharacterTextSplitter(chunk_size=5, chunk_overlap=0)
    assert splitter._merge_splits(["ab", "cd", "ef"], " ") == ["ab cd", "ef"]


def test_cached_length_measures_each_short_string_once():
    calls = []
    lengths = CachedLength(lambda text: calls.append(text) or len(text))
    assert [lengths("ab"), lengths("ab"), lengths("abc")] == [2, 2, 3]
    assert calls == ["ab", "abc"]


def test_cached_length_does_not_keep_long_strings():
    lengths = CachedLength(len, max_key_chars=3)
    assert lengths("abcdef") == 6
    assert "abcdef" not in lengths


def test_cached_length_empties_itself_when_full():
    lengths = CachedLength(len, max_entries=2)
    for word in ["a", "bb", "ccc"]:
        lengths(word)
    assert len(lengths) == 1


def test_overridden_split_text_is_used_for_documents_with_start_index():
    class Lowered(RecursiveCharacterTextSplitter):
        def split_text(self, text):
            return super().split_text(text.lower())

    splitter = Lowered(chunk_size=5, chunk_overlap=0, add_start_index=True)
    documents = splitter.create_documents(["AB CD"])
    assert [(d.page_content, d.metadata["start_index"]) for d in documents] == [("ab cd", -1)]
