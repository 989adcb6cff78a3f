"""Long-term memory for graphs (LangGraph's ``langgraph.store``): JSON documents under
namespaces that outlive a thread, in memory or in SQLite, with optional semantic search.

``from langgraph.store.memory import InMemoryStore`` becomes
``from rag.graph.store.memory import InMemoryStore`` (or ``from rag.graph.store import ...``);
``langgraph.store.sqlite``'s ``SqliteStore`` / ``AsyncSqliteStore`` are
``rag.graph.store.sqlite`` / ``rag.graph.store.sqlite_aio``.
"""

from rag.graph.store.base import (BaseStore, GetOp, IndexConfig, InvalidNamespaceError, Item, ListNamespacesOp,
                                  MatchCondition, PutOp, SearchItem, SearchOp, TTLConfig)
from rag.graph.store.memory import InMemoryStore

__all__ = ["BaseStore", "InMemoryStore", "SqliteStore", "AsyncSqliteStore", "Item", "SearchItem", "GetOp", "PutOp",
           "SearchOp", "ListNamespacesOp", "MatchCondition", "InvalidNamespaceError", "IndexConfig", "TTLConfig"]


def __getattr__(name: str):  # the SQLite stores load sqlite3 only when asked for
    if name == "SqliteStore":
        from rag.graph.store.sqlite import SqliteStore
        return SqliteStore
    if name == "AsyncSqliteStore":
        from rag.graph.store.sqlite_aio import AsyncSqliteStore
        return AsyncSqliteStore
    raise AttributeError(f"module 'rag.graph.store' has no attribute {name!r}")
