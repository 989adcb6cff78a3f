"""Callbacks: handlers reach every nested run (threads, async tasks), failing handlers are
contained, ConsoleCallbackHandler output, and trace file reading."""

import asyncio
import io
import json
import logging
import threading

import pytest

from rag.callbacks import BaseCallbackHandler, ConsoleCallbackHandler, FileTracer, format_trace, read_trace
from rag.chains import create_retrieval_chain, create_stuff_documents_chain
from rag.documents import Document
from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.prompts import ChatPromptTemplate
from rag.retrievers import BaseRetriever
from rag.runnables import RunnableLambda
from rag.tools import create_retriever_tool


class Fixed(BaseRetriever):
    def _get_relevant_documents(self, query, **kwargs):
        return [Document(f"doc for {query}")]


class Events(BaseCallbackHandler):
    """Records (event, run_id, parent_run_id, thread) for every event."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def _record(self, event, kwargs):
        with self.lock:
            self.events.append((event, kwargs["run_id"], kwargs.get("parent_run_id"), threading.get_ident()))

    def on_chain_start(self, serialized, inputs, **kwargs):
        self._record("chain_start", kwargs)

    def on_retriever_start(self, serialized, query, **kwargs):
        self._record("retriever_start", kwargs)

    def on_retriever_end(self, documents, **kwargs):
        self._record("retriever_end", kwargs)

    def on_chat_model_start(self, serialized, messages, **kwargs):
        self._record("chat_model_start", kwargs)

    def on_llm_new_token(self, token, **kwargs):
        self._record("token", kwargs)

    def on_tool_start(self, serialized, input_str, **kwargs):
        self._record("tool_start", kwargs)

    def on_tool_end(self, output, **kwargs):
        self._record("tool_end", kwargs)


PROMPT = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{input}")])


def chain(responses=("ok",)):
    return create_retrieval_chain(Fixed(), create_stuff_documents_chain(FakeListChatModel(responses=list(responses)),
                                                                       PROMPT))


def starts(handler):
    return [e for e in handler.events if e[0].endswith("_start")]


def assert_one_connected_tree(handler):
    run_ids = {e[1] for e in starts(handler)}
    roots = [e for e in starts(handler) if e[2] is None]
    assert len(roots) == 1
    assert all(e[2] in run_ids for e in starts(handler) if e[2] is not None)


def test_base_handler_methods_are_optional_no_ops():
    assert chain().invoke({"input": "q"}, {"callbacks": [BaseCallbackHandler()]})["answer"] == "ok"


def test_handler_sees_every_nested_step_with_parent_ids():
    handler = Events()
    chain().invoke({"input": "q"}, {"callbacks": [handler]})
    kinds = {e[0] for e in handler.events}
    assert {"chain_start", "retriever_start", "retriever_end", "chat_model_start"} <= kinds
    assert_one_connected_tree(handler)


def test_batch_runs_in_threads_and_each_input_gets_its_own_tree():
    handler = Events()
    chain(["a", "b", "c"]).batch([{"input": str(i)} for i in range(3)], {"callbacks": [handler]})
    assert len([e for e in starts(handler) if e[2] is None]) == 3
    run_ids = {e[1] for e in starts(handler)}
    assert all(e[2] in run_ids for e in starts(handler) if e[2] is not None)


def test_async_path_reaches_nested_steps_across_tasks():
    handler = Events()
    asyncio.run(chain().ainvoke({"input": "q"}, {"callbacks": [handler]}))
    assert "retriever_start" in {e[0] for e in handler.events} and "chat_model_start" in {e[0] for e in handler.events}
    assert_one_connected_tree(handler)


def test_streaming_reports_each_token_under_the_model_run():
    handler = Events()
    list(chain(["two words"]).stream({"input": "q"}, {"callbacks": [handler]}))
    model_runs = {e[1] for e in handler.events if e[0] == "chat_model_start"}
    tokens = [e for e in handler.events if e[0] == "token"]
    assert len(tokens) > 1 and {e[1] for e in tokens} == model_runs


def test_a_runnable_called_without_config_inside_a_function_nests_under_it():
    handler = Events()
    retriever = Fixed()
    outer = RunnableLambda(lambda q: retriever.invoke(q), name="outer")
    outer.invoke("q", {"callbacks": [handler]})
    outer_id = next(e[1] for e in handler.events if e[0] == "chain_start")
    assert next(e for e in handler.events if e[0] == "retriever_start")[2] == outer_id


def test_a_tool_run_is_the_parent_of_its_retriever_run():
    handler = Events()
    create_retriever_tool(Fixed(), "search", "Search.").invoke({"query": "q"}, {"callbacks": [handler]})
    tool_id = next(e[1] for e in handler.events if e[0] == "tool_start")
    assert next(e for e in handler.events if e[0] == "retriever_start")[2] == tool_id


class Broken(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        raise RuntimeError("handler bug")


def test_a_failing_handler_is_logged_and_the_chain_goes_on(caplog):
    with caplog.at_level(logging.WARNING, logger="rag.callbacks"):
        assert chain().invoke({"input": "q"}, {"callbacks": [Broken()]})["answer"] == "ok"
    assert "handler bug" in caplog.text


def test_a_failing_handler_with_raise_error_stops_the_chain():
    strict = Broken()
    strict.raise_error = True
    with pytest.raises(RuntimeError, match="handler bug"):
        chain().invoke({"input": "q"}, {"callbacks": [strict]})


def test_console_handler_indents_children_and_shows_outputs():
    out = io.StringIO()
    chain().invoke({"input": "q"}, {"callbacks": [ConsoleCallbackHandler(out)]})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("> retrieval_chain [chain]")
    assert lines[-1].startswith("< retrieval_chain [chain]") and '"answer": "ok"' in lines[-1]
    retriever_line = next(line for line in lines if "[retriever]" in line and line.lstrip().startswith(">"))
    assert len(retriever_line) - len(retriever_line.lstrip()) > 0
    assert "\033[" not in out.getvalue()


def test_console_handler_colours_when_asked_and_marks_errors():
    out = io.StringIO()
    failing = RunnableLambda(lambda x: 1 / 0, name="divide")
    with pytest.raises(ZeroDivisionError):
        failing.invoke(1, {"callbacks": [ConsoleCallbackHandler(out, color=True)]})
    assert "\033[31m" in out.getvalue() and "! " in out.getvalue() and "ZeroDivisionError" in out.getvalue()


def test_file_tracer_writes_whole_lines_under_concurrent_invocations(tmp_path):
    path = tmp_path / "nested" / "trace.jsonl"
    tracer = FileTracer(path)
    chain([str(i) for i in range(8)]).batch([{"input": str(i)} for i in range(8)], {"callbacks": [tracer]})
    records = read_trace(path)
    assert len(records) == 8 and all(r["name"] == "retrieval_chain" and r["children"] for r in records)


def test_file_tracer_async_invocation_is_recorded(tmp_path):
    path = tmp_path / "trace.jsonl"
    asyncio.run(chain().ainvoke({"input": "q"}, {"callbacks": [FileTracer(path)]}))
    (record,) = read_trace(path)
    assert record["outputs"]["answer"] == "ok"


def test_read_trace_names_the_line_that_is_not_a_record(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"name": "x", "run_type": "chain", "children": []}) + "\n{oops\n")
    with pytest.raises(ValidationError, match=":2 is not JSON"):
        format_trace(path)


def test_format_trace_shows_errors_and_separates_invocations(tmp_path):
    path = tmp_path / "t.jsonl"
    tracer = FileTracer(path)
    RunnableLambda(lambda x: x, name="fine").invoke(1, {"callbacks": [tracer]})
    with pytest.raises(ZeroDivisionError):
        RunnableLambda(lambda x: 1 / 0, name="divide").invoke(1, {"callbacks": [tracer]})
    first, second = format_trace(path).split("\n\n")
    assert first.startswith("fine [chain]") and "-> 1" in first
    assert second.startswith("divide [chain]") and "ERROR ZeroDivisionError" in second
