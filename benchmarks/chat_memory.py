"""Chat memory side by side with LangChain (langchain-core 1.7.2, langchain-community 0.4.2).

    python benchmarks/chat_memory.py [--messages 1000] [--turns 200]

* File history: ``add_message`` called ``--messages`` times, one message each (a chat
  storing each turn), then one full read. Ours appends a line and fsyncs; LangChain's
  ``FileChatMessageHistory`` rewrites the whole JSON list each time (no fsync).
* SQLite history: the same adds into a file shared by 10 sessions, then reading one
  session (``messages``) and its last 20 (``get_messages(limit=20)``; LangChain reads all and
  slices). Ours: ``sqlite3``; LangChain's: SQLAlchemy.
* ``RunnableWithMessageHistory``: ``--turns`` invokes of a trivial runnable with an
  in-memory history (the wrapper's own cost, growing with the history).

Sides alternate, best of ``--repeats``; ratios are LangChain's time over ours.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

warnings.filterwarnings("ignore")

# Imported before anything is timed, so neither side pays for its imports in a measurement.
import langchain_community.chat_message_histories  # noqa: E402,F401
import langchain_core.runnables.history  # noqa: E402,F401
import rag.memory  # noqa: E402,F401


def best(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def file_history(ours: bool, count: int) -> callable:
    def run() -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "chat.jsonl"
            if ours:
                from rag.memory import FileChatMessageHistory
                from rag.messages import AIMessage, HumanMessage
            else:
                from langchain_community.chat_message_histories import FileChatMessageHistory
                from langchain_core.messages import AIMessage, HumanMessage
            history = FileChatMessageHistory(str(path))
            for n in range(count):
                history.add_message((HumanMessage if n % 2 == 0 else AIMessage)(f"message number {n} " * 8))
            assert len(history.messages) == count
    return run


def sql_history(ours: bool, count: int) -> tuple[callable, callable]:
    folder = tempfile.mkdtemp()
    url = f"sqlite:///{folder}/chats.sqlite"
    if ours:
        from rag.memory import SQLChatMessageHistory
        from rag.messages import AIMessage, HumanMessage

        def make(session):
            return SQLChatMessageHistory(session, connection=url)
    else:
        from langchain_community.chat_message_histories import SQLChatMessageHistory
        from langchain_core.messages import AIMessage, HumanMessage

        def make(session):
            return SQLChatMessageHistory(session, connection=url)

    histories = [make(f"s{n}") for n in range(10)]
    state = {"round": 0}

    def add() -> None:
        state["round"] += 1
        for n in range(count):
            histories[n % 10].add_message((HumanMessage if n % 2 == 0 else AIMessage)(f"message {n} " * 8))

    def read() -> None:
        for _ in range(20):
            assert histories[3].messages
            last = histories[3].get_messages(limit=20) if ours else histories[3].messages[-20:]
            assert len(last) == 20

    return add, read


def wrapper(ours: bool, turns: int) -> callable:
    def run() -> None:
        if ours:
            from rag.memory import InMemoryChatMessageHistory, RunnableWithMessageHistory
            from rag.messages import AIMessage
            from rag.runnables import RunnableLambda
        else:
            from langchain_core.chat_history import InMemoryChatMessageHistory
            from langchain_core.messages import AIMessage
            from langchain_core.runnables import RunnableLambda
            from langchain_core.runnables.history import RunnableWithMessageHistory
        history = InMemoryChatMessageHistory()
        chat = RunnableWithMessageHistory(RunnableLambda(lambda messages: AIMessage(f"{len(messages)}")),
                                          lambda session_id: history)
        config = {"configurable": {"session_id": "s"}}
        for n in range(turns):
            chat.invoke(f"question {n}", config)
        assert len(history.messages) == 2 * turns
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for name, make in [(f"file history: {args.messages} add_message + read", lambda o: file_history(o, args.messages)),
                       (f"RunnableWithMessageHistory: {args.turns} turns", lambda o: wrapper(o, args.turns))]:
        times = {}
        for _ in range(args.repeats):
            for side in (False, True):
                elapsed = best(make(side), 1)
                times[side] = min(times.get(side, elapsed), elapsed)
        rows.append((name, times[False], times[True]))
    add_times, read_times = {}, {}
    for _ in range(args.repeats):
        for side in (False, True):
            add, read = sql_history(side, args.messages)
            add_times[side] = min(add_times.get(side, 1e9), best(add, 1))
            read_times[side] = min(read_times.get(side, 1e9), best(read, 1))
    rows.append((f"SQLite history: {args.messages} add_message over 10 sessions", add_times[False], add_times[True]))
    rows.append(("SQLite history: 20 x (read a session + its last 20)", read_times[False], read_times[True]))
    print("| operation | LangChain | ours | LangChain / ours |")
    print("| --- | ---: | ---: | ---: |")
    for name, theirs, ours in rows:
        print(f"| {name} | {theirs * 1000:.0f} ms | {ours * 1000:.0f} ms | {theirs / ours:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
