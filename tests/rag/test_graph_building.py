"""Building and running state graphs: reducers, routing, limits, bad input named at
compile() or at the step, traces, batch and async, drawings of graphs with cycles."""

import asyncio
import operator
from typing import Annotated, Literal, TypedDict

import pytest
from graph_peers import LANGGRAPH, OURS

from rag.callbacks import BaseTracer
from rag.graph import END, START, GraphRecursionError, InvalidUpdateError, MessagesState, StateGraph
from rag.graph.types import Command


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def counter(limit=3):
    graph = StateGraph(State)
    graph.add_node("inc", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    graph.add_edge(START, "inc")
    graph.add_conditional_edges("inc", lambda s: "again" if s["n"] < limit else "stop", {"again": "inc", "stop": END})
    return graph


def test_a_key_without_reducer_is_overwritten_and_a_reducer_key_accumulates():
    assert counter().compile().invoke({"n": 0, "log": ["start"]}) == {"n": 3, "log": ["start", 0, 1, 2]}


def test_a_reducer_key_starts_empty_when_the_input_leaves_it_out():
    assert counter(1).compile().invoke({"n": 0}) == {"n": 1, "log": [0]}


def test_set_entry_and_finish_point_build_a_line():
    graph = StateGraph(State).add_node("only", lambda s: {"n": 9})
    assert graph.set_entry_point("only").set_finish_point("only").compile().invoke({"n": 0})["n"] == 9


def test_add_node_takes_the_function_name_and_sequences_chain():
    def first(state):
        return {"log": ["first"]}

    def second(state):
        return {"log": ["second"]}

    graph = StateGraph(State).add_sequence([first, second]).set_entry_point("first")
    assert graph.compile().invoke({"n": 0})["log"] == ["first", "second"]


def test_a_node_may_read_its_config():
    def node(state, config):
        return {"log": [config["configurable"]["user"]]}

    app = StateGraph(State).add_node("who", node).add_edge(START, "who").compile()
    assert app.invoke({"n": 0}, {"configurable": {"user": "ada"}})["log"] == ["ada"]


def test_recursion_limit_defaults_to_25_steps():
    runaway = StateGraph(State).add_node("spin", lambda s: {"n": s["n"] + 1}).add_edge(START, "spin")
    app = runaway.add_edge("spin", "spin").compile()
    updates = []
    with pytest.raises(GraphRecursionError, match="recursion_limit=25") as raised:
        for update in app.stream({"n": 0}):
            updates.append(update)
    assert len(updates) == 25 and isinstance(raised.value, RecursionError)


def test_a_run_needing_exactly_recursion_limit_steps_finishes():
    # LangGraph raises here (after the last step); see the README's "Where we differ".
    assert counter(5).compile().invoke({"n": 0}, {"recursion_limit": 5})["n"] == 5
    with pytest.raises(GraphRecursionError):
        counter(6).compile().invoke({"n": 0}, {"recursion_limit": 5})


@pytest.mark.parametrize("bad", [0, -3, "25", 2.5])
def test_recursion_limit_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="recursion_limit"):
        counter().compile().invoke({"n": 0}, {"recursion_limit": bad})


# -- bad input ------------------------------------------------------------------------------------
def test_an_edge_to_an_unknown_node_fails_at_compile_naming_it():
    graph = StateGraph(State).add_node("a", lambda s: None).add_edge(START, "a").add_edge("a", "missing")
    with pytest.raises(ValueError, match=r"edge 'a' -> 'missing' names 'missing', which is not a node"):
        graph.compile()


def test_a_graph_without_entry_point_fails_at_compile():
    with pytest.raises(ValueError, match="no entry point"):
        StateGraph(State).add_node("a", lambda s: None).compile()


def test_a_path_map_to_an_unknown_node_fails_at_compile():
    graph = StateGraph(State).add_node("a", lambda s: None).add_edge(START, "a")
    with pytest.raises(ValueError, match="'ghost'"):
        graph.add_conditional_edges("a", lambda s: "x", {"x": "ghost"}).compile()


def test_interrupt_at_an_unknown_node_fails_at_compile():
    with pytest.raises(ValueError, match="'nope'"):
        counter().compile(interrupt_before=["nope"])


def test_a_node_returning_a_key_not_in_the_state_fails_at_the_step_naming_node_and_key():
    app = StateGraph(State).add_node("typo", lambda s: {"count": 1}).add_edge(START, "typo").compile()
    with pytest.raises(InvalidUpdateError, match=r"node 'typo' returned key 'count', which is not in the state"):
        app.invoke({"n": 0})


