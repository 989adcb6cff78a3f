"""Stream payloads as LangGraph's: each node's update streamed as that node finishes
(before the step's checkpoint), no first "values" chunk for an empty input, the
"messages" stream's metadata and de-duplication, push_message, and
add_messages(format="langchain-openai")."""

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.errors import ValidationError
from rag.graph import END, START, MessagesState, StateGraph, add_messages
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.message import push_message
from rag.graph.types import Command
from rag.messages import AIMessage, HumanMessage, ToolMessage

WAIT = 10  # seconds a node waits for the consumer before giving up (a failing run, not a timing)


class Docs(TypedDict, total=False):
    docs: Annotated[list, operator.add]


def fan_out(order: list[str], seen: list[str], turns: dict[str, threading.Event]) -> StateGraph:
    """Parallel nodes, each finishing only once the consumer signals its turn."""
    graph = StateGraph(Docs)

    def node(name: str):
        def run(state: Docs) -> Docs:
            turns[name].wait(WAIT)
            return {"docs": [name]}
        return run

    for name in order:
        graph.add_node(name, node(name)).add_edge(START, name).add_edge(name, END)
    return graph


@settings(deadline=None, max_examples=8)
@given(st.permutations(["a", "b", "c", "d"]))
def test_parallel_nodes_updates_are_streamed_in_the_order_the_nodes_finish(finish_order):
    turns = {name: threading.Event() for name in finish_order}
    app = fan_out(sorted(finish_order), [], turns).compile()
    turns[finish_order[0]].set()
    streamed = []
    for chunk in app.stream({"docs": []}, stream_mode="updates", config={"max_concurrency": 4}):
        (name,) = chunk
        streamed.append(name)
        if len(streamed) < len(finish_order):  # only once this update arrived may the next node finish
            turns[finish_order[len(streamed)]].set()
    assert streamed == list(finish_order)


def test_async_parallel_nodes_updates_are_streamed_as_each_finishes():
    turns = {"a": asyncio.Event(), "b": asyncio.Event()}
    graph = StateGraph(Docs)

    def node(name):
        async def run(state):
            await asyncio.wait_for(turns[name].wait(), WAIT)
            return {"docs": [name]}
        return run

    for name in ("a", "b"):
        graph.add_node(name, node(name)).add_edge(START, name).add_edge(name, END)
    app = graph.compile()

    async def consume():
        turns["b"].set()
        streamed = []
        async for chunk in app.astream({"docs": []}, stream_mode="updates"):
            streamed.append(next(iter(chunk)))
            turns["a"].set()
        return streamed

    assert asyncio.run(consume()) == ["b", "a"]


def test_a_lone_nodes_update_is_streamed_once_its_step_is_saved():
    class S(TypedDict):
        n: int

    app = StateGraph(S).add_node("inc", lambda s: {"n": s["n"] + 1}).add_edge(START, "inc") \
        .compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    saved_when_streamed = []
    for mode, chunk in app.stream({"n": 1}, config, stream_mode=["updates", "values"]):
        saved_when_streamed.append((mode, app.get_state(config).values["n"]))
    assert saved_when_streamed == [("values", 1), ("updates", 2), ("values", 2)]  # as LangGraph 1.2


def test_an_empty_input_streams_no_first_values_chunk():
    class S(TypedDict, total=False):
        n: int

    app = StateGraph(S).add_node("set", lambda s: {"n": 7}).add_edge(START, "set").compile()
    assert list(app.stream({}, stream_mode="values")) == [{"n": 7}]
    assert list(app.stream({"n": 1}, stream_mode="values")) == [{"n": 1}, {"n": 7}]


def messages_graph(*nodes) -> StateGraph:
    graph = StateGraph(MessagesState)
    previous = START
    for name, fn in nodes:
        graph.add_node(name, fn).add_edge(previous, name)
        previous = name
    return graph


def test_a_message_a_node_returns_is_streamed_with_the_nodes_metadata():
    app = messages_graph(("reply", lambda s: {"messages": AIMessage("hi", id="m1")})).compile()
    [(message, metadata)] = list(app.stream({"messages": []}, stream_mode="messages"))
    assert message == AIMessage("hi", id="m1")
    assert {k: v for k, v in metadata.items() if k != "langgraph_checkpoint_ns"} == {
        "ls_integration": "langgraph", "langgraph_step": 1, "langgraph_node": "reply",
        "langgraph_triggers": ("branch:to:reply",), "langgraph_path": ("__pregel_pull", "reply")}
    assert metadata["langgraph_checkpoint_ns"].startswith("reply:")


