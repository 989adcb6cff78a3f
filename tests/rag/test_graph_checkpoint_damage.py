"""A damaged or crafted checkpoint database gives one clear error (issue 35, item 6).

Whatever the damage (a row without ``channel_values``, metadata of the wrong type, bytes
that are not UTF-8, JSON nested 100,000 deep, a file that is not a database), reading is
either correct or a :class:`~rag.errors.StorageError` naming the file and thread, never a
``KeyError``, ``AttributeError``, ``RecursionError`` or bare ``sqlite3`` error; and a failed
read deletes nothing.
"""

from __future__ import annotations

import operator
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Annotated, Any, Callable, Iterator, TypedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.errors import RagError, StorageError
from rag.graph import START, END, StateGraph
from rag.graph.checkpoint import CorruptCheckpointError, SqliteSaver
from rag.graph.message import add_messages
from rag.graph.types import Command, interrupt
from rag.messages import AIMessage, HumanMessage

DEEP = b"[" * 100_000 + b"]" * 100_000


class State(TypedDict):
    messages: Annotated[list, add_messages]
    log: Annotated[list, operator.add]


def _ask(state: State) -> dict:
    return {"log": [f"answer={interrupt('ship it?')}"]}


def build(saver: SqliteSaver) -> Any:
    """prepare, then ask (pauses) and side (finishes) in one step: a paused thread has a
    checkpoint, a finished task's result and an interrupt among its pending writes."""
    graph = StateGraph(State)
    graph.add_node("prepare", lambda s: {"messages": [AIMessage("ready", id="m2")], "log": ["prepared"]})
    graph.add_node("ask", _ask)
    graph.add_node("side", lambda s: {"log": ["side"]})
    graph.add_edge(START, "prepare").add_edge("prepare", "ask").add_edge("prepare", "side")
    graph.add_edge("ask", END).add_edge("side", END)
    return graph.compile(checkpointer=saver)


def thread(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def write_threads(path: Path) -> None:
    """Thread "paused" waits on an interrupt; thread "done" ran to the end."""
    with SqliteSaver.from_conn_string(str(path)) as saver:
        app = build(saver)
        app.invoke({"messages": [HumanMessage("hi", id="m1")], "log": []}, thread("paused"))
        app.invoke({"messages": [HumanMessage("yo", id="m3")], "log": []}, thread("done"))
        app.invoke(Command(resume="yes"), thread("done"))
    with sqlite3.connect(path) as conn:  # one self-contained file, to copy and damage
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pristine") / "threads.sqlite"
    write_threads(path)
    return path


@pytest.fixture
def db(pristine: Path, tmp_path: Path) -> Path:
    path = tmp_path / "threads.sqlite"
    shutil.copy(pristine, path)
    return path


def execute(path: Path, sql: str, *args: Any) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql, args)


def row_counts(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path) as conn:
        return tuple(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[return-value]
                     for table in ("checkpoints", "writes"))


