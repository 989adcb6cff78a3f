"""RecursiveJsonSplitter: LangChain's chunks (dicts and texts) for the same JSON, same sizes."""

from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag import Document
from splitters import RecursiveJsonSplitter

lc = pytest.importorskip("langchain_text_splitters")

# Keys json converts (ints, None, floats) and keys it must escape; leaves of every JSON type,
# non-ASCII and astral characters included (their \\u escapes count in the sizes).
keys = st.one_of(st.text(alphabet='abé"\\\n', max_size=3), st.integers(-3, 3), st.none(), st.just(1.5))
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(),
    st.text(alphabet="ab é\u2028🚀\n\"\\\x01", max_size=30),
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=25,
)
objects = st.dictionaries(keys, values, max_size=6)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int | None]:
    return draw(st.integers(1, 150)), draw(st.one_of(st.none(), st.integers(0, 150)))


@settings(deadline=None, max_examples=50)
@given(data=objects, size=sizes(), convert_lists=st.booleans(), ensure_ascii=st.booleans())
def test_json_texts_equal_langchain(data, size, convert_lists, ensure_ascii):
    ours = RecursiveJsonSplitter(*size).split_text(data, convert_lists, ensure_ascii)
    assert ours == lc.RecursiveJsonSplitter(*size).split_text(data, convert_lists, ensure_ascii)


@settings(deadline=None, max_examples=50)
@given(data=objects, size=sizes(), convert_lists=st.booleans())
def test_json_chunks_equal_langchain(data, size, convert_lists):
    ours = RecursiveJsonSplitter(*size).split_json(data, convert_lists)
    assert ours == lc.RecursiveJsonSplitter(*size).split_json(data, convert_lists)


@settings(deadline=None, max_examples=50)
@given(data=objects, size=sizes(), convert_lists=st.booleans())
def test_each_text_is_json_dumps_of_its_chunk(data, size, convert_lists):
    splitter = RecursiveJsonSplitter(*size)
    texts = splitter.split_text(data, convert_lists)
    assert texts == [json.dumps(chunk) for chunk in splitter.split_json(data, convert_lists)]


@pytest.mark.parametrize("size", [(2000, None), (300, None), (1000, 100), (80, 0)])
def test_real_records_split_as_langchain_splits_them(real_texts, size):
    ours, reference = RecursiveJsonSplitter(*size), lc.RecursiveJsonSplitter(*size)
    for text in real_texts[:80]:
        title, _, abstract = text.partition("\n\n")
        record = {"title": title, "sentences": re.split(r"(?<=\.) ", abstract), "meta": {}}
        assert ours.split_text(record) == reference.split_text(record)
        assert ours.split_text(record, convert_lists=True) == reference.split_text(record, convert_lists=True)


def test_documents_equal_langchains():
    data = [{"a": {"b": "x" * 30, "c": [1, 2, 3]}, "d": "é"}, {"e": None}]
    metadatas = [{"source": "one"}, {"source": "two"}]
    kwargs = dict(convert_lists=True, ensure_ascii=False, metadatas=metadatas)
    ours = RecursiveJsonSplitter(max_chunk_size=30).create_documents(data, **kwargs)
    reference = lc.RecursiveJsonSplitter(max_chunk_size=30).create_documents(data, **kwargs)
    assert [(d.page_content, d.metadata) for d in ours] == [
        (d.page_content, d.metadata) for d in reference
    ]
    assert all(isinstance(d, Document) for d in ours)


def test_document_metadata_is_copied_per_chunk():
    metadata = {"tags": ["a"]}
    documents = RecursiveJsonSplitter(max_chunk_size=12, min_chunk_size=0).create_documents(
        [{"a": "xxxxxxx", "b": "yyyyyyy"}], metadatas=[metadata]
    )
    documents[0].metadata["tags"].append("changed")
    assert metadata == {"tags": ["a"]} and documents[1].metadata == {"tags": ["a"]}


