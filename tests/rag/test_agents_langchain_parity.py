"""Differential tests: the same scripted model runs through our create_agent /
create_react_agent and through langchain 1.4's create_agent / LangGraph 1.2's
create_react_agent give the same message sequences (ids aside)."""

import warnings

import pytest
from agent_middleware_peers import LcScripted, add, lc_add, normal
from graph_peers import LANGGRAPH, OURS
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent as lc_create_agent
from langchain_core.messages import AIMessage as LcAIMessage
from langchain_core.tools import tool as lc_tool
from langgraph.checkpoint.memory import InMemorySaver as LgSaver
from langgraph.prebuilt import ToolNode as LgToolNode
from langgraph.prebuilt import create_react_agent as lg_create_react_agent

from rag.agents import ToolNode, create_agent, create_react_agent
from rag.graph.checkpoint.memory import InMemorySaver
from rag.messages import AIMessage
from rag.models import GenericFakeChatModel
from rag.tools import tool


# Each script: the replies as (text, [(tool name, args, call id)]).
SCRIPTS = {
    "no tools": [("Just this.", [])],
    "one call": [("", [("add", {"a": 1, "b": 2}, "c1")]), ("3", [])],
    "parallel calls": [("Adding.", [("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 5, "b": 5}, "c2")]), ("3 and 10", [])],
    "two rounds": [("", [("add", {"a": 1, "b": 1}, "c1")]), ("", [("add", {"a": 2, "b": 2}, "c2")]), ("4", [])],
    "unknown tool": [("", [("multiply", {"a": 1}, "c1")]), ("sorry", [])],
}


def script(replies, cls):
    return iter([cls(text, tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls]) for text, calls in replies])


def run_ours(replies, react=False, **kwargs):
    model = GenericFakeChatModel(messages=script(replies, AIMessage))
    agent = create_react_agent(model, [add], **kwargs) if react else create_agent(model, [add], **kwargs)
    return agent


def run_theirs(replies, react=False, **kwargs):
    model = LcScripted(messages=script(replies, LcAIMessage))
    if react:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lg_create_react_agent(model, [lc_add], **kwargs)
    return lc_create_agent(model, [lc_add], **kwargs)


@pytest.mark.parametrize("react", [False, True], ids=["create_agent", "create_react_agent"])
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_scripted_run_gives_langchains_messages(name, react):
    prompt = {"prompt": "Be brief."} if react else {"system_prompt": "Be brief."}
    question = {"messages": [("human", "Add things.")]}
    ours = run_ours(SCRIPTS[name], react, **prompt).invoke(question)
    theirs = run_theirs(SCRIPTS[name], react, **prompt).invoke(question)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert set(ours) == set(theirs) == {"messages"}


@pytest.mark.parametrize("react", [False, True], ids=["create_agent", "create_react_agent"])
def test_the_graphs_have_langchains_nodes(react):
    ours = run_ours(SCRIPTS["one call"], react).get_graph()
    theirs = run_theirs(SCRIPTS["one call"], react).get_graph()
    assert sorted(ours.nodes) == sorted(theirs.nodes)


@pytest.mark.parametrize("react", [False, True], ids=["create_agent", "create_react_agent"])
def test_stream_updates_match_for_one_call_per_step(react):
    # (With several calls in one step LangGraph streams one update per call; ours, one for all.)
    question = {"messages": [("human", "Add.")]}

    def updates(agent):
        return [{node: normal(update["messages"]) for node, update in chunk.items()}
                for chunk in agent.stream(question, stream_mode="updates")]

    assert updates(run_ours(SCRIPTS["two rounds"], react)) == updates(run_theirs(SCRIPTS["two rounds"], react))


def test_a_thread_continues_as_in_langchain():
    replies = [("", [("add", {"a": 1, "b": 2}, "c1")]), ("3", []), ("Still 3.", [])]
    config = {"configurable": {"thread_id": "t"}}

    def converse(agent):
        agent.invoke({"messages": [("human", "1+2?")]}, config)
        return normal(agent.invoke({"messages": [("human", "Sure?")]}, config)["messages"])

    assert converse(run_ours(replies, checkpointer=InMemorySaver())) == converse(run_theirs(replies, checkpointer=LgSaver()))


def in_a_graph(lib, node, message):
    """The tool messages ``node`` adds when it runs as the one node of a graph (LangGraph's
    ToolNode needs the graph's runtime)."""
    graph = lib.StateGraph(lib.MessagesState).add_node("tools", node)
    graph.add_edge(lib.START, "tools").add_edge("tools", lib.END)
    return graph.compile().invoke({"messages": [message]})["messages"][1:]


def test_tool_node_answers_like_langgraphs_for_good_and_unknown_calls():
    calls = [{"name": "add", "args": {"a": 2, "b": 2}, "id": "c1"}, {"name": "nope", "args": {}, "id": "c2"}]
    ours = in_a_graph(OURS, ToolNode([add]), AIMessage("", tool_calls=calls))
    theirs = in_a_graph(LANGGRAPH, LgToolNode([lc_add]), LcAIMessage("", tool_calls=calls))
    assert normal(ours) == normal(theirs)
    assert [m.status for m in ours] == ["success", "error"]


def test_unfitting_arguments_are_answered_with_langgraphs_wording_and_our_reasons():
    calls = [{"name": "add", "args": {"a": 2}, "id": "c1"}]
    [ours] = in_a_graph(OURS, ToolNode([add]), AIMessage("", tool_calls=calls))
    [theirs] = in_a_graph(LANGGRAPH, LgToolNode([lc_add]), LcAIMessage("", tool_calls=calls))
    prefix = "Error invoking tool 'add' with kwargs {'a': 2} with error:\n"
    assert ours.content.startswith(prefix) and theirs.content.startswith(prefix)
    assert (ours.status, ours.tool_call_id, ours.name) == (theirs.status, theirs.tool_call_id, theirs.name)
    assert ours.content.endswith(" Please fix the error and try again.")


def test_a_raising_tool_is_answered_with_langgraphs_text_when_errors_are_handled():
    @tool
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    @lc_tool("divide")
    def lc_divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    calls = [{"name": "divide", "args": {"a": 1, "b": 0}, "id": "c1"}]
    ours = in_a_graph(OURS, ToolNode([divide]), AIMessage("", tool_calls=calls))
    theirs = in_a_graph(LANGGRAPH, LgToolNode([lc_divide], handle_tool_errors=True), LcAIMessage("", tool_calls=calls))
    assert normal(ours) == normal(theirs)
    assert ours[0].content == "Error: ZeroDivisionError('division by zero')\n Please fix your mistakes."


# One tool call: add with two small ints, or a tool that does not exist.
a_call = st.one_of(st.tuples(st.just("add"), st.fixed_dictionaries({"a": st.integers(-9, 9), "b": st.integers(-9, 9)})),
                   st.tuples(st.just("missing"), st.just({})))
a_round = st.lists(a_call, min_size=1, max_size=4)


@settings(max_examples=25, deadline=None)
@given(rounds=st.lists(a_round, max_size=4), final=st.text(max_size=20))
def test_any_script_of_tool_rounds_gives_langchains_messages(rounds, final):
    replies = [("", [(name, args, f"c{r}-{i}") for i, (name, args) in enumerate(calls)]) for r, calls in enumerate(rounds)]
    replies.append((final, []))
    question = {"messages": [("human", "go")]}
    ours = run_ours(replies).invoke(question)["messages"]
    theirs = run_theirs(replies).invoke(question)["messages"]
    assert normal(ours) == normal(theirs)
    # Every call is answered, right after the reply that made it, in the order of the calls.
    for position, message in enumerate(ours):
        if message.type == "ai" and message.tool_calls:
            answers = ours[position + 1:position + 1 + len(message.tool_calls)]
            assert [m.tool_call_id for m in answers] == [c["id"] for c in message.tool_calls]


@pytest.mark.parametrize("name", ["parallel calls", "two rounds"])
def test_the_async_path_gives_langchains_messages_too(name):
    import asyncio

    question = {"messages": [("human", "Add things.")]}
    ours = asyncio.run(run_ours(SCRIPTS[name]).ainvoke(question))
    theirs = asyncio.run(run_theirs(SCRIPTS[name]).ainvoke(question))
    assert normal(ours["messages"]) == normal(theirs["messages"])
