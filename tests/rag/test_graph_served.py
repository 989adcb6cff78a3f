"""A compiled graph is a Runnable like any other: served over HTTP with add_routes and
called with RemoteRunnable (a real server on 127.0.0.1)."""

from starlette.applications import Starlette

from rag.graph import START, MessagesState, StateGraph
from rag.messages import AIMessage, HumanMessage
from rag.models import FakeListChatModel
from rag.serve import RemoteRunnable, add_routes, serve_in_thread


def test_a_graph_served_over_http_answers_invoke_and_stream():
    model = FakeListChatModel(responses=["hello there"])
    graph = StateGraph(MessagesState).add_node("chat", lambda s: {"messages": [model.invoke(s["messages"])]})
    app = Starlette()
    add_routes(app, graph.add_edge(START, "chat").compile(), path="/graph")
    with serve_in_thread(app) as url:
        remote = RemoteRunnable(f"{url}/graph", timeout=30)
        out = remote.invoke({"messages": [("human", "hi")]})
        chunks = list(remote.stream({"messages": [("human", "hi")]}))
        schema = remote.input_schema
    assert [type(m) for m in out["messages"]] == [HumanMessage, AIMessage]
    assert out["messages"][1].content == "hello there"
    assert chunks == [{"chat": {"messages": [AIMessage("hello there", id=chunks[0]["chat"]["messages"][0].id)]}}]
    assert "messages" in schema["properties"]
