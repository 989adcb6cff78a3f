"""Node caching: CachePolicy on a node, InMemoryCache and SqliteCache, keyed as LangGraph
keys it (issue 38, item 5). Both caches run every behaviour test (one fixture builds them)."""

from __future__ import annotations

import asyncio
import doctest
import json
import operator
import sqlite3
import subprocess
import sys
import textwrap
import threading
from typing import Annotated, Any, Iterator, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rag.graph.cache
import rag.graph.cache.keys
import rag.graph.cache.memory
import rag.graph.cache.sqlite
from rag.errors import InvalidTypeError, StorageError, ValidationError
from rag.graph import END, START, StateGraph
from rag.graph.cache import BaseCache, InMemoryCache, SqliteCache
from rag.graph.cache.keys import CACHE_NS_WRITES, default_cache_key, digest
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.serde import SerializationError
from rag.graph.types import CachePolicy, Command, Send, interrupt


class Clock:
    """Seconds that move only when a test says so (no wall-clock waits)."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite"])
def clock_and_cache(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[tuple[Clock, BaseCache]]:
    clock = Clock()
    if request.param == "memory":
        yield clock, InMemoryCache(clock=clock)
        return
    with SqliteCache(path=tmp_path / "cache.sqlite", clock=clock) as cache:
        yield clock, cache


@pytest.fixture
def cache(clock_and_cache: tuple[Clock, BaseCache]) -> BaseCache:
    return clock_and_cache[1]


class State(TypedDict, total=False):
    n: int
    label: str
    seen: Annotated[list, operator.add]


def _counted(calls: list, name: str = "square"):
    def square(state: State) -> dict:
        calls.append(state["n"])
        return {"n": state["n"] ** 2}

    square.__name__ = square.__qualname__ = name
    return square


def _graph(node, cache: BaseCache, policy: CachePolicy = CachePolicy(), **compile_args):
    return (StateGraph(State).add_node("square", node, cache_policy=policy)
            .add_edge(START, "square").compile(cache=cache, **compile_args))


# -- a hit skips the node -------------------------------------------------------------------
def test_a_node_given_an_input_seen_before_does_not_run_again(cache):
    calls: list = []
    app = _graph(_counted(calls), cache)
    assert app.invoke({"n": 3}) == {"n": 9, "seen": []}
    assert app.invoke({"n": 3}) == {"n": 9, "seen": []}
    assert calls == [3]


def test_a_node_given_another_input_runs(cache):
    calls: list = []
    app = _graph(_counted(calls), cache)
    app.invoke({"n": 3})
    app.invoke({"n": 4})
    assert calls == [3, 4]


def test_a_cached_update_is_marked_in_the_updates_stream(cache):
    app = _graph(_counted([]), cache)
    assert list(app.stream({"n": 2})) == [{"square": {"n": 4}}]
    assert list(app.stream({"n": 2})) == [{"square": {"n": 4}, "__metadata__": {"cached": True}}]


def test_a_node_without_a_cache_policy_always_runs(cache):
    calls: list = []
    app = StateGraph(State).add_node("square", _counted(calls)).add_edge(START, "square").compile(cache=cache)
    app.invoke({"n": 3})
    app.invoke({"n": 3})
    assert calls == [3, 3]


def test_the_cached_goto_of_a_command_is_followed_again(cache):
    calls: list = []

    def decide(state: State) -> Command:
        calls.append(state["n"])
        return Command(update={"label": "big" if state["n"] > 5 else "small"}, goto="mark")

    app = (StateGraph(State).add_node("decide", decide, cache_policy=CachePolicy())
           .add_node("mark", lambda s: {"seen": [s["label"]]}).add_edge(START, "decide").compile(cache=cache))
    first, second = app.invoke({"n": 9}), app.invoke({"n": 9})
    assert first == second == {"n": 9, "label": "big", "seen": ["big"]}
    assert calls == [9]


def test_sends_are_cached_per_argument(cache):
    calls: list = []

    def work(item: dict) -> dict:
        calls.append(item["n"])
        return {"seen": [item["n"] * 10]}

    app = (StateGraph(State).add_node("fan", lambda s: {})
           .add_node("work", work, cache_policy=CachePolicy())
           .add_edge(START, "fan")
           .add_conditional_edges("fan", lambda s: [Send("work", {"n": i}) for i in (1, 2, 1)])
           .compile(cache=cache))
    assert app.invoke({"n": 0})["seen"] == [10, 20, 10]
    assert app.invoke({"n": 0})["seen"] == [10, 20, 10]
    assert sorted(calls) == [1, 1, 2]  # the first run's two 1s run side by side; the second run runs none


# -- keys -------------------------------------------------------------------------------------
def test_a_key_func_decides_which_inputs_share_an_entry(cache):
    calls: list = []
    app = _graph(_counted(calls), cache, CachePolicy(key_func=lambda state: str(state["n"])))
    app.invoke({"n": 3, "label": "first"})
    assert app.invoke({"n": 3, "label": "other"}) == {"n": 9, "label": "other", "seen": []}
    assert calls == [3]


def test_entries_sit_under_langgraphs_namespace_for_the_node(cache):
    app = _graph(_counted([], name="square_fn"), cache)
    app.invoke({"n": 5})
    namespace = (CACHE_NS_WRITES, f"{__name__}.square_fn", "square")
    key = digest(default_cache_key({"n": 5, "seen": []}))
    assert cache.get([(namespace, key)]) == {(namespace, key): {"update": {"n": 25}, "goto": []}}


def test_the_default_key_cannot_read_an_object_and_says_to_pass_a_key_func(cache):
    class Opaque:
        pass

    class Loose(TypedDict, total=False):
        thing: Any

    app = (StateGraph(Loose).add_node("node", lambda s: {}, cache_policy=CachePolicy())
           .add_edge(START, "node").compile(cache=cache))
    with pytest.raises(InvalidTypeError, match=r"Opaque.*key_func"):
        app.invoke({"thing": Opaque()})


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                     max_leaves=10)


@settings(deadline=None, max_examples=80)
@given(value=st.dictionaries(st.text(max_size=4), _json, max_size=4))
def test_the_default_key_does_not_depend_on_dict_order(value):
    reordered = dict(reversed(list(value.items())))
    assert default_cache_key(value) == default_cache_key(reordered)


@settings(deadline=None, max_examples=80)
@given(first=_json, second=_json)
def test_two_inputs_share_a_default_key_exactly_when_their_canonical_json_is_equal(first, second):
    same_json = json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert (default_cache_key(first) == default_cache_key(second)) is same_json


def test_int_and_str_dict_keys_give_different_keys():
    assert default_cache_key({1: "a"}) != default_cache_key({"1": "a"})


def test_a_key_func_returning_something_else_than_str_or_bytes_is_refused(cache):
    app = _graph(_counted([]), cache, CachePolicy(key_func=lambda state: state["n"]))
    with pytest.raises(InvalidTypeError, match="must return str or bytes, got int 3"):
        app.invoke({"n": 3})


# -- what is never cached ------------------------------------------------------------------------
def test_a_node_that_raised_is_not_cached(cache):
    calls: list = []

    def fail(state: State) -> dict:
        calls.append(1)
        raise RuntimeError("boom")

    app = _graph(fail, cache)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="boom"):
            app.invoke({"n": 1})
    assert len(calls) == 2


def _asking(calls: list):
    def ask(state: State) -> dict:
        calls.append(state["n"])
        return {"label": interrupt("name?")}

    return ask


def test_a_node_that_paused_is_not_cached(cache):
    calls: list = []
    app = (StateGraph(State).add_node("ask", _asking(calls), cache_policy=CachePolicy()).add_edge(START, "ask")
           .compile(cache=cache, checkpointer=InMemorySaver()))
    for thread in ("a", "b"):
        assert "__interrupt__" in app.invoke({"n": 1}, {"configurable": {"thread_id": thread}})
    assert calls == [1, 1]


def test_an_answered_pause_is_cached_with_its_input_as_in_langgraph(cache):
    calls: list = []
    app = (StateGraph(State).add_node("ask", _asking(calls), cache_policy=CachePolicy()).add_edge(START, "ask")
           .compile(cache=cache, checkpointer=InMemorySaver()))
    first = {"configurable": {"thread_id": "a"}}
    app.invoke({"n": 1}, first)
    assert app.invoke(Command(resume="ann"), first)["label"] == "ann"
    # Another thread with the same input gets the stored answer without being asked (LangGraph 1.2.22 too).
    assert app.invoke({"n": 1}, {"configurable": {"thread_id": "b"}}) == {"n": 1, "label": "ann", "seen": []}
    assert calls == [1, 1]


def test_an_update_that_json_cannot_hold_is_refused_naming_the_cache_key(cache):
    class Loose(TypedDict, total=False):
        thing: Any

    app = (StateGraph(Loose).add_node("node", lambda s: {"thing": object()}, cache_policy=CachePolicy())
           .add_edge(START, "node").compile(cache=cache))
    with pytest.raises(SerializationError, match="cache key"):
        app.invoke({"thing": 1})


# -- ttl and clearing ---------------------------------------------------------------------------
def test_an_entry_past_its_ttl_runs_the_node_again(clock_and_cache):
    clock, cache = clock_and_cache
    calls: list = []
    app = _graph(_counted(calls), cache, CachePolicy(ttl=30))
    app.invoke({"n": 2})
    clock.now += 29
    app.invoke({"n": 2})
    clock.now += 2
    app.invoke({"n": 2})
    assert calls == [2, 2]


def test_clear_cache_of_one_node_keeps_the_others(cache):
    calls: list = []
    app = (StateGraph(State)
           .add_node("one", lambda s: calls.append("one") or {}, cache_policy=CachePolicy())
           .add_node("two", lambda s: calls.append("two") or {}, cache_policy=CachePolicy())
           .add_edge(START, "one").add_edge("one", "two").compile(cache=cache))
    app.invoke({"n": 1})
    app.clear_cache(["one"])
    app.invoke({"n": 1})
    assert calls == ["one", "two", "one"]


def test_clear_cache_forgets_every_node_and_aclear_cache_too(cache):
    calls: list = []
    app = _graph(_counted(calls), cache)
    app.invoke({"n": 2})
    app.clear_cache()
    app.invoke({"n": 2})
    asyncio.run(app.aclear_cache())
    app.invoke({"n": 2})
    assert calls == [2, 2, 2]


def test_clear_cache_without_a_cache_is_refused():
    app = StateGraph(State).add_node("square", _counted([])).add_edge(START, "square").compile()
    with pytest.raises(ValidationError, match="No cache is set"):
        app.clear_cache()


def test_clear_cache_of_a_node_the_graph_lacks_names_it(cache):
    app = _graph(_counted([]), cache)
    with pytest.raises(ValidationError, match=r"\['nope'\].*\['square'\]"):
        app.clear_cache(["nope"])


# -- async ------------------------------------------------------------------------------------
def test_the_async_run_reads_and_writes_the_same_entries(cache):
    calls: list = []

    async def square(state: State) -> dict:
        calls.append(state["n"])
        return {"n": state["n"] ** 2}

    app = _graph(square, cache)

    async def twice() -> list:
        return [await app.ainvoke({"n": 7}), [c async for c in app.astream({"n": 7})]]

    result, chunks = asyncio.run(twice())
    assert result["n"] == 49 and chunks == [{"square": {"n": 49}, "__metadata__": {"cached": True}}]
    assert calls == [7]


# -- bad arguments ------------------------------------------------------------------------------
def test_bad_policies_and_caches_are_refused_naming_the_value():
    with pytest.raises(ValidationError, match="ttl.*-1"):
        CachePolicy(ttl=-1)
    with pytest.raises(InvalidTypeError, match="key_func"):
        CachePolicy(key_func="n")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="cache_policy must be a CachePolicy"):
        StateGraph(State).add_node("x", lambda s: {}, cache_policy={"ttl": 3})
    with pytest.raises(ValidationError, match="cache must be a BaseCache.*dict"):
        StateGraph(State).add_node("x", lambda s: {}).add_edge(START, "x").compile(cache={})


# -- the caches themselves ------------------------------------------------------------------------
def test_a_value_read_back_is_a_copy(cache):
    cache.set({(("ns",), "k"): ({"items": [1]}, None)})
    cache.get([(("ns",), "k")])[(("ns",), "k")]["items"].append(2)
    assert cache.get([(("ns",), "k")]) == {(("ns",), "k"): {"items": [1]}}


def test_namespaces_with_commas_stay_apart(cache):
    cache.set({(("a,b",), "k"): (1, None), (("a", "b"), "k"): (2, None)})
    cache.clear([("a,b",)])
    assert cache.get([(("a,b",), "k"), (("a", "b"), "k")]) == {(("a", "b"), "k"): 2}


def test_a_key_that_is_not_a_namespace_and_str_pair_is_refused(cache):
    with pytest.raises(InvalidTypeError, match="namespace"):
        cache.get([("ns", "k")])
    with pytest.raises(InvalidTypeError, match="key is a str"):
        cache.set({(("ns",), 5): (1, None)})


def test_a_sqlite_cache_outlives_its_connection(tmp_path):
    path = tmp_path / "cache.sqlite"
    calls: list = []
    with SqliteCache(path=path) as first:
        _graph(_counted(calls), first).invoke({"n": 6})
    with SqliteCache(path=path) as second:
        assert _graph(_counted(calls), second).invoke({"n": 6})["n"] == 36
    assert calls == [6]


def test_a_sqlite_cache_is_shared_by_threads(tmp_path):
    with SqliteCache(path=tmp_path / "cache.sqlite") as cache:
        def write(start: int) -> None:
            cache.set({(("ns",), str(i)): (i, None) for i in range(start, start + 50)})

        threads = [threading.Thread(target=write, args=(n * 50,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        found = cache.get([(("ns",), str(i)) for i in range(200)])
    assert sorted(found.values()) == list(range(200))


def test_a_file_that_is_not_a_database_is_a_storage_error_naming_it(tmp_path):
    bad = tmp_path / "cache.sqlite"
    bad.write_bytes(b"this is not a database " * 200)
    with pytest.raises(StorageError, match="cache.sqlite"):
        SqliteCache(path=bad)


def test_an_entry_that_is_not_json_is_a_storage_error(tmp_path):
    path = tmp_path / "cache.sqlite"
    with SqliteCache(path=path) as cache:
        cache.set({(("ns",), "k"): (1, None)})
    conn = sqlite3.connect(path)
    conn.execute("UPDATE rag_graph_cache SET value = ?", (b"\x80 not json",))
    conn.commit()
    conn.close()
    with SqliteCache(path=path) as cache, pytest.raises(StorageError, match="not the JSON"):
        cache.get([(("ns",), "k")])


@pytest.mark.parametrize("module", [rag.graph.cache, rag.graph.cache.keys, rag.graph.cache.memory,
                                    rag.graph.cache.sqlite])
def test_the_module_examples_run(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_a_graph_with_a_cache_still_ends():
    # The "decider" loop of LangGraph's fan-out test: the cached node is reached twice per run.
    app = (StateGraph(State)
           .add_node("square", _counted([]), cache_policy=CachePolicy())
           .add_edge(START, "square")
           .add_conditional_edges("square", lambda s: "square" if s["n"] < 100 else END)
           .compile(cache=InMemoryCache()))
    assert app.invoke({"n": 2})["n"] == 256
    assert app.invoke({"n": 2})["n"] == 256


def test_a_task_call_is_keyed_by_its_function_and_arguments_as_langgraph_keys_it():
    from rag.graph.cache.keys import call_key

    def double(x: int) -> int:
        return 2 * x

    namespace, key = call_key(default_cache_key, double, (3,), {})
    assert namespace == (CACHE_NS_WRITES, f"{__name__}.{double.__qualname__}")
    assert key == digest(default_cache_key(3)) != call_key(default_cache_key, double, (4,), {})[1]


def test_an_async_run_reads_a_sqlite_cache_outside_the_event_loop_thread(tmp_path):
    threads: list = []

    class Watched(SqliteCache):
        def get(self, keys):
            threads.append(threading.get_ident())
            return super().get(keys)

    async def run() -> int:
        with Watched(path=tmp_path / "cache.sqlite") as cache:
            await _graph(_counted([]), cache).ainvoke({"n": 2})
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert threads and loop_thread not in threads


@settings(deadline=None, max_examples=40)
@given(inputs=st.lists(st.integers(min_value=-3, max_value=3), min_size=1, max_size=12))
def test_a_cached_graph_answers_as_the_uncached_one_and_runs_once_per_distinct_input(inputs):
    calls: list = []
    cached = _graph(_counted(calls), InMemoryCache())
    plain = StateGraph(State).add_node("square", _counted([])).add_edge(START, "square").compile()
    assert [cached.invoke({"n": n}) for n in inputs] == [plain.invoke({"n": n}) for n in inputs]
    assert sorted(calls) == sorted(set(inputs))


_CACHE_WRITER = textwrap.dedent('''
    import sys
    from rag.graph.cache import SqliteCache

    with SqliteCache(path=sys.argv[1]) as cache:
        for i in range(60):
            cache.set({(("proc", sys.argv[2]), str(i)): (i, None)})
''')


def test_two_processes_write_one_sqlite_cache_file_at_once(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    procs = [subprocess.Popen([sys.executable, "-c", _CACHE_WRITER, path, name]) for name in ("left", "right")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with SqliteCache(path=path) as cache:
        for name in ("left", "right"):
            found = cache.get([(("proc", name), str(i)) for i in range(60)])
            assert sorted(found.values()) == list(range(60))