def newest(path: Path, thread_id: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT max(seq) FROM checkpoints WHERE thread_id=?", (thread_id,)).fetchone()[0]


def read_paused(path: Path) -> Any:
    with SqliteSaver.from_conn_string(str(path)) as saver:
        return build(saver).get_state(thread("paused"))


# -- each damage the issue found, one clear error ------------------------------------------


@pytest.mark.parametrize("column, value, was", [
    ("checkpoint", b'{"v":1,"id":"x","next":[]}', "KeyError('channel_values')"),
    ("metadata", b"[1,2]", "AttributeError: 'list' object has no attribute 'get'"),
    ("checkpoint", b'{"v":1,"id":"\xff\xfe"}', "UnicodeDecodeError"),
    ("checkpoint", DEEP, "RecursionError"),
    ("metadata", 42, "TypeError"),
])
def test_a_damaged_checkpoint_row_is_one_error_naming_the_file_and_thread(db: Path, column: str, value: Any,
                                                                          was: str) -> None:
    execute(db, f"UPDATE checkpoints SET {column}=? WHERE seq=?", value, newest(db, "paused"))
    with pytest.raises(CorruptCheckpointError) as caught:
        read_paused(db)
    assert str(db) in str(caught.value) and "thread 'paused'" in str(caught.value)
    assert caught.value.location.startswith(f"{db}: thread 'paused'")


def test_a_checkpoint_whose_id_differs_from_its_row_is_damage(db: Path) -> None:
    execute(db, "UPDATE checkpoints SET checkpoint_id='other' WHERE seq=?", newest(db, "paused"))
    with pytest.raises(CorruptCheckpointError, match="is not its row's"):
        read_paused(db)


@pytest.mark.parametrize("channel, value", [
    ("__interrupt__", b'[{"value":"ship it?"}]'),  # an interrupt that lost its tag: a dict, not an Interrupt
    ("__result__", b'{"update":true}'),
    ("__resume__", b'"yes"'),
    ("__interrupt__", DEEP),
])
def test_a_damaged_pending_write_is_one_error_naming_its_task(db: Path, channel: str, value: bytes) -> None:
    execute(db, "UPDATE writes SET value=? WHERE thread_id='paused' AND channel=?", value, channel)
    # Beside a write of the paused checkpoint (earlier ones hold their steps' results, which a resume does not read).
    execute(db, "INSERT OR IGNORE INTO writes SELECT thread_id, checkpoint_ns, checkpoint_id, task_id || 'x', ?, ? "
                "FROM writes WHERE thread_id='paused' AND checkpoint_id=(SELECT checkpoint_id FROM checkpoints "
                "WHERE thread_id='paused' ORDER BY seq DESC LIMIT 1) LIMIT 1", channel, value)
    with pytest.raises(CorruptCheckpointError, match=r"task '.*'"):
        with SqliteSaver.from_conn_string(str(db)) as saver:
            build(saver).invoke(Command(resume="yes"), thread("paused"))


def test_text_that_is_not_utf8_in_a_row_is_a_storage_error_naming_the_file(db: Path) -> None:
    execute(db, "UPDATE checkpoints SET thread_id=CAST(x'ff61' AS TEXT) WHERE seq=?", newest(db, "done"))
    with SqliteSaver.from_conn_string(str(db)) as saver, pytest.raises(StorageError, match=str(db)):
        list(saver.list(None))


@pytest.mark.parametrize("damage", [
    lambda data: b"this is not a database at all\n" * 200,
    lambda data: data[:3000],
    lambda data: data[:100] + b"\x00" * (len(data) - 100),
])
def test_a_file_that_is_not_a_checkpoint_database_is_a_storage_error_naming_it(
        db: Path, damage: Callable[[bytes], bytes]) -> None:
    db.write_bytes(damage(db.read_bytes()))
    with pytest.raises(StorageError) as caught:
        read_paused(db)
    assert str(db) in str(caught.value)


def test_a_damaged_newest_checkpoint_stops_the_run_before_it_writes_and_keeps_the_rest(db: Path) -> None:
    before = row_counts(db)
    execute(db, "UPDATE checkpoints SET checkpoint=? WHERE seq=?", b'{"v":1}', newest(db, "paused"))
    with SqliteSaver.from_conn_string(str(db)) as saver, pytest.raises(CorruptCheckpointError):
        build(saver).invoke(Command(resume="yes"), thread("paused"))
    assert row_counts(db) == before
    with SqliteSaver.from_conn_string(str(db)) as saver:
        app = build(saver)
        assert "answer=yes" in app.get_state(thread("done")).values["log"]
        with sqlite3.connect(db) as conn:  # the thread's first checkpoint, older than the damaged one
            first = conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id='paused' ORDER BY seq "
                                 "LIMIT 1").fetchone()[0]
        config = {"configurable": {"thread_id": "paused", "checkpoint_id": first}}
        assert saver.get_tuple(config).checkpoint["channel_values"]["log"] == []