def test_min_chunk_size_defaults_to_200_below_max_but_at_least_50():
    assert RecursiveJsonSplitter().min_chunk_size == 1800
    assert RecursiveJsonSplitter(max_chunk_size=100).min_chunk_size == 50


def test_a_chunk_is_closed_only_once_it_reaches_min_chunk_size():
    data = {"a": "x" * 20, "b": "y" * 20}
    assert RecursiveJsonSplitter(max_chunk_size=30, min_chunk_size=100).split_text(data) == [
        '{"a": "xxxxxxxxxxxxxxxxxxxx", "b": "yyyyyyyyyyyyyyyyyyyy"}'
    ]


def test_an_empty_chunk_reaching_min_chunk_size_stays_as_in_langchain():
    data = {"a": "x" * 20, "b": "y" * 20}
    assert RecursiveJsonSplitter(max_chunk_size=10, min_chunk_size=0).split_json(data) == [
        {}, {"a": "x" * 20}, {"b": "y" * 20},
    ]


def test_nested_members_keep_their_path():
    data = {"outer": {"one": "1" * 20, "two": "2" * 20}}
    chunks = RecursiveJsonSplitter(max_chunk_size=40, min_chunk_size=10).split_json(data)
    assert chunks == [{"outer": {"one": "1" * 20}}, {"outer": {"two": "2" * 20}}]


def test_input_is_left_unchanged():
    data = {"a": {"b": ["x" * 30, {"c": "y" * 30}]}, "d": "z"}
    before = copy.deepcopy(data)
    RecursiveJsonSplitter(max_chunk_size=20).split_text(data, convert_lists=True)
    assert data == before


def test_empty_object_and_none_give_no_chunks():
    assert RecursiveJsonSplitter().split_json({}) == []
    assert RecursiveJsonSplitter().split_text(None) == []


def test_top_level_list_needs_convert_lists_with_langchains_message():
    with pytest.raises(TypeError, match=r"^json_data must be a dict, got list\. Top-level lists can be split by passing convert_lists=True\.$"):
        RecursiveJsonSplitter().split_json([1, 2])
    assert RecursiveJsonSplitter().split_json([1, {"a": [2]}], convert_lists=True) == [
        {"0": 1, "1": {"a": {"0": 2}}}
    ]


def test_a_string_is_not_json_data():
    with pytest.raises(TypeError, match=r"^json_data must be a dict, got str\.$"):
        RecursiveJsonSplitter().split_text('{"a": 1}')


def test_unserialisable_values_raise_jsons_type_error():
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        RecursiveJsonSplitter().split_text({"a": {1, 2}})


def test_non_integer_max_chunk_size_is_refused():
    """LangChain stores any value and fails (or misbehaves) on the first split; refused here."""
    with pytest.raises(TypeError, match="max_chunk_size must be an int, got str: '100'"):
        RecursiveJsonSplitter(max_chunk_size="100")


def test_zero_max_chunk_size_is_refused():
    """LangChain accepts 0 and then puts every leaf in a chunk of its own; refused here."""
    with pytest.raises(ValueError, match="max_chunk_size must be >= 1, got 0"):
        RecursiveJsonSplitter(max_chunk_size=0)


def test_negative_min_chunk_size_is_refused():
    """LangChain accepts it (and behaves as with 0); refused here."""
    with pytest.raises(ValueError, match="min_chunk_size must be >= 0, got -1"):
        RecursiveJsonSplitter(min_chunk_size=-1)


def test_metadatas_of_another_length_are_refused():
    """LangChain ignores extra metadata dicts and raises IndexError for missing ones; a
    ValueError naming both lengths here."""
    with pytest.raises(ValueError, match="metadatas has 1 entries but texts has 2"):
        RecursiveJsonSplitter().create_documents([{"a": 1}, {"b": 2}], metadatas=[{}])


def test_an_object_holding_itself_is_jsons_circular_reference_error():
    data = {"outer": {"text": "y" * 3000}}
    data["outer"]["loop"] = data["outer"]
    with pytest.raises(ValueError, match="Circular reference detected"):
        RecursiveJsonSplitter(max_chunk_size=50).split_text(data)
