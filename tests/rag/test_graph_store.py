"""rag.graph.store: what LangGraph's own store tests do not pin down — bad input named
clearly, the two stores agreeing, SQLite shared by processes, search equal to a brute-force
scan, and a graph's nodes reaching the store."""

from __future__ import annotations

import multiprocessing
import sqlite3
from typing import TypedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rag.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from rag.errors import UsageError, ValidationError
from rag.graph import START, StateGraph
from rag.graph.config import get_store
from rag.graph.store import InvalidNamespaceError
from rag.graph.store.memory import InMemoryStore
from rag.graph.store.sqlite import SqliteStore


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        yield InMemoryStore()
    else:
        with SqliteStore.from_conn_string(str(tmp_path / "store.db")) as sqlite_store:
            yield sqlite_store


@pytest.mark.parametrize("namespace", [(), ("a", 3), ("a.b",), ("a", "")])
def test_a_bad_namespace_is_refused_naming_it(store, namespace):
    with pytest.raises(InvalidNamespaceError) as raised:
        store.put(namespace, "k", {"v": 1})
    assert isinstance(raised.value, ValueError)
    if namespace:
        assert repr(namespace) in str(raised.value) or str(namespace) in str(raised.value)


def test_a_value_that_is_not_a_dict_is_refused(store):
    with pytest.raises(ValidationError, match=r"must be a dict.*got list"):
        store.put(("ns",), "k", [1, 2])  # type: ignore[arg-type]


def test_a_value_that_is_not_json_names_the_key_field_and_type(store):
    with pytest.raises(ValidationError, match=r"'k'.*field 'when\.at' is set"):
        store.put(("ns",), "k", {"when": {"at": {1, 2}}})
    assert store.get(("ns",), "k") is None


def test_a_filter_key_that_is_not_a_path_is_refused(store):
    with pytest.raises(ValidationError, match="Invalid filter key"):
        store.search(("ns",), filter={"a') OR 1=1 --": 1})


def test_an_index_without_dims_is_refused():
    with pytest.raises(ValidationError, match="dims"):
        InMemoryStore(index={"embed": HashingEmbeddings(dim=8)})  # type: ignore[typeddict-item]


def test_negative_limit_is_refused(store):
    with pytest.raises(ValidationError, match="limit must be an int >= 0, got -1"):
        store.search(("ns",), limit=-1)


def test_get_store_outside_a_graph_is_a_usage_error():
    with pytest.raises(UsageError, match="inside a graph node"):
        get_store()


def test_a_bool_filter_does_not_match_the_number_one(store):
    store.put(("ns",), "flag", {"on": True})
    store.put(("ns",), "one", {"on": 1})
    assert [item.key for item in store.search(("ns",), filter={"on": True})] == ["flag"]


_values = st.fixed_dictionaries({"n": st.integers(-5, 5), "tag": st.sampled_from(["a", "b"]),
                                 "flag": st.booleans()})
_filters = st.one_of(
    st.fixed_dictionaries({"tag": st.sampled_from(["a", "b"])}),
    st.fixed_dictionaries({"n": st.fixed_dictionaries({op: st.integers(-5, 5)}) for op in ["$gt", "$lte", "$ne"]}),
    st.fixed_dictionaries({"flag": st.booleans(), "n": st.fixed_dictionaries({"$gte": st.integers(-5, 5)})}),
)


