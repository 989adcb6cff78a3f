"""End to end against a real OpenAI-compatible server on 127.0.0.1: store -> retriever ->
stuff-documents chain -> ChatOpenAI (invoke, batch, stream, async), a retriever tool called
through a model's tool call, and the FileTracer's record of the whole run tree."""

import asyncio
import io
import json

import pytest
from chat_completions_server import Reply, ScriptedServer, completion, delta_event

from rag.callbacks import FileTracer, format_trace, print_trace
from rag.chains import create_retrieval_chain, create_stuff_documents_chain
from rag.documents import Document
from rag.embeddings import HashingEmbeddings
from rag.messages import AIMessage, HumanMessage, ToolMessage
from rag.models import ChatOpenAI
from rag.prompts import ChatPromptTemplate
from rag.tools import create_retriever_tool
from stores import FAISS, InMemoryVectorStore

DOCS = [Document("Paris is the capital of France.", {"source": "fr.txt"}),
        Document("Berlin is the capital of Germany.", {"source": "de.txt"}),
        Document("Madrid is the capital of Spain.", {"source": "es.txt"})]
PROMPT = ChatPromptTemplate.from_messages([("system", "Answer only from:\n{context}"), ("human", "{input}")])


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def llm(server):
    model = ChatOpenAI("test-model", base_url=server.base_url, api_key=None, max_retries=0)
    yield model
    model.close()


@pytest.fixture(params=["memory", "faiss"])
def retriever(request):
    store_type = InMemoryVectorStore if request.param == "memory" else FAISS
    return store_type.from_documents(DOCS, HashingEmbeddings(dim=256)).as_retriever(search_kwargs={"k": 1})


def rag_chain(retriever, llm):
    return create_retrieval_chain(retriever, create_stuff_documents_chain(llm, PROMPT))


def sent_system_prompt(request_body):
    return request_body["messages"][0]["content"]


def test_invoke_sends_the_retrieved_document_and_returns_the_answer(server, llm, retriever):
    server.script(Reply(body=completion("Paris.")))
    result = rag_chain(retriever, llm).invoke({"input": "What is the capital of France?"})
    assert result["answer"] == "Paris."
    assert [(d.page_content, d.metadata) for d in result["context"]] == [(DOCS[0].page_content, DOCS[0].metadata)]
    assert sent_system_prompt(server.requests[0]) == "Answer only from:\nParis is the capital of France."
    assert server.requests[0]["messages"][1] == {"role": "user", "content": "What is the capital of France?"}


def test_batch_answers_each_question_from_its_own_document(server, llm, retriever):
    server.script(*[Reply(body=completion("ok")) for _ in range(3)])
    results = rag_chain(retriever, llm).batch([{"input": "capital of France"}, {"input": "capital of Germany"},
                                               {"input": "capital of Spain"}])
    assert [r["context"][0].metadata["source"] for r in results] == ["fr.txt", "de.txt", "es.txt"]
    assert sorted(sent_system_prompt(body).split("\n")[1] for body in server.requests) == sorted(
        d.page_content for d in DOCS)


def test_stream_yields_input_context_then_the_servers_tokens(server, llm, retriever):
    server.script(Reply(events=[delta_event("Par"), delta_event("is"), delta_event("."), delta_event(finish="stop"),
                                "[DONE]"]))
    chunks = list(rag_chain(retriever, llm).stream({"input": "capital of France"}))
    assert chunks[0] == {"input": "capital of France"} and list(chunks[1]) == ["context"]
    assert [c["answer"] for c in chunks[2:] if c["answer"]] == ["Par", "is", "."]
    assert server.requests[0]["stream"] is True


def test_ainvoke_and_astream(server, llm, retriever):
    server.script(Reply(body=completion("Berlin.")),
                  Reply(events=[delta_event("Ber"), delta_event("lin."), delta_event(finish="stop"), "[DONE]"]))
    chain = rag_chain(retriever, llm)

    async def run():
        answer = await chain.ainvoke({"input": "capital of Germany"})
        chunks = [c async for c in chain.astream({"input": "capital of Germany"})]
        return answer, chunks

    answer, chunks = asyncio.run(run())
    assert answer["answer"] == "Berlin." and answer["context"][0].metadata["source"] == "de.txt"
    assert "".join(c.get("answer", "") for c in chunks) == "Berlin."


def test_abatch(server, llm, retriever):
    server.script(Reply(body=completion("a")), Reply(body=completion("a")))
    results = asyncio.run(rag_chain(retriever, llm).abatch([{"input": "France"}, {"input": "Spain"}]))
    assert [r["answer"] for r in results] == ["a", "a"]
    assert [r["context"][0].metadata["source"] for r in results] == ["fr.txt", "es.txt"]


