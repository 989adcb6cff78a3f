"""Differential tests of LLMToolSelectorMiddleware and TodoListMiddleware against langchain 1.4."""

import pytest
from agent_middleware_peers import LANGCHAIN, OURS, SIDES, normal, scripted

QUESTION = {"messages": [("human", "Add 1 and 2, please.")]}


def tools_of(lib):
    if lib is OURS:
        from rag.tools import tool
    else:
        from langchain_core.tools import tool

    @tool
    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"
    return [lib.add, multiply, weather]


def selection(lib, names):
    return lib.Fake(messages=iter([lib.AIMessage("", tool_calls=[
        {"name": "ToolSelectionResponse", "args": {"tools": n}, "id": f"sel{i}"}]) if n is not None
        else lib.AIMessage("no idea") for i, n in enumerate(names)]))


def offered_tools(lib, middleware, replies=(("3", []),)):
    seen = []

    def spy(self, request, handler):
        seen.append(sorted(t.name for t in request.tools))
        return handler(request)
    agent = lib.create_agent(scripted(lib, list(replies)), tools_of(lib),
                             middleware=[*middleware, type("Spy", (lib.mw.AgentMiddleware,), {"wrap_model_call": spy})()])
    out = agent.invoke(QUESTION)
    return seen, normal(out["messages"])


@pytest.mark.parametrize("picked,kwargs", [
    (["add"], {}), (["multiply", "add", "weather"], {"max_tools": 2}), (["weather"], {"always_include": ["add"]}),
    ([], {})], ids=["one", "capped", "always include", "none"])
def test_the_selector_offers_the_chosen_tools_as_langchain(picked, kwargs):
    out = {lib.name: offered_tools(lib, [lib.mw.LLMToolSelectorMiddleware(model=selection(lib, [picked]), **kwargs)])
           for lib in SIDES}
    assert out["rag"] == out["langchain"]


@pytest.mark.parametrize("fallback,expected", [("all", ["add", "multiply", "weather"]), ("none", []),
                                               (["weather"], ["weather"])])
def test_a_malformed_selection_is_retried_then_falls_back(fallback, expected):
    out = {lib.name: offered_tools(lib, [lib.mw.LLMToolSelectorMiddleware(
        model=selection(lib, [None, None]), on_parsing_failure=fallback)]) for lib in SIDES}
    assert out["rag"] == out["langchain"]
    assert out["rag"][0] == [expected]


def test_a_selection_naming_an_unknown_tool_is_refused():
    for lib in SIDES:
        with pytest.raises(Exception, match=r"Model selected invalid tools: \['teleport'\]"):
            offered_tools(lib, [lib.mw.LLMToolSelectorMiddleware(model=selection(lib, [["teleport"]]))])


def test_the_todo_list_lands_in_the_state_as_langchain():
    todos = [{"content": "add", "status": "in_progress"}, {"content": "answer", "status": "pending"}]
    replies = [("", [("write_todos", {"todos": todos}, "t1")]), ("", [("add", {"a": 1, "b": 2}, "c1")]), ("3", [])]
    out = {}
    for lib in SIDES:
        agent = lib.create_agent(scripted(lib, replies), [lib.add], middleware=[lib.mw.TodoListMiddleware()])
        result = agent.invoke(QUESTION)
        out[lib.name] = (normal(result["messages"]), result["todos"])
    assert out["rag"] == out["langchain"]
    assert out["rag"][1] == todos


def test_two_todo_writes_in_one_reply_are_refused_as_in_langchain():
    call = {"todos": [{"content": "x", "status": "pending"}]}
    replies = [("", [("write_todos", call, "t1"), ("write_todos", call, "t2")]), ("ok", [])]
    out = {lib.name: normal(lib.create_agent(scripted(lib, replies), [lib.add],
                                             middleware=[lib.mw.TodoListMiddleware()]).invoke(QUESTION)["messages"])
           for lib in SIDES}
    assert out["rag"] == out["langchain"]
    assert [m["status"] for m in out["rag"] if m["type"] == "tool"] == ["error", "error"]


def test_the_todo_prompt_follows_the_agents_system_prompt():
    from rag.agents.middleware import TodoListMiddleware
    seen = []

    @OURS.mw.wrap_model_call
    def spy(request, handler):
        seen.append(request.system_prompt)
        return handler(request)
    OURS.create_agent(scripted(OURS, [("ok", [])]), [OURS.add], system_prompt="Be brief.",
                      middleware=[TodoListMiddleware(system_prompt="Plan first."), spy]).invoke(QUESTION)
    assert seen == ["Be brief.\n\nPlan first."]