def test_messages_of_a_command_and_of_a_list_of_commands_are_streamed():
    app = messages_graph(("one", lambda s: Command(update={"messages": AIMessage("a", id="1")})),
                         ("two", lambda s: [Command(update={"messages": AIMessage("b", id="2")})])).compile()
    assert [m.id for m, _ in app.stream({"messages": []}, stream_mode="messages")] == ["1", "2"]


def test_a_message_a_node_received_is_not_streamed_again_when_it_returns_it():
    app = messages_graph(("echo", lambda s: {"messages": s["messages"]}),
                         ("reply", lambda s: {"messages": AIMessage("new", id="n")})).compile()
    streamed = [m.id for m, _ in app.stream({"messages": [HumanMessage("hi", id="h")]}, stream_mode="messages")]
    assert streamed == ["n"]


def subgraph_parent():
    child = messages_graph(("inner", lambda s: {"messages": AIMessage("from child", id="c")})).compile()
    return StateGraph(MessagesState).add_node("outer", child).add_edge(START, "outer").compile()


def test_without_subgraphs_a_subgraphs_messages_are_streamed_as_its_parent_nodes():
    # As LangGraph's: the child's node is not streamed, the parent node that returns its state is.
    [(message, metadata)] = list(subgraph_parent().stream({"messages": []}, stream_mode="messages"))
    assert message.id == "c" and metadata["langgraph_node"] == "outer"


def test_a_subgraphs_messages_are_streamed_once_under_its_namespace():
    chunks = list(subgraph_parent().stream({"messages": []}, stream_mode="messages", subgraphs=True))
    [(ns, (message, metadata))] = chunks  # not again when the parent's node returns the child's state
    assert message.id == "c" and metadata["langgraph_node"] == "inner"
    assert len(ns) == 1 and ns[0].startswith("outer:")


def test_push_message_streams_the_message_while_the_node_still_runs():
    consumer_saw_it = threading.Event()

    def chat(state):
        push_message(AIMessage("early", id="e"))
        assert consumer_saw_it.wait(WAIT)  # the chunk reached the caller before the node returned
        return None

    app = messages_graph(("chat", chat)).compile()
    for mode, chunk in app.stream({"messages": []}, stream_mode=["messages", "values"]):
        if mode == "messages":
            consumer_saw_it.set()
            assert chunk[0].id == "e" and chunk[1]["langgraph_node"] == "chat"
    assert consumer_saw_it.is_set()


def test_push_message_writes_the_message_to_the_state_once():
    def chat(state):
        push_message(AIMessage("first", id="1"))
        return {"messages": [AIMessage("second", id="2")]}

    app = messages_graph(("chat", chat)).compile()
    streamed = [m.id for m, _ in app.stream({"messages": []}, stream_mode="messages")]
    assert streamed == ["1", "2"]
    assert [m.id for m in app.invoke({"messages": []})["messages"]] == ["1", "2"]


def test_push_message_with_no_state_key_only_streams():
    def chat(state):
        push_message(AIMessage("aside", id="x"), state_key=None)

    app = messages_graph(("chat", chat)).compile()
    assert [m.id for m, _ in app.stream({"messages": []}, stream_mode="messages")] == ["x"]
    assert app.invoke({"messages": []})["messages"] == []


def test_push_message_without_an_id_is_refused_naming_the_message():
    def chat(state):
        push_message(AIMessage("no id"))

    with pytest.raises(ValidationError, match="Message ID is required.*no id"):
        messages_graph(("chat", chat)).compile().invoke({"messages": []})


