"""Agentic RAG: an agent whose tool is an index's retriever answers citing numbered
sources that stay unique across its searches (NumberedSources)."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.agents import CITE_SOURCES_PROMPT, NumberedSources, create_agent
from rag.documents import Document
from rag.graph.checkpoint.sqlite import SqliteSaver
from rag.index import Index
from rag.messages import AIMessage, ToolMessage
from rag.models import GenericFakeChatModel


@pytest.fixture
def index(corpus: Path, tmp_path: Path) -> Index:
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([corpus])
    return index


def search_call(query, call_id):
    return AIMessage("", tool_calls=[{"name": "search_docs", "args": {"query": query}, "id": call_id}])


def test_numbers_are_unique_across_searches_and_a_passage_found_again_keeps_its_number():
    sources = NumberedSources()
    a, b, c = Document("A", id="a"), Document("B", id="b"), Document("C", id="c")
    assert [d.metadata["n"] for d in sources.number([a, b])] == [1, 2]
    assert [d.metadata["n"] for d in sources.number([c, a])] == [3, 1]
    assert a.metadata == {}  # the caller's documents are not changed


def test_documents_without_ids_are_told_apart_by_source_and_text():
    sources = NumberedSources()
    same = [Document("x", metadata={"source": "s"}), Document("x", metadata={"source": "s"})]
    other = Document("x", metadata={"source": "t"})
    assert [d.metadata["n"] for d in sources.number([*same, other])] == [1, 1, 2]


def test_cited_gives_the_cited_passages_and_invalid_citations_the_invented_numbers():
    sources = NumberedSources()
    sources.number([Document("A", id="a"), Document("B", id="b")])
    answer = "B is true [2]. A too [1][7]."
    assert [d.page_content for d in sources.cited(answer)] == ["B", "A"]
    assert sources.invalid_citations(answer) == [7]


def test_an_agent_searching_twice_cites_passages_from_both_searches(index):
    sources = NumberedSources()
    search_docs = sources.retriever_tool(index.as_retriever(search_kwargs={"k": 1}), "search_docs", "Search the docs.")
    model = GenericFakeChatModel(messages=iter([
        search_call("cats purr", "c1"), search_call("dogs bark postman", "c2"),
        "Cats purr when content [1]; dogs bark at the postman [2].",
    ]))
    result = create_agent(model, [search_docs], system_prompt=CITE_SOURCES_PROMPT).invoke(
        {"messages": [("human", "What do cats and dogs do?")]})
    tool_texts = [m.content for m in result["messages"] if isinstance(m, ToolMessage)]
    assert tool_texts[0].startswith("[1] ") and tool_texts[1].startswith("[2] ")
    cited = [Path(d.metadata["source"]).name for d in sources.cited(result["messages"][-1].text)]
    assert cited == ["cats.md", "dogs.txt"]


def test_the_numbering_is_rebuilt_from_a_thread_saved_in_sqlite(index, tmp_path):
    def agent(sources, replies, saver):
        tool = sources.retriever_tool(index.as_retriever(search_kwargs={"k": 1}), "search_docs", "Search the docs.")
        return create_agent(GenericFakeChatModel(messages=iter(replies)), [tool], checkpointer=saver)

    thread = {"configurable": {"thread_id": "t"}}
    with SqliteSaver.from_conn_string(str(tmp_path / "threads.sqlite")) as saver:
        agent(NumberedSources(), [search_call("cats purr", "c1"), "Cats purr [1]."], saver).invoke(
            {"messages": [("human", "cats?")]}, thread)
    with SqliteSaver.from_conn_string(str(tmp_path / "threads.sqlite")) as saver:
        messages = agent(NumberedSources(), [], saver).get_state(thread).values["messages"]
        resumed = NumberedSources.from_messages(messages)
        later = agent(resumed, [search_call("dogs bark postman", "c2"), "Dogs bark [2]."], saver).invoke(
            {"messages": [("human", "dogs?")]}, thread)
    assert [Path(d.metadata["source"]).name for d in resumed.cited("[1] [2]")] == ["cats.md", "dogs.txt"]
    assert later["messages"][-2].content.startswith("[2] ")



@settings(max_examples=50, deadline=None)
@given(searches=st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=6))
def test_numbers_run_from_one_without_gaps_and_each_passage_keeps_one_number(searches):
    sources = NumberedSources()
    numbers: dict[int, int] = {}
    for found in searches:
        for passage, numbered in zip(found, sources.number([Document(f"p{i}", id=f"d{i}") for i in found])):
            assert numbers.setdefault(passage, numbered.metadata["n"]) == numbered.metadata["n"]
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
    assert all(sources.get(n).id == f"d{p}" for p, n in numbers.items())
