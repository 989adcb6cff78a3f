"""Differential tests: the same scripted model and middleware through langchain 1.4's
create_agent and ours give the same messages, state, graph nodes and hook order."""

import asyncio

import pytest
from agent_middleware_peers import LANGCHAIN, OURS, SIDES, counting, normal, recorder, scripted, stop_after
from hypothesis import given, settings
from hypothesis import strategies as st

QUESTION = {"messages": [("human", "Add things.")]}
TWO_ROUNDS = [("", [("add", {"a": 1, "b": 1}, "c1")]), ("", [("add", {"a": 2, "b": 2}, "c2")]), ("4", [])]


def run(lib, replies, middleware, **kwargs):
    agent = lib.create_agent(scripted(lib, replies), [lib.add], middleware=middleware, **kwargs)
    return agent.invoke(QUESTION)


def both(replies, build, **kwargs):
    """Run ``build(lib)``'s middleware on both sides; (ours, theirs) outputs."""
    return tuple(run(lib, replies, build(lib), **kwargs) for lib in (OURS, LANGCHAIN))


def test_hooks_run_in_langchains_order_before_in_list_order_after_in_reverse():
    logs = {}
    for lib in SIDES:
        logs[lib.name] = log = []
        run(lib, TWO_ROUNDS, [recorder(lib, name, log) for name in ("A", "B", "C")])
    assert logs["rag"] == logs["langchain"]
    assert logs["rag"][:5] == ["A.before_agent", "B.before_agent", "C.before_agent", "A.before_model", "B.before_model"]
    assert logs["rag"][-3:] == ["C.after_agent", "B.after_agent", "A.after_agent"]


def test_wrappers_nest_with_the_first_middleware_outermost():
    log = []
    run(OURS, TWO_ROUNDS, [recorder(OURS, name, log, hooks=("wrap_model_call", "wrap_tool_call")) for name in "AB"])
    assert log[:4] == ["A.wrap_model_call", "B.wrap_model_call", "A.wrap_tool_call", "B.wrap_tool_call"]


def test_the_graph_has_langchains_nodes_with_hooks():
    nodes = {}
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, TWO_ROUNDS), [lib.add],
                                 middleware=[recorder(lib, "A", []), recorder(lib, "B", [], hooks=("after_model",))])
        nodes[lib.name] = sorted(agent.get_graph().nodes)
    assert nodes["rag"] == nodes["langchain"]
    assert "A.before_agent" in nodes["rag"] and "B.after_model" in nodes["rag"]


def test_a_middleware_state_key_joins_the_state():
    ours, theirs = both(TWO_ROUNDS, lambda lib: [counting(lib)])
    assert ours["model_calls_seen"] == theirs["model_calls_seen"] == 3
    assert normal(ours["messages"]) == normal(theirs["messages"])


@pytest.mark.parametrize("hook", ["before_model", "after_model"])
def test_a_jump_to_end_stops_the_loop_as_in_langchain(hook):
    ours, theirs = both(TWO_ROUNDS, lambda lib: [stop_after(lib, 1, hook)])
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][-1].text == "Stopped."


def test_a_model_wrapper_can_short_cut_the_call():
    def build(lib):
        def wrap(self, request, handler):
            return lib.AIMessage("Cached answer.")
        return [type("Cache", (lib.mw.AgentMiddleware,), {"wrap_model_call": wrap})()]
    ours, theirs = both(TWO_ROUNDS, build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert [m.text for m in ours["messages"]] == ["Add things.", "Cached answer."]


def test_a_model_wrapper_can_retry_the_call():
    def build(lib):
        def wrap(self, request, handler):
            first = handler(request)
            return handler(request) if first.result[0].text == "flaky" else first
        return [type("Retry", (lib.mw.AgentMiddleware,), {"wrap_model_call": wrap})()]
    ours, theirs = both([("flaky", []), ("Solid.", [])], build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][-1].text == "Solid."


def test_a_tool_wrapper_can_replace_the_result():
    def build(lib):
        def wrap(self, request, handler):
            result = handler(request)
            return lib.ToolMessage(f"checked: {result.content}", tool_call_id=result.tool_call_id, name=result.name)
        return [type("Checker", (lib.mw.AgentMiddleware,), {"wrap_tool_call": wrap})()]
    ours, theirs = both(TWO_ROUNDS, build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][2].text == "checked: 2"


def test_the_decorator_forms_build_the_same_agent():
    def build(lib):
        seen = []

        @lib.mw.before_model
        def note(state, runtime):
            seen.append(len(state["messages"]))

        @lib.mw.dynamic_prompt
        def prompt(request):
            return f"You have seen {len(request.messages)} messages."

        @lib.mw.wrap_tool_call
        def double(request, handler):
            result = handler(request)
            return lib.ToolMessage(result.content * 2, tool_call_id=result.tool_call_id, name=result.name)

        @lib.mw.after_model(can_jump_to=["end"])
        def stop(state, runtime):
            return {"jump_to": "end"} if len(state["messages"]) > 4 else None
        return [note, prompt, double, stop]
    ours, theirs = both(TWO_ROUNDS, build)
    assert normal(ours["messages"]) == normal(theirs["messages"])
    assert ours["messages"][2].text == "22"


def test_the_async_path_runs_the_async_hooks_in_the_same_order():
    logs = {}
    for lib in SIDES:
        logs[lib.name] = log = []
        agent = lib.create_agent(scripted(lib, TWO_ROUNDS), [lib.add],
                                 middleware=[recorder(lib, name, log) for name in "AB"])
        out = asyncio.run(agent.ainvoke(QUESTION))
        logs[lib.name + " messages"] = normal(out["messages"])
    assert logs["rag"] == logs["langchain"]
    assert logs["rag messages"] == logs["langchain messages"]
    assert "A.awrap_model_call" in logs["rag"]


# One round: tool calls (add with small ints, or a missing tool).
a_call = st.one_of(st.tuples(st.just("add"), st.fixed_dictionaries({"a": st.integers(-9, 9), "b": st.integers(-9, 9)})),
                   st.tuples(st.just("missing"), st.just({})))
a_round = st.lists(a_call, min_size=1, max_size=3)


@settings(max_examples=20, deadline=None)
@given(rounds=st.lists(a_round, max_size=4), final=st.text(max_size=10), stop=st.integers(1, 6),
       stop_hook=st.sampled_from(["before_model", "after_model"]))
def test_any_script_with_three_middleware_gives_langchains_messages_and_hook_order(rounds, final, stop, stop_hook):
    replies = [("", [(n, a, f"c{r}-{i}") for i, (n, a) in enumerate(calls)]) for r, calls in enumerate(rounds)]
    replies.append((final, []))
    results = {}
    for lib in SIDES:
        log = []
        middleware = [recorder(lib, "A", log), counting(lib), stop_after(lib, stop, stop_hook)]
        out = run(lib, replies, middleware)
        results[lib.name] = (normal(out["messages"]), out["model_calls_seen"], log)
    assert results["rag"] == results["langchain"]