def test_a_conditional_edge_returning_an_unknown_target_names_source_and_value():
    graph = StateGraph(State).add_node("a", lambda s: None).add_edge(START, "a")
    app = graph.add_conditional_edges("a", lambda s: "elsewhere").compile()
    with pytest.raises(InvalidUpdateError, match=r"from 'a' returned 'elsewhere', which is not a node"):
        app.invoke({"n": 0})


def test_a_conditional_edge_value_missing_from_its_path_map_is_named():
    with pytest.raises(InvalidUpdateError, match=r"returned 'maybe', which is not in its path_map"):
        StateGraph(State).add_node("a", lambda s: None).add_edge(START, "a").add_conditional_edges(
            "a", lambda s: "maybe", {"yes": END}).compile().invoke({"n": 0})


def test_an_update_of_the_wrong_type_for_its_reducer_names_node_key_and_value():
    app = StateGraph(State).add_node("oops", lambda s: {"log": 42}).add_edge(START, "oops").compile()
    with pytest.raises(InvalidUpdateError, match=r"node 'oops' wrote int 42 to key 'log'.*reducer add"):
        app.invoke({"n": 0, "log": []})


def test_a_node_returning_something_other_than_a_dict_is_named():
    app = StateGraph(State).add_node("talk", lambda s: "hello").add_edge(START, "talk").compile()
    with pytest.raises(InvalidUpdateError, match=r"node 'talk' returned str 'hello'"):
        app.invoke({"n": 0})


def test_two_nodes_writing_a_key_without_reducer_in_one_step_are_named():
    graph = StateGraph(State).add_node("a", lambda s: {"n": 1}).add_node("b", lambda s: {"n": 2})
    app = graph.add_edge(START, "a").add_edge(START, "b").compile()
    with pytest.raises(InvalidUpdateError, match=r"nodes 'a' and 'b' both wrote key 'n'"):
        app.invoke({"n": 0})


def test_command_goto_an_unknown_node_is_named():
    app = StateGraph(State).add_node("a", lambda s: Command(goto="nowhere")).add_edge(START, "a").compile()
    with pytest.raises(InvalidUpdateError, match=r"node 'a' returned Command\(goto='nowhere'\)"):
        app.invoke({"n": 0})


def test_input_with_a_key_not_in_the_state_is_refused():
    with pytest.raises(InvalidUpdateError, match=r"input \(or a Command.s update\) has key .m."):
        counter().compile().invoke({"m": 1})


def test_a_schema_that_is_not_a_type_is_refused_naming_it():
    # StateGraph(dict) is a root state (as LangGraph's); a value where a type belongs is not a schema.
    with pytest.raises(ValueError, match="a state schema must be a type .*got 3"):
        StateGraph(3)


def test_an_unknown_stream_mode_is_refused():
    with pytest.raises(ValueError, match="'everything' is not supported"):
        list(counter().compile().stream({"n": 0}, stream_mode="everything"))


def test_reserved_and_duplicate_node_names_are_refused():
    graph = StateGraph(State).add_node("a", lambda s: None)
    with pytest.raises(ValueError, match="already"):
        graph.add_node("a", lambda s: None)
    with pytest.raises(ValueError, match="reserved"):
        graph.add_node(END, lambda s: None)


# -- running --------------------------------------------------------------------------------------
class Runs(BaseTracer):
    def __init__(self):
        super().__init__()
        self.trees = []

    def _on_trace_end(self, run):
        self.trees.append(run)


def test_node_runs_appear_in_the_trace_under_the_graph_run():
    tracer = Runs()
    counter(2).compile(name="counter").invoke({"n": 0}, {"callbacks": [tracer]})
    (tree,) = tracer.trees
    assert tree.name == "counter"
    assert [child.name for child in tree.children] == ["inc", "inc"]
    assert all(child.parent_run_id == tree.id for child in tree.children)


def test_batch_runs_each_input_on_its_own():
    assert [o["n"] for o in counter(3).compile().batch([{"n": 0}, {"n": 2}, {"n": 7}])] == [3, 3, 8]


def test_async_nodes_run_on_the_async_path():
    async def slow_inc(state):
        await asyncio.sleep(0)
        return {"n": state["n"] + 1}

    app = StateGraph(State).add_node("inc", slow_inc).add_edge(START, "inc").compile()

    async def main():
        return await app.ainvoke({"n": 1}), [c async for c in app.astream({"n": 1}, stream_mode="values")]

    final, values = asyncio.run(main())
    assert final == {"n": 2, "log": []} and values == [{"n": 1, "log": []}, {"n": 2, "log": []}]
    assert app.invoke({"n": 5})["n"] == 6  # an async-only node also runs on the sync path


