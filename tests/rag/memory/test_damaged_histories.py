"""Damaged chat histories give one clear error and lose nothing (issue 35, item 6).

A SQLite file that is not a database, a database damaged on disk, a row or a line nested
100,000 deep: each is a :class:`~rag.errors.StorageError` (a
:class:`~rag.memory.CorruptHistoryError` when one record is at fault) naming the file and
the row or line, as the file history already did for a line that is not JSON.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.errors import RagError, StorageError
from rag.memory import CorruptHistoryError, FileChatMessageHistory, SQLChatMessageHistory
from rag.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

DEEP = "[" * 100_000 + "]" * 100_000
CALLS = [
    [SystemMessage("be brief"), HumanMessage("hi")],
    [AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]), ToolMessage("2", tool_call_id="c1")],
    [AIMessage("done")],
]


def write_sql(path: Path) -> None:
    for session in ("a", "b"):
        history = SQLChatMessageHistory(session, path)
        for call in CALLS:
            history.add_messages(call)
        history.close()
    with sqlite3.connect(path) as conn:  # one self-contained file, to copy and damage
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


def write_file(path: Path) -> None:
    history = FileChatMessageHistory(path)
    for call in CALLS:
        history.add_messages(call)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("pristine")
    write_sql(folder / "chats.sqlite")
    write_file(folder / "chat.jsonl")
    return folder / "chats.sqlite", folder / "chat.jsonl"


def copy(source: Path, folder: Path) -> Path:
    target = folder / source.name
    shutil.copy(source, target)
    return target


def rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM message_store ORDER BY id").fetchall()


# -- SQLChatMessageHistory ----------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"this is not a database\n" * 100, b"SQLite format 3\x00" + b"\xff" * 5000])
def test_a_file_that_is_not_a_database_is_a_storage_error_naming_it(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "chats.sqlite"
    path.write_bytes(content)
    if not content:  # an empty file is a new database, as SQLite reads it
        assert SQLChatMessageHistory("a", path).messages == []
        return
    with pytest.raises(StorageError, match=str(path)) as caught:
        SQLChatMessageHistory("a", path)
    assert "not a SQLite database" in str(caught.value) and path.read_bytes() == content


def test_a_database_damaged_after_it_was_opened_is_a_storage_error_naming_it(pristine, tmp_path: Path) -> None:
    path = copy(pristine[0], tmp_path)
    history = SQLChatMessageHistory("a", path)
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\x00" * (len(data) - 100))
    with pytest.raises(StorageError, match=str(path)):
        history.get_messages()


def test_a_row_nested_100000_deep_is_corruption_naming_the_row(pristine, tmp_path: Path) -> None:
    path = copy(pristine[0], tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE message_store SET message=? WHERE id=2", (DEEP,))
    with pytest.raises(CorruptHistoryError, match=r"message_store row id=2") as caught:
        SQLChatMessageHistory("a", path).get_messages()
    assert str(path) in str(caught.value) and [m.content for m in caught.value.messages] == ["be brief"]


def test_a_row_whose_text_is_not_utf8_is_a_storage_error_naming_the_file(pristine, tmp_path: Path) -> None:
    path = copy(pristine[0], tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE message_store SET message=CAST(x'7bff' AS TEXT) WHERE id=2")
    with pytest.raises(StorageError, match=str(path)):
        SQLChatMessageHistory("a", path).get_messages()


def test_a_damaged_row_deletes_nothing_and_other_sessions_still_read(pristine, tmp_path: Path) -> None:
    path = copy(pristine[0], tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE message_store SET message='{broken' WHERE id=3")
    kept = rows(path)
    with pytest.raises(CorruptHistoryError):
        SQLChatMessageHistory("a", path).get_messages()
    assert len(SQLChatMessageHistory("b", path).messages) == 5
    assert rows(path) == kept


# -- FileChatMessageHistory -----------------------------------------------------------------


def test_a_line_nested_100000_deep_is_corruption_naming_the_line_and_is_kept(pristine,
                                                                                      tmp_path: Path) -> None:
    path = copy(pristine[1], tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[1] = DEEP.encode()
    path.write_bytes(b"\n".join(lines))
    kept = path.read_bytes()
    history = FileChatMessageHistory(path)
    with pytest.raises(CorruptHistoryError, match=f"{path}:2: ") as caught:
        history.get_messages()
    assert "RecursionError" in str(caught.value) and caught.value.location == f"{path}:2"
    history.add_user_message("more")  # appended after the damage, which stays as it was
    assert path.read_bytes().startswith(kept)


def test_a_last_line_nested_100000_deep_is_corruption_too(pristine, tmp_path: Path) -> None:
    path = copy(pristine[1], tmp_path)
    path.write_bytes(path.read_bytes() + DEEP.encode() + b"\n")
    kept = path.read_bytes()
    with pytest.raises(CorruptHistoryError, match=f"{path}:6: "):
        FileChatMessageHistory(path).add_user_message("more")
    assert path.read_bytes() == kept


# -- seeded mutations: read correctly, or one of the project's errors; nothing lost ----------


def damaged_bytes(data: bytes, rng: random.Random) -> bytes:
    """One damage: random bytes overwritten, a cut, or a record replaced with odd JSON."""
    roll = rng.random()
    damaged = bytearray(data)
    if roll < 0.5:
        for _ in range(rng.randrange(1, 6)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        return bytes(damaged)
    if roll < 0.7:
        return data[: rng.randrange(len(data))]
    odd = rng.choice(['{"type":"human"}', '{"type":"ai","data":{"content":[]}}', "[]", "null", '"x"', DEEP,
                      '{"type":"tool","data":{"content":"x","tool_call_id":5}}', '{"type":1,"data":{}}'])
    return odd.encode()


def seeded(test: Any) -> Any:
    """100 seeded damages per test, the same every run (a failure names its seed)."""
    checks = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
    return settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=checks)(
        given(seed=st.integers(0, 2**32 - 1))(test))


def sql_readings(path: Path) -> None:
    for session in ("a", "b"):
        history = SQLChatMessageHistory(session, path)
        try:
            history.get_messages()
            history.get_messages(limit=2)
        finally:
            history.close()


def damage_sql(path: Path, rng: random.Random) -> None:
    if rng.random() < 0.3:
        path.write_bytes(damaged_bytes(path.read_bytes(), rng))
        return
    column = rng.choice(["message", "message", "session_id", "created_at"])
    with sqlite3.connect(path) as conn:
        row_id = rng.randrange(1, 11)
        (old,) = conn.execute(f"SELECT {column} FROM message_store WHERE id=?", (row_id,)).fetchone()
        new: Any = damaged_bytes((old or "").encode(), rng)
        new = new.decode("utf-8", "replace") if rng.random() < 0.7 else rng.choice([new, 7, 2.5, None])
        try:
            conn.execute(f"UPDATE message_store SET {column}=? WHERE id=?", (new, row_id))
        except sqlite3.IntegrityError:  # NOT NULL: SQLite itself refused the damage
            pass


@seeded
def test_every_damaged_history_database_reads_or_gives_a_project_error_and_loses_nothing(
        pristine, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / f"chats-{seed}.sqlite"
    shutil.copy(pristine[0], path)
    damage_sql(path, rng)
    try:
        kept = rows(path)
    except (sqlite3.Error, UnicodeDecodeError):  # damage sqlite3 itself cannot read past
        kept = None
    try:
        sql_readings(path)
    except RagError:
        if kept is not None:
            assert rows(path) == kept


@seeded
def test_every_damaged_history_file_reads_or_gives_a_project_error_and_loses_nothing(
        pristine, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / f"chat-{seed}.jsonl"
    lines = pristine[1].read_bytes().split(b"\n")
    index = rng.randrange(len(lines) - 1)
    lines[index] = damaged_bytes(lines[index], rng).replace(b"\n", b" ")
    path.write_bytes(b"\n".join(lines))
    kept = path.read_bytes()
    history = FileChatMessageHistory(path)
    try:
        history.get_messages()
    except RagError:
        pass
    try:
        history.add_user_message("more")
    except RagError:
        assert path.read_bytes() == kept
        return
    # Appending never rewrites what was stored; what it cuts (an unfinished call) is set aside.
    aside = path.with_name(path.name + ".unfinished")
    cut = aside.read_bytes() if aside.exists() else b""
    assert kept.rstrip(b"\0") == path.read_bytes()[: len(kept.rstrip(b"\0")) - len(cut)] + cut
