"""stream_mode="messages": model tokens inside nodes arrive as (chunk, metadata) pairs with
the node's name, and messages a node returns arrive once, as in LangGraph."""

import asyncio

from graph_peers import LANGGRAPH, OURS
from langchain_core.language_models.fake_chat_models import FakeListChatModel as LcFakeChat

from rag.messages import AIMessage, AIMessageChunk, ToolMessage
from rag.models import FakeListChatModel


def chat_graph(lib, model):
    def call(state):
        return {"messages": [model.invoke(state["messages"])]}

    def tool(state):
        return {"messages": [lib.ToolMessage("42", tool_call_id="c1"), lib.AIMessage("done")]}

    graph = lib.StateGraph(lib.MessagesState)
    graph.add_node("call", call).add_node("tool", tool)
    graph.add_edge(lib.START, "call").add_edge("call", "tool").add_edge("tool", lib.END)
    return graph.compile()


def summary(chunks):
    """(node, kind) runs with the text each run adds up to."""
    runs = []
    for message, metadata in chunks:
        kind = "ai" if message.type in ("ai", "AIMessageChunk") else message.type
        chunked = type(message).__name__ == "AIMessageChunk"
        key = (metadata["langgraph_node"], kind, chunked)
        if runs and runs[-1][0] == key and chunked:
            runs[-1][1] += message.content
        else:
            runs.append([key, message.content])
    return [(key, text) for key, text in runs]


def test_messages_mode_yields_model_tokens_then_node_messages_like_langgraph():
    ours = list(chat_graph(OURS, FakeListChatModel(responses=["Hello there friend"])).stream(
        {"messages": [("human", "hi")]}, stream_mode="messages"))
    theirs = list(chat_graph(LANGGRAPH, LcFakeChat(responses=["Hello there friend"])).stream(
        {"messages": [("human", "hi")]}, stream_mode="messages"))
    assert summary(ours) == summary(theirs) == [
        (("call", "ai", True), "Hello there friend"),
        (("tool", "tool", False), "42"),
        (("tool", "ai", False), "done"),
    ]


def test_messages_metadata_names_the_node_and_step():
    chunks = list(chat_graph(OURS, FakeListChatModel(responses=["a b"])).stream(
        {"messages": [("human", "hi")]}, stream_mode="messages"))
    first_chunk, metadata = chunks[0]
    assert isinstance(first_chunk, AIMessageChunk)
    assert metadata["langgraph_node"] == "call" and metadata["langgraph_step"] == 1
    assert metadata["langgraph_triggers"] == ("branch:to:call",)


def test_a_model_invoked_in_a_node_streams_tokens_only_while_messages_are_watched():
    model = FakeListChatModel(responses=["one two three"])
    app = chat_graph(OURS, model)
    chunks = [m for m, _ in app.stream({"messages": [("human", "hi")]}, stream_mode="messages")
              if isinstance(m, AIMessageChunk)]
    assert [c.content for c in chunks] == ["one ", "two ", "three"]
    final = app.invoke({"messages": [("human", "hi")]})
    assert final["messages"][1].content == "one two three" and type(final["messages"][1]) is AIMessage


def test_a_list_of_modes_yields_mode_and_chunk_pairs_with_messages_before_the_update():
    app = chat_graph(OURS, FakeListChatModel(responses=["hi there"]))
    pairs = list(app.stream({"messages": [("human", "hi")]}, stream_mode=["messages", "updates"]))
    modes = [mode for mode, _ in pairs]
    assert modes == ["messages", "messages", "updates", "messages", "messages", "updates"]
    assert isinstance(pairs[3][1][0], ToolMessage)


def test_async_messages_stream_yields_the_same_chunks():
    app = chat_graph(OURS, FakeListChatModel(responses=["alpha beta"]))

    async def collect():
        return [m.content async for m, _ in app.astream({"messages": [("human", "hi")]}, stream_mode="messages")]

    assert asyncio.run(collect()) == ["alpha ", "beta", "42", "done"]


def test_messages_from_an_async_node_calling_astream_arrive_in_order():
    model = FakeListChatModel(responses=["x y z"])

    async def call(state):
        total = None
        async for chunk in model.astream(state["messages"]):
            total = chunk if total is None else total + chunk
        return {"messages": [total]}

    graph = OURS.StateGraph(OURS.MessagesState).add_node("call", call).add_edge(OURS.START, "call")

    async def collect():
        return [m.content async for m, _ in graph.compile().astream({"messages": ["hi"]}, stream_mode="messages")]

    assert asyncio.run(collect()) == ["x ", "y ", "z"]