def test_openai_format_turns_an_anthropic_image_into_an_image_url_and_drops_provider_extras():
    reduce = add_messages(format="langchain-openai")
    [message] = reduce([], [HumanMessage([
        {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}], id="h")])
    assert message.content == [{"type": "text", "text": "look"},
                               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    assert message.id == "h"


def test_openai_format_turns_tool_use_blocks_into_tool_calls_and_tool_results_into_tool_messages():
    reduce = add_messages(format="langchain-openai")
    merged = reduce([], [
        AIMessage([{"type": "tool_use", "name": "search", "input": {"q": "x"}, "id": "c1"}], id="a"),
        HumanMessage([{"type": "tool_result", "tool_use_id": "c1", "content": "found", "is_error": True}], id="h"),
    ])
    assert merged[0].content == "" and merged[0].tool_calls == [
        {"name": "search", "args": {"q": "x"}, "id": "c1", "type": "tool_call"}]
    assert [type(m) for m in merged] == [AIMessage, ToolMessage]
    assert merged[1].content == "found" and merged[1].tool_call_id == "c1" and merged[1].status == "error"


def test_openai_format_joins_text_only_content_into_one_string():
    [message] = add_messages(format="langchain-openai")([], [HumanMessage(["a", {"type": "text", "text": "b"}])])
    assert message.content == "a\nb"


def test_an_unknown_format_is_refused_naming_it():
    with pytest.raises(ValidationError, match="Unrecognized format='xml'.*'langchain-openai'"):
        add_messages([], [], format="xml")


def test_a_block_openai_has_no_counterpart_for_is_refused_naming_its_place():
    with pytest.raises(ValidationError, match=r"messages\[0\]\.content\[1\].*hologram"):
        add_messages([], [HumanMessage(["hi", {"type": "hologram"}])], format="langchain-openai")


def test_add_messages_given_one_list_only_is_refused():
    with pytest.raises(ValidationError, match="both lists.*only left"):
        add_messages([HumanMessage("hi")])


# -- stream_mode="tools" ----------------------------------------------------------------------
def tool_graph(calls):
    from rag.agents import ToolNode
    from rag.tools import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool
    def fail(x: int) -> int:
        """Always fails."""
        raise ValueError(f"cannot take {x}")

    graph = StateGraph(MessagesState)
    graph.add_node("call", lambda s: {"messages": AIMessage("", tool_calls=calls, id="ai")})
    graph.add_node("tools", ToolNode([add, fail]))
    return graph.add_edge(START, "call").add_edge("call", "tools")


def test_tools_mode_streams_a_tool_calls_start_and_result():
    app = tool_graph([{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]).compile()
    started, finished = list(app.stream({"messages": []}, stream_mode="tools"))
    assert started == {"event": "tool-started", "tool_call_id": "c1", "tool_name": "add", "input": {"a": 1, "b": 2}}
    assert finished["event"] == "tool-finished" and finished["tool_call_id"] == "c1"
    assert finished["output"].content == "3"


def test_tools_mode_streams_a_failing_tools_error_message():
    app = tool_graph([{"name": "fail", "args": {"x": 7}, "id": "c9"}]).compile()
    chunks = list(app.stream({"messages": []}, stream_mode="tools"))  # ToolNode answers with the error
    assert chunks[-1] == {"event": "tool-error", "tool_call_id": "c9", "message": "cannot take 7"}


def test_tools_mode_streams_a_subgraphs_tools_only_with_subgraphs_true():
    child = tool_graph([{"name": "add", "args": {"a": 2, "b": 2}, "id": "c2"}]).compile()
    parent = StateGraph(MessagesState).add_node("outer", child).add_edge(START, "outer").compile()
    assert list(parent.stream({"messages": []}, stream_mode="tools")) == []
    nested = list(parent.stream({"messages": []}, stream_mode="tools", subgraphs=True))
    assert [chunk["event"] for _, chunk in nested] == ["tool-started", "tool-finished"]
    assert all(len(ns) == 1 and ns[0].startswith("outer:") for ns, _ in nested)


# -- LangGraph's object shapes code reads --------------------------------------------------------
def test_a_function_nodes_runnable_func_is_the_function_given():
    def step(state):
        return {"docs": ["x"]}

    builder = StateGraph(Docs).add_node("step", step)
    assert builder.nodes["step"].runnable.func is step


def test_a_state_snapshot_copies_with_replace_as_a_named_tuple_does():
    class S(TypedDict):
        n: int

    app = StateGraph(S).add_node("inc", lambda s: {"n": s["n"] + 1}).add_edge(START, "inc") \
        .compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "r"}}
    app.invoke({"n": 1}, config)
    snapshot = app.get_state(config)
    copy = snapshot._replace(values={"n": 0})
    assert copy.values == {"n": 0} and copy.config == snapshot.config and snapshot.values == {"n": 2}


def test_a_sent_tasks_messages_carry_its_push_path():
    from rag.graph.types import Send

    graph = StateGraph(MessagesState)
    graph.add_node("fan", lambda s: {})
    graph.add_node("say", lambda arg: {"messages": AIMessage(arg, id=arg)})
    graph.add_edge(START, "fan").add_conditional_edges("fan", lambda s: [Send("say", "x"), Send("say", "y")])
    paths = {m.id: meta["langgraph_path"] for m, meta in graph.compile().stream({"messages": []},
                                                                                stream_mode="messages")}
    assert paths == {"x": ("__pregel_push", 0, False), "y": ("__pregel_push", 1, False)}


def test_the_stream_handlers_carry_the_attributes_langchains_callback_managers_read():
    from rag.graph._stream_messages import MessagesHandler
    from rag.graph._stream_tools import ToolsHandler

    for handler in (MessagesHandler(), ToolsHandler(None)):
        assert handler.run_inline is True and handler.raise_error is False
        assert not any(getattr(handler, f"ignore_{kind}") for kind in ("llm", "chain", "agent", "retriever",
                                                                       "chat_model", "retry", "custom_event"))
