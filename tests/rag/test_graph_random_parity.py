"""Random graphs (edges, fan-out, conditional loops, joins, Send) run the same steps in rag.graph and
LangGraph 1.2: the same updates stream, the same final state, or the same recursion stop."""

import operator
from typing import Annotated, TypedDict

from graph_peers import LANGGRAPH, OURS, steps_of
from hypothesis import example, given, settings
from hypothesis import strategies as st


class Log(TypedDict):
    log: Annotated[list, operator.add]


@st.composite
def graph_shapes(draw):
    count = draw(st.integers(2, 5))
    # Declared in reverse: LangGraph orders a step's tasks by name, not by declaration.
    names = [f"n{i}" for i in reversed(range(count))]
    targets = st.sampled_from(names + ["END"])
    shape = {"entry": draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True)), "nodes": {}}
    for name in names:
        if draw(st.booleans()):
            shape["nodes"][name] = ("edges", draw(st.lists(targets, min_size=1, max_size=2, unique=True)))
        else:
            shape["nodes"][name] = ("branch", draw(st.lists(targets, min_size=2, max_size=3)))
    shape["joins"] = draw(st.lists(st.tuples(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True),
                                             targets), max_size=1))
    # From a node without a conditional edge: LangGraph refuses a second unnamed one.
    plain = [name for name in names if shape["nodes"][name][0] == "edges"]
    shape["sends"] = draw(st.lists(st.tuples(st.sampled_from(plain), st.sampled_from(names)), max_size=1)) if plain else []
    return shape


def build(lib, shape):
    graph = lib.StateGraph(Log)
    end = lambda target: lib.END if target == "END" else target  # noqa: E731
    for name, (kind, targets) in shape["nodes"].items():
        graph.add_node(name, lambda state, name=name: {"log": [name]})
        if kind == "edges":
            for target in targets:
                graph.add_edge(name, end(target))
        else:
            graph.add_conditional_edges(
                name, lambda state, targets=targets: end(targets[len(state["log"]) % len(targets)]),
                sorted({end(t) for t in targets}))
    for sources, target in shape["joins"]:
        graph.add_edge(sources, end(target))
    for source, target in shape["sends"]:  # a fan-out by Send, up to two copies
        graph.add_conditional_edges(
            source, lambda state, target=target: [lib.Send(target, state)] * (len(state["log"]) % 3), [target])
    for name in shape["entry"]:
        graph.add_edge(lib.START, name)
    return graph.compile()


def run(lib, shape):
    chunks = []
    try:
        for chunk in build(lib, shape).stream({"log": []}, {"recursion_limit": 6}, stream_mode=["updates", "values"]):
            chunks.append(chunk)
    except RecursionError:
        return steps_of(chunks), "recursion limit"
    except ValueError as exc:  # e.g. two writers of one key: both must refuse
        return steps_of(chunks), type(exc).__name__
    return steps_of(chunks), "done"


@settings(max_examples=40, deadline=None)
@given(graph_shapes())
@example({"entry": ["n1", "n3"],  # a join's source that runs again in the step completing it
          "nodes": {"n4": ("edges", ["n2"]), "n3": ("edges", ["n4", "n0"]), "n2": ("branch", ["n3", "n4"]),
                    "n1": ("branch", ["n4", "n3"]), "n0": ("branch", ["n3", "n4"])},
          "joins": [(["n0", "n3"], "n4")], "sends": []})
def test_random_graphs_run_the_same_steps_as_langgraph(shape):
    ours, theirs = run(OURS, shape), run(LANGGRAPH, shape)
    if ours[1] == "done" and theirs[1] == "recursion limit":
        # A run needing exactly recursion_limit steps finishes here (README: Where we differ).
        assert len(ours[0]) == 6 + 1  # the input's state, then six steps
        ours = (ours[0], theirs[1])
    assert ours == theirs