@settings(deadline=None, max_examples=40)
@given(values=st.lists(_values, max_size=12), filter=_filters)
def test_memory_and_sqlite_stores_find_the_same_items(values, filter):
    memory = InMemoryStore()
    with SqliteStore.from_conn_string(":memory:") as sqlite_store:
        for i, value in enumerate(values):
            memory.put(("ns", str(i % 3)), f"k{i}", value)
            sqlite_store.put(("ns", str(i % 3)), f"k{i}", value)
        found = {(item.namespace, item.key) for item in memory.search(("ns",), filter=filter, limit=100)}
        assert found == {(item.namespace, item.key) for item in sqlite_store.search(("ns",), filter=filter, limit=100)}


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_semantic_search_equals_a_brute_force_cosine_scan(kind, tmp_path):
    embeddings = DeterministicFakeEmbedding(size=16)
    texts = [f"memory number {i}" for i in range(60)]
    index = {"dims": 16, "embed": embeddings, "fields": ["text"]}
    with SqliteStore.from_conn_string(str(tmp_path / "s.db"), index=index) as sqlite_store:
        store = InMemoryStore(index=index) if kind == "memory" else sqlite_store
        for i, text in enumerate(texts):
            store.put(("m",), str(i), {"text": text})
        store.delete(("m",), "7")  # a freed row must not come back
        found = store.search(("m",), query="number 42?", limit=10)
    matrix = np.array([embeddings.embed_query(t) for t in texts])
    query = np.array(embeddings.embed_query("number 42?"))
    cosine = matrix @ query / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
    cosine[7] = -np.inf
    expected = [str(i) for i in np.argsort(-cosine, kind="stable")[:10]]
    assert [item.key for item in found] == expected
    assert [item.score for item in found] == pytest.approx([float(cosine[int(k)]) for k in expected], abs=1e-5)


def _write_many(path: str, worker: int) -> None:
    with SqliteStore.from_conn_string(path) as store:
        for i in range(50):
            store.put(("shared",), f"{worker}-{i}", {"worker": worker, "i": i})


def test_processes_writing_one_sqlite_file_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.db")
    with SqliteStore.from_conn_string(path) as store:
        store.setup()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, w)) for w in range(3)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
        assert process.exitcode == 0
    with SqliteStore.from_conn_string(path) as store:
        assert len(store.search(("shared",), limit=1000)) == 150


def test_sqlite_values_are_json_text_never_pickle(tmp_path):
    path = str(tmp_path / "s.db")
    with SqliteStore.from_conn_string(path) as store:
        store.put(("ns",), "k", {"text": "héllo", "n": [1, 2]})
    raw = sqlite3.connect(path).execute("SELECT value FROM store").fetchone()[0]
    assert raw == '{"text":"héllo","n":[1,2]}'


def test_a_node_reads_what_another_thread_of_the_graph_stored(tmp_path):
    class State(TypedDict):
        user: str
        reply: str

    def remember(state, store):
        store.put(("users", state["user"]), "fact", {"text": "likes tea"})
        return {}

    def recall(state):
        item = get_store().get(("users", state["user"]), "fact")
        return {"reply": item.value["text"] if item else "nothing"}

    with SqliteStore.from_conn_string(str(tmp_path / "m.db")) as store:
        graph = (StateGraph(State).add_node("remember", remember).add_node("recall", recall)
                 .add_edge(START, "remember").add_edge("remember", "recall").compile(store=store))
        assert graph.store is store
        assert graph.invoke({"user": "ann", "reply": ""})["reply"] == "likes tea"


def test_compile_refuses_a_store_that_is_not_a_base_store():
    class State(TypedDict):
        n: int

    with pytest.raises(ValidationError, match="store must be a BaseStore.*got dict"):
        StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a").compile(store={})


def test_a_search_sees_vectors_another_connection_wrote_after_it_last_searched(tmp_path):
    index = {"dims": 64, "embed": HashingEmbeddings(dim=64), "fields": ["text"]}
    path = str(tmp_path / "shared.db")
    with SqliteStore.from_conn_string(path, index=index) as reader, \
            SqliteStore.from_conn_string(path, index=index) as writer:
        reader.put(("notes",), "old", {"text": "stock prices fell sharply"})
        assert [item.key for item in reader.search(("notes",), query="cats on mats")] == ["old"]
        writer.put(("notes",), "new", {"text": "the cat sat on the mat"})
        assert reader.search(("notes",), query="the cat sat on a mat")[0].key == "new"
        writer.delete(("notes",), "new")
        assert [item.key for item in reader.search(("notes",), query="the cat sat on a mat")] == ["old"]
