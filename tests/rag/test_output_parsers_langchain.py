"""JsonOutputParser and CommaSeparatedListOutputParser against langchain-core 1.7.2's, on
the same text and the same chunks: values, cumulative streams, JSON-patch streams."""

import asyncio
import json

import pytest
from hypothesis import given, strategies as st

from rag.callbacks import BaseCallbackHandler
from rag.errors import OutputParserException
from rag.messages import AIMessageChunk
from rag.models import FakeListChatModel
from rag.parsers import CommaSeparatedListOutputParser, JsonOutputParser, parse_partial_json
from rag.json_patch import make_patch

lc_parsers = pytest.importorskip("langchain_core.output_parsers")
lc_exceptions = pytest.importorskip("langchain_core.exceptions")
lc_json = pytest.importorskip("langchain_core.utils.json")
lc_messages = pytest.importorskip("langchain_core.messages")
jsonpatch = pytest.importorskip("jsonpatch")

JSON_TEXTS = [
    '{"city": "Paris", "sights": ["Louvre", "Orsay"], "population": 2.1e6, "capital": true, "mayor": null}',
    '```json\n{"a": [1, {"b": "c"}]}\n```',
    'Here you go:\n```\n[1, 2, 3]\n```',
    '{"action": "search", "action_input": "line one\nline\ttwo"}',
    '{"truncated": ["yes", "no',
    '  "just a string"  ',
    '{"text": "raw\nnewline"}',
    "{]",  # mismatched brackets: None, not an error, in LangChain too
]


@pytest.mark.parametrize("text", JSON_TEXTS)
def test_json_invoke_matches_langchain(text):
    assert JsonOutputParser().invoke(text) == lc_parsers.JsonOutputParser().invoke(text)


@pytest.mark.parametrize("text", ["not json at all", "Sure: {oops}"])
def test_json_invoke_raises_an_output_parser_exception_where_langchain_does(text):
    with pytest.raises(lc_exceptions.OutputParserException):
        lc_parsers.JsonOutputParser().invoke(text)
    with pytest.raises(OutputParserException, match="Invalid json output") as info:
        JsonOutputParser().invoke(text)
    assert isinstance(info.value, ValueError) and info.value.llm_output == text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(alphabet="ab c\n\"\\é", max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=3),
                                                                  inner, max_size=4),
    max_leaves=12,
).filter(lambda value: isinstance(value, (dict, list)))