def tool_call_reply(query):
    return Reply(body=completion("", tool_calls=[{"id": "call_1", "type": "function", "function": {
        "name": "capitals", "arguments": json.dumps({"query": query})}}]))


def test_retriever_tool_round_trip_through_a_model_tool_call(server, llm, retriever):
    search = create_retriever_tool(retriever, "capitals", "Search facts about capitals.",
                                   response_format="content_and_artifact")
    server.script(tool_call_reply("capital of Spain"), Reply(body=completion("Madrid.")))
    model = llm.bind_tools([search])
    messages = [HumanMessage("What is the capital of Spain?")]
    first = model.invoke(messages)
    assert server.requests[0]["tools"] == [search.to_openai_tool()]
    assert first.tool_calls[0]["args"] == {"query": "capital of Spain"}
    result = search.invoke(first.tool_calls[0])
    assert isinstance(result, ToolMessage) and result.tool_call_id == "call_1"
    assert result.content == "Madrid is the capital of Spain." and result.artifact[0].metadata["source"] == "es.txt"
    final = model.invoke([*messages, first, result])
    assert final.content == "Madrid."
    assert server.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "name": "capitals",
                                                  "content": "Madrid is the capital of Spain."}


def walk(node):
    yield node
    for child in node["children"]:
        yield from walk(child)


def test_file_tracer_records_the_whole_tree_with_parent_ids_and_token_usage(server, llm, retriever, tmp_path):
    server.script(Reply(body=completion("Paris.")))
    path = tmp_path / "trace.jsonl"
    rag_chain(retriever, llm).invoke({"input": "capital of France"}, {"callbacks": [FileTracer(path)]})
    lines = path.read_text().splitlines()
    assert len(lines) == 1
    root = json.loads(lines[0])
    assert root["name"] == "retrieval_chain" and root["parent_run_id"] is None
    assert root["outputs"]["answer"] == "Paris."
    nodes = list(walk(root))
    for node in nodes:
        for child in node["children"]:
            assert child["parent_run_id"] == node["id"]
    by_type = {node["run_type"]: node for node in nodes}
    assert by_type["retriever"]["inputs"] == {"query": "capital of France"}
    assert by_type["retriever"]["outputs"]["documents"][0]["page_content"] == "Paris is the capital of France."
    assert by_type["chat_model"]["token_usage"] == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    names = {node["name"] for node in nodes}
    assert {"retrieve_documents", "stuff_documents_chain", "format_inputs", "ChatOpenAI", "ChatPromptTemplate",
            "StrOutputParser"} <= names
    assert all(node["duration_ms"] is not None and node["end_time"] >= node["start_time"] for node in nodes)


def test_file_tracer_appends_one_line_per_invocation_including_failures(server, llm, retriever, tmp_path):
    server.script(Reply(body=completion("one")), Reply(401, {"error": {"message": "bad key"}}))
    path = tmp_path / "trace.jsonl"
    tracer = FileTracer(path)
    chain = rag_chain(retriever, llm)
    chain.invoke({"input": "France"}, {"callbacks": [tracer]})
    with pytest.raises(Exception):
        chain.invoke({"input": "France"}, {"callbacks": [tracer]})
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 2 and records[0]["error"] is None
    assert "401" in records[1]["error"] or "bad key" in records[1]["error"]
    failed_model = [n for n in walk(records[1]) if n["run_type"] == "chat_model"][0]
    assert failed_model["error"] is not None


def test_print_trace_shows_the_recorded_tree(server, llm, retriever, tmp_path):
    server.script(Reply(body=completion("Paris.")))
    path = tmp_path / "trace.jsonl"
    rag_chain(retriever, llm).invoke({"input": "capital of France"}, {"callbacks": [FileTracer(path)]})
    out = io.StringIO()
    print_trace(path, out)
    text = out.getvalue()
    assert text == format_trace(path) + "\n"
    lines = text.splitlines()
    assert lines[0].startswith("retrieval_chain [chain]")
    retriever_line = next(line for line in lines if "[retriever]" in line)
    model_line = next(line for line in lines if "ChatOpenAI [chat_model]" in line)
    assert retriever_line.index("[retriever]") > lines[0].index("[chain]") and "1 documents" in retriever_line
    assert "tokens in=7 out=3" in model_line
    assert any(line.lstrip("│ ").startswith(("├─", "└─")) for line in lines[1:])