# -- seeded mutations: read correctly, or one of the project's errors ---------------------------

_COLUMNS = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint", "metadata"),
    "writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "channel", "value"),
}
_ODD_VALUES = (0, 1.5, "", "text", b"", b"\xff", b"null", b"[]", b"{}", b'"s"', b"true", DEEP)


def _damaged_tree(value: Any, rng: random.Random) -> Any:
    """``value`` (parsed JSON) with one node replaced, removed or renamed somewhere inside."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.2:
            del value[key]
        elif roll < 0.3:
            value[key + "_"] = value.pop(key)
        else:
            value[key] = _damaged_tree(value[key], rng)
        return value
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        value[index] = _damaged_tree(value[index], rng)
        return value
    return rng.choice([1, "x", None, [], {}, True, 1.5, {"a": [1]}, [[["deep"]]]])


def damaged_value(data: Any, rng: random.Random) -> Any:
    """One damage to a stored value: a flipped bit, a cut, another type, or valid JSON of another shape."""
    import json

    data = data.encode() if isinstance(data, str) else data
    roll = rng.randrange(6)
    if roll == 0 and data:
        flipped = bytearray(data)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    if roll == 1 and isinstance(data, bytes):
        return data[: rng.randrange(len(data) + 1)]
    if roll == 2 or not isinstance(data, bytes):
        return rng.choice(_ODD_VALUES)
    try:
        tree = json.loads(data)
    except ValueError:
        return data
    return json.dumps(_damaged_tree(tree, rng)).encode()


def damage_database(path: Path, rng: random.Random) -> str:
    """Damage the file (random bytes, a cut) or one cell of one row; says what was damaged."""
    if rng.random() < 0.25:
        data = bytearray(path.read_bytes())
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data))]
        path.write_bytes(bytes(data))
        return "file bytes"
    table = rng.choice(list(_COLUMNS))
    column = rng.choice(_COLUMNS[table])
    with sqlite3.connect(path) as conn:
        key = "seq" if table == "checkpoints" else "task_id || channel || checkpoint_id"
        keys = [row[0] for row in conn.execute(f"SELECT {key} FROM {table}")]
        target = rng.choice(keys)
        (old,) = conn.execute(f"SELECT {column} FROM {table} WHERE {key}=?", (target,)).fetchone()
        new = damaged_value(old, rng)
        try:
            conn.execute(f"UPDATE {table} SET {column}=? WHERE {key}=?", (new, target))
        except sqlite3.IntegrityError:  # NOT NULL or a duplicate key: SQLite itself refused the damage
            pass
    return f"{table}.{column}"


def readings(path: Path) -> Iterator[tuple[str, Callable[[], Any]]]:
    """Every way a graph reads a saved thread: the saver's reads, the state API, a resume."""
    with SqliteSaver.from_conn_string(str(path)) as saver:
        app = build(saver)
        yield "get_tuple", lambda: [saver.get_tuple(thread(name)) for name in ("paused", "done")]
        yield "list", lambda: list(saver.list(None))
        yield "get_state", lambda: app.get_state(thread("paused"))
        yield "history", lambda: list(app.get_state_history(thread("done")))
        yield "resume", lambda: app.invoke(Command(resume="again"), thread("paused"))


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_every_damaged_database_is_read_correctly_or_gives_a_project_error_and_loses_nothing(
        pristine: Path, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / f"damaged-{seed}.sqlite"
    shutil.copy(pristine, path)
    where = damage_database(path, rng)
    try:
        before = row_counts(path)
    except (sqlite3.Error, UnicodeDecodeError):  # damage sqlite3 itself cannot read past
        before = None
    try:
        for name, read in readings(path):
            try:
                read()
            except RagError:
                if name != "resume" and before is not None:  # a failed read deletes nothing
                    assert row_counts(path) == before, (where, name)
                break
    except RagError:  # opening the file failed, with the project's error
        pass
    # Any other exception type fails the test, showing the seed and what was damaged.