def chunked(text, cuts):
    points = sorted({min(max(cut, 0), len(text)) for cut in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


@given(value=JSON_VALUES, cuts=st.lists(st.integers(0, 200), max_size=12), ascii_only=st.booleans())
def test_json_cumulative_stream_matches_langchain(value, cuts, ascii_only):
    chunks = chunked(json.dumps(value, ensure_ascii=ascii_only), cuts)
    ours = list(JsonOutputParser().transform(iter(chunks)))
    theirs = list(lc_parsers.JsonOutputParser().transform(iter(chunks)))
    assert ours == theirs
    assert ours[-1] == value


@given(value=JSON_VALUES, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_json_diff_stream_builds_the_documents_langchains_builds(value, cuts):
    chunks = chunked(json.dumps(value, ensure_ascii=False), cuts)

    def documents(patches):
        document, built = None, []
        for patch in patches:
            document = jsonpatch.apply_patch(document, patch)
            built.append(document)
        return built

    ours = list(JsonOutputParser(diff=True).transform(iter(chunks)))
    theirs = list(lc_parsers.JsonOutputParser(diff=True).transform(iter(chunks)))
    assert len(ours) == len(theirs) and documents(ours) == documents(theirs)


GROWING_STREAMS = [
    ['{"answer": "The', ' capital', ' is Paris."', ', "sources": ["a', '.md", "b.md"]', ', "ok": true}'],
    ['[{"name": "x"', '}, {"na', 'me": "y", "tags": ["p', '", "q"]}]'],
    ['{"a": {"b": {"c": 1', '2, "d": [1, 2', ', 3]}}, "e": "f', 'g"}'],
]


@pytest.mark.parametrize("chunks", GROWING_STREAMS)
def test_json_diff_stream_of_a_growing_answer_is_langchains_operations(chunks):
    ours = list(JsonOutputParser(diff=True).transform(iter(chunks)))
    theirs = list(lc_parsers.JsonOutputParser(diff=True).transform(iter(chunks)))
    assert ours == theirs


@given(value=JSON_VALUES, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_applying_the_diff_stream_rebuilds_each_cumulative_value(value, cuts):
    chunks = chunked(json.dumps(value), cuts)
    document = None
    for patch, expected in zip(JsonOutputParser(diff=True).transform(iter(chunks)),
                               JsonOutputParser().transform(iter(chunks))):
        document = jsonpatch.apply_patch(document, patch)
        assert document == expected


@given(source=JSON_VALUES, target=JSON_VALUES)
def test_make_patch_turns_any_document_into_any_other(source, target):
    assert jsonpatch.apply_patch(source, make_patch(source, target)) == target


@pytest.mark.parametrize("text", ['{"a": "b', '[1, 2', '{"a": {"b": [', '{"a": "x\\', '{"a": 1, "b"', "}", "[}"])
def test_partial_json_completion_matches_langchain(text):
    assert parse_partial_json(text) == lc_json.parse_partial_json(text)


def test_message_chunks_stream_as_langchains_do():
    pieces = ['{"answer": "fo', 'rty', ' two", "sure": tr', 'ue}']
    ours = list(JsonOutputParser().transform(iter(AIMessageChunk(p) for p in pieces)))
    theirs = list(lc_parsers.JsonOutputParser().transform(iter(lc_messages.AIMessageChunk(content=p) for p in pieces)))
    assert ours == theirs == [{"answer": "fo"}, {"answer": "forty"}, {"answer": "forty two"},
                              {"answer": "forty two", "sure": True}]


def test_async_json_stream_matches_langchain():
    pieces = ['{"items": ["a', '", "b"', ', "c"]}']

    async def collect(parser):
        async def source():
            for piece in pieces:
                yield piece
        return [value async for value in parser.atransform(source())]

    assert asyncio.run(collect(JsonOutputParser(diff=True))) == asyncio.run(collect(lc_parsers.JsonOutputParser(diff=True)))


def test_a_model_chain_streams_the_growing_object():
    text = '{"title": "Rain", "tags": ["weather", "wet"]}'
    model = FakeListChatModel(responses=[text])
    chunks = [chunk.content for chunk in FakeListChatModel(responses=[text]).stream("go")]
    streamed = list((model | JsonOutputParser()).stream("go"))
    assert streamed == list(lc_parsers.JsonOutputParser().transform(iter(chunks)))
    assert streamed[-1] == json.loads(text) and len(streamed) > 1


def test_a_streamed_parser_run_ends_with_the_last_value_not_a_sum():
    ends = []

    class Ends(BaseCallbackHandler):
        def on_chain_end(self, outputs, **kwargs):
            ends.append(outputs)

    text = '{"a": "one two three"}'
    list((FakeListChatModel(responses=[text]) | JsonOutputParser()).stream("go", {"callbacks": [Ends()]}))
    assert {"a": "one two three"} in ends
    assert all(not (isinstance(o, dict) and o.get("a", "").startswith("oneone")) for o in ends)


def test_format_instructions_without_a_schema_match_langchain():
    assert JsonOutputParser().get_format_instructions() == lc_parsers.JsonOutputParser().get_format_instructions()


def test_format_instructions_show_a_pydantic_schema():
    pydantic = pytest.importorskip("pydantic")

    class Answer(pydantic.BaseModel):
        city: str

    instructions = JsonOutputParser(pydantic_object=Answer).get_format_instructions()
    assert '"city"' in instructions and '"title": "Answer"' not in instructions


# ---------------------------------------------------------------------- comma-separated lists

LIST_TEXTS = ["red, green, blue", "a,b,c", 'one, "two, three", four', "single", "", " spaced ,  out ", 'x, "unterminated']


@pytest.mark.parametrize("text", LIST_TEXTS)
def test_comma_list_invoke_matches_langchain(text):
    assert CommaSeparatedListOutputParser().invoke(text) == lc_parsers.CommaSeparatedListOutputParser().invoke(text)


@given(items=st.lists(st.text(alphabet="ab ,\"", min_size=1, max_size=5), min_size=1, max_size=6),
       cuts=st.lists(st.integers(0, 60), max_size=8))
def test_comma_list_stream_matches_langchain(items, cuts):
    chunks = chunked(", ".join(items), cuts)
    ours = list(CommaSeparatedListOutputParser().transform(iter(chunks)))
    theirs = list(lc_parsers.CommaSeparatedListOutputParser().transform(iter(chunks)))
    assert ours == theirs


def test_comma_list_async_stream_matches_langchain():
    pieces = ["apples, ba", "nanas, cher", "ries"]

    async def collect(parser):
        async def source():
            for piece in pieces:
                yield piece
        return [value async for value in parser.atransform(source())]

    ours = asyncio.run(collect(CommaSeparatedListOutputParser()))
    assert ours == asyncio.run(collect(lc_parsers.CommaSeparatedListOutputParser())) == [["apples"], ["bananas"], ["cherries"]]


def test_comma_list_format_instructions_match_langchain():
    assert (CommaSeparatedListOutputParser().get_format_instructions()
            == lc_parsers.CommaSeparatedListOutputParser().get_format_instructions())


def test_astream_log_final_output_of_a_json_chain_is_langchains():
    lc_fake = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    text = '{"title": "Rain", "tags": ["wet"]}'

    async def final(chain):
        state = None
        async for patch in chain.astream_log("go"):
            state = patch if state is None else state + patch
        return state.state["final_output"]

    ours = asyncio.run(final(FakeListChatModel(responses=[text]) | JsonOutputParser()))
    theirs = asyncio.run(final(lc_fake.FakeListChatModel(responses=[text]) | lc_parsers.JsonOutputParser()))
    assert ours == theirs == json.loads(text)