# -- drawings ------------------------------------------------------------------------------------
def agent_graph(lib):
    def route(state) -> Literal["tools", "__end__"]:
        return "__end__"

    graph = lib.StateGraph(lib.MessagesState)
    graph.add_node("agent", lambda s: None).add_node("tools", lambda s: None)
    graph.add_edge(lib.START, "agent").add_conditional_edges("agent", route, ["tools", lib.END])
    graph.add_edge("tools", "agent")
    return graph.compile()


def test_ascii_drawing_of_an_agent_loop_shows_every_node_and_the_edge_back():
    drawing = agent_graph(OURS).get_graph().draw_ascii()
    for name in ("__start__", "agent", "tools", "__end__"):
        assert f"| {name} |" in drawing
    assert "|<" in drawing  # the edge from tools back up into agent


def test_mermaid_edges_of_an_agent_loop_match_langgraph():
    def edges(text):
        return sorted(line.strip().replace("\"", "") for line in text.splitlines() if "->" in line)

    ours = agent_graph(OURS).get_graph().draw_mermaid()
    theirs = agent_graph(LANGGRAPH).get_graph().draw_mermaid()
    assert edges(ours) == edges(theirs) == sorted(
        ["__start__ --> agent;", "agent -.-> tools;", "agent -.-> __end__;", "tools --> agent;"])
    assert ours.startswith("---\nconfig:") and ":::first" in ours and ":::last" in ours


def test_a_conditional_edge_typed_with_literal_draws_only_its_targets():
    graph = StateGraph(MessagesState).add_node("a", lambda s: None).add_node("b", lambda s: None)

    def route(state) -> Literal["b"]:
        return "b"

    graph.add_edge(START, "a").add_conditional_edges("a", route)
    assert "a -.-> b;" in graph.compile().get_graph().draw_mermaid()
    assert "a -.-> a;" not in graph.compile().get_graph().draw_mermaid()


@pytest.mark.parametrize("name", ["rag.graph", "rag.graph.state_graph", "rag.graph.message", "rag.graph.types",
                                  "rag.graph.checkpoint.memory", "rag.graph.checkpoint.sqlite",
                                  "rag.graph.checkpoint.serde", "rag.graph.config"])
def test_docstring_examples_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_nodes_added_to_the_builder_after_compile_do_not_change_the_compiled_graph():
    graph = StateGraph(State).add_node("a", lambda s: {"n": 1}).add_edge(START, "a")
    app = graph.compile()
    graph.add_node("b", lambda s: {"n": 2}).add_edge("a", "b")
    assert app.invoke({"n": 0})["n"] == 1 and graph.compile().invoke({"n": 0})["n"] == 2


def test_custom_chunks_stream_on_the_async_path_too():
    from rag.graph.config import get_stream_writer

    async def work(state):
        get_stream_writer()("started")
        await asyncio.sleep(0)
        get_stream_writer()("finished")
        return {"n": 1}

    app = StateGraph(State).add_node("work", work).add_edge(START, "work").compile()

    async def main():
        return [c async for c in app.astream({"n": 0}, stream_mode="custom")]

    assert asyncio.run(main()) == ["started", "finished"]


def test_get_config_gives_the_running_nodes_config():
    from rag.graph.config import get_config

    app = StateGraph(State).add_node("who", lambda s: {"log": [get_config()["metadata"]["langgraph_node"]]})
    assert app.add_edge(START, "who").compile().invoke({"n": 0})["log"] == ["who"]


def test_run_options_that_would_change_the_output_are_refused_by_name():
    app = counter().compile()
    with pytest.raises(ValueError, match="checkpoint_during=True is not supported"):
        list(app.stream({"n": 0}, checkpoint_during=True))
    assert app.invoke({"n": 0}, durability="sync", debug=False)["n"] == 3


def test_input_schema_is_the_state_schemas_with_its_required_keys():
    schema = counter().compile().input_schema  # as LangGraph's: the TypedDict's name and required keys
    assert schema["title"] == "State" and set(schema["required"]) == {"n", "log"}
    assert schema["properties"]["n"] == {"title": "N", "type": "integer"} and schema["properties"]["log"]["type"] == "array"


def test_with_config_gives_a_graph_whose_calls_use_those_defaults():
    from rag.graph.checkpoint.memory import InMemorySaver

    limited = counter(limit=10).compile(checkpointer=InMemorySaver()).with_config(recursion_limit=4)
    thread = {"configurable": {"thread_id": "t"}}
    with pytest.raises(GraphRecursionError, match="recursion_limit=4"):
        limited.invoke({"n": 0, "log": []}, thread)
    assert limited.get_state(thread).values["n"] == 4  # still a graph: the state API works
    assert limited.invoke({"n": 0, "log": []}, {**thread, "recursion_limit": 50})["n"] == 10
