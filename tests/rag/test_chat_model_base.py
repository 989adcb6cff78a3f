"""BaseChatModel behaviour through FakeListChatModel: input forms, streaming, callbacks, tools."""

import asyncio

import pytest

from rag.errors import ValidationError
from rag.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from rag.models import BaseChatModel, FakeListChatModel, LLMResult, convert_to_openai_tool
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate, PromptTemplate
from rag.runnables import RunnablePassthrough


class Recorder:
    def __init__(self):
        self.events = []

    def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs):
        self.events.append(("start", [m.content for m in messages[0]]))

    def on_llm_new_token(self, token, *, chunk, **kwargs):
        self.events.append(("token", token))

    def on_llm_end(self, response, **kwargs):
        self.events.append(("end", response.generations[0][0].message.content))
        self.last = response

    def on_llm_error(self, error, **kwargs):
        self.events.append(("error", str(error)))


def test_replies_come_in_order_and_cycle():
    model = FakeListChatModel(responses=["a", "b"])
    assert [model.invoke("x").content for _ in range(3)] == ["a", "b", "a"]


def test_a_string_a_message_list_and_a_prompt_value_are_all_accepted():
    model = FakeListChatModel(responses=["ok"])
    value = PromptTemplate.from_template("{q}").invoke({"q": "hi"})
    for given in ("hi", [HumanMessage("hi")], [("human", "hi")], value):
        assert model.invoke(given).content == "ok"


def test_other_input_is_refused_by_type():
    with pytest.raises(ValidationError, match="takes a str, a list of messages or a prompt value, got int"):
        FakeListChatModel(responses=["x"]).invoke(42)


def test_stream_is_word_by_word_and_adds_up_to_the_reply():
    chunks = list(FakeListChatModel(responses=["The quick  fox"]).stream("x"))
    assert [c.content for c in chunks] == ["The ", "quick  ", "fox"]
    assert sum(chunks, AIMessageChunk("")).content == "The quick  fox"


def test_callbacks_fire_on_start_each_token_and_end():
    recorder = Recorder()
    list(FakeListChatModel(responses=["a b"]).stream("hi", {"callbacks": [recorder]}))
    assert recorder.events == [("start", ["hi"]), ("token", "a "), ("token", "b"), ("end", "a b")]
    assert isinstance(recorder.last, LLMResult)


def test_callbacks_fire_on_error():
    class Failing(BaseChatModel):
        def _generate(self, messages, stop=None, **kwargs):
            raise RuntimeError("model down")

    recorder = Recorder()
    with pytest.raises(RuntimeError):
        Failing().invoke("hi", {"callbacks": [recorder]})
    assert recorder.events == [("start", ["hi"]), ("error", "model down")]


def test_async_callbacks_fire_the_same_events():
    recorder = Recorder()

    async def run():
        return [c.content async for c in FakeListChatModel(responses=["x y"]).astream("q", {"callbacks": [recorder]})]

    assert asyncio.run(run()) == ["x ", "y"]
    assert recorder.events == [("start", ["q"]), ("token", "x "), ("token", "y"), ("end", "x y")]


def test_a_model_without_stream_streams_its_whole_reply_as_one_chunk():
    class Whole(BaseChatModel):
        def _generate(self, messages, stop=None, **kwargs):
            return AIMessage("all at once")

    assert [c.content for c in Whole().stream("x")] == ["all at once"]


def test_invoke_gives_the_reply_an_id():
    assert FakeListChatModel(responses=["x"]).invoke("hi").id.startswith("run-")


def test_prompt_model_parser_chain_invokes_batches_and_streams():
    chain = ChatPromptTemplate.from_template("Say {word}") | FakeListChatModel(responses=["one two"]) | StrOutputParser()
    assert chain.invoke({"word": "x"}) == "one two"
    assert chain.batch([{"word": "x"}, {"word": "y"}]) == ["one two", "one two"]
    assert list(chain.stream({"word": "x"})) == ["one ", "two"]


def test_prompt_model_parser_chain_streams_asynchronously():
    chain = ChatPromptTemplate.from_template("Say {word}") | FakeListChatModel(responses=["one two"]) | StrOutputParser()

    async def run():
        return [c async for c in chain.astream({"word": "x"})], await chain.ainvoke({"word": "y"})

    assert asyncio.run(run()) == (["one ", "two"], "one two")


def test_a_rag_shaped_chain_streams_the_answer_through_assign():
    model = FakeListChatModel(responses=["It is blue."])
    chain = RunnablePassthrough.assign(
        answer=ChatPromptTemplate.from_template("{context}\n{question}") | model | StrOutputParser())
    chunks = list(chain.stream({"context": "sky", "question": "colour?"}))
    assert chunks[0] == {"context": "sky", "question": "colour?"}
    assert [c["answer"] for c in chunks[1:]] == ["It ", "is ", "blue."]


def test_bind_tools_passes_openai_tools_and_choice_to_the_model():
    seen = {}

    class Capture(BaseChatModel):
        def _generate(self, messages: list[BaseMessage], stop=None, **kwargs):
            seen.update(kwargs)
            return AIMessage("")

    def lookup(term: str) -> str:
        """Look a term up."""
        return term

    Capture().bind_tools([lookup], tool_choice="any").invoke("x")
    assert seen["tools"][0]["function"]["name"] == "lookup" and seen["tool_choice"] == "required"


def test_bind_tools_refuses_a_tool_choice_that_is_not_bound():
    with pytest.raises(ValidationError, match="'other' is not one of the bound tools \\['lookup'\\]"):
        FakeListChatModel(responses=["x"]).bind_tools([{"name": "lookup", "parameters": {}}], tool_choice="other")


def test_tool_objects_with_an_args_schema_convert():
    class Tool:
        name = "retrieve"
        description = "Find documents."
        args_schema = {"title": "Args", "type": "object", "properties": {"query": {"type": "string"}}}

    assert convert_to_openai_tool(Tool())["function"] == {
        "name": "retrieve", "description": "Find documents.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}


def test_tool_conversion_matches_langchain_for_a_typed_function():
    from langchain_core.utils.function_calling import convert_to_openai_tool as lc_convert

    def search(query: str, k: int = 4, exact: bool = False) -> list:
        """Search the index.

        More details that are not part of the description.
        """
        return []

    ours, theirs = convert_to_openai_tool(search)["function"], lc_convert(search)["function"]
    assert ours["name"] == theirs["name"] and ours["parameters"]["required"] == theirs["parameters"]["required"]
    assert {k: v["type"] for k, v in ours["parameters"]["properties"].items()} == \
        {k: v["type"] for k, v in theirs["parameters"]["properties"].items()}


def test_fake_model_needs_a_list_of_responses():
    with pytest.raises(ValidationError, match="non-empty list of responses \\(str or AIMessage\\)"):
        FakeListChatModel(responses="just one")
