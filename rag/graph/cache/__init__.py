"""Node result caches (LangGraph's ``langgraph.cache``): :class:`InMemoryCache` and
:class:`SqliteCache` behind :class:`BaseCache`, used by ``compile(cache=...)`` for nodes
added with ``add_node(..., cache_policy=CachePolicy(...))``.

>>> from typing import TypedDict
>>> from rag.graph import StateGraph, START
>>> from rag.graph.types import CachePolicy
>>> class S(TypedDict):
...     n: int
>>> calls = []
>>> def square(state):
...     calls.append(state["n"])
...     return {"n": state["n"] ** 2}
>>> app = (StateGraph(S).add_node("square", square, cache_policy=CachePolicy(ttl=60))
...        .add_edge(START, "square").compile(cache=InMemoryCache()))
>>> app.invoke({"n": 3}), app.invoke({"n": 3}), calls
({'n': 9}, {'n': 9}, [3])
>>> list(app.stream({"n": 3}))
[{'square': {'n': 9}, '__metadata__': {'cached': True}}]
"""

from rag.graph.cache.base import BaseCache, FullKey, Namespace
from rag.graph.cache.keys import default_cache_key
from rag.graph.cache.memory import InMemoryCache
from rag.graph.cache.sqlite import SqliteCache

__all__ = ["BaseCache", "InMemoryCache", "SqliteCache", "FullKey", "Namespace", "default_cache_key"]
