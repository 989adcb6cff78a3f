"""Runs LangGraph's own unit tests (langgraph 1.2.22, langgraph-checkpoint 4.3.2,
langgraph-checkpoint-sqlite 3.1.2; files copied unchanged, versions and sha256 in
MANIFEST.json) against rag.graph, through import renames only (``langgraph_renames.py``).

LangGraph's conftest is not copied: it builds Postgres, Redis and encrypted savers. The
fixtures here give the tests ours instead: ``sync_checkpointer`` / ``async_checkpointer``
are our ``InMemorySaver`` and ``SqliteSaver``; ``durability`` runs ``"sync"``, ``"async"`` and
``"exit"`` as LangGraph's does; ``anyio_backend`` is asyncio only, as theirs; ``mocker`` is a small stand-in for
pytest-mock's (not a test dependency); ``cache`` and the stores are ours (SQLite and in
memory). ``snapshot`` is syrupy's own, reading LangGraph's ``__snapshots__/*.ambr`` (copied
unchanged like the tests; ``--snapshot-update`` is refused, so they are never rewritten).

A test that cannot pass is listed in ``langgraph_deviations.py`` with its reason and runs as
a strict xfail: reported, never skipped, and an error if it starts passing.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from typing import Any, Iterator
from unittest import mock

import pytest

from langgraph_renames import HERE, install, module_name
from peer_suite import check_unchanged, collector, run_coroutine_test
from rag.graph.checkpoint.memory import InMemorySaver
from rag.graph.checkpoint.sqlite import SqliteSaver

install()


manifest = json.loads((HERE / "MANIFEST.json").read_text())
for folder, entry in manifest["folders"].items():
    check_unchanged(entry["files"], HERE / folder, entry["package"])

pytest_pycollect_makemodule = collector(HERE, module_name)


def pytest_configure(config: pytest.Config) -> None:
    """LangGraph's snapshots are evidence only while they are LangGraph's: never rewrite them."""
    if getattr(config.option, "update_snapshots", False):
        raise pytest.UsageError("--snapshot-update would rewrite LangGraph's copied __snapshots__ files "
                                f"under {HERE}; run without it (they must stay unchanged)")


@pytest.fixture
def anyio_backend() -> str:
    """asyncio only, as LangGraph's and langgraph-prebuilt's conftests say: the test ids (and
    so the names syrupy looks snapshots up by) are then theirs, ``[memory]`` not ``[asyncio-memory]``."""
    return "asyncio"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """LangGraph's ``async def`` tests (pytest-asyncio's auto mode there) run on a new loop,
    or on the loop their async fixtures were set up on (an object such as a store keeps the
    loop it was made on)."""
    loop = getattr(pyfuncitem, "_peer_loop", None)
    if loop is not None and inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        loop.run_until_complete(pyfuncitem.obj(**arguments))
        return True
    return run_coroutine_test(pyfuncitem, HERE)


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef, request):
    """An ``async def`` generator fixture of a copied file (pytest-asyncio's auto mode) runs
    on the test's own loop: set up there now, finished there at teardown."""
    if not inspect.isasyncgenfunction(fixturedef.func) or HERE not in request.node.path.parents:
        return None
    item = request.node
    loop = getattr(item, "_peer_loop", None)
    if loop is None:
        loop = item._peer_loop = asyncio.new_event_loop()
    arguments = {name: request if name == "request" else request.getfixturevalue(name)
                 for name in fixturedef.argnames}
    generator = fixturedef.func(**arguments)
    value = loop.run_until_complete(generator.__anext__())

    def finish() -> None:
        try:
            loop.run_until_complete(generator.__anext__())
        except StopAsyncIteration:
            pass

    fixturedef.addfinalizer(finish)
    fixturedef.cached_result = (value, fixturedef.cache_key(request), None)
    return value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield  # the fixtures' finalizers ran on the loop: now it can close
    loop = getattr(item, "_peer_loop", None)
    if loop is not None:
        loop.close()
        del item._peer_loop


def pytest_collection_modifyitems(config, items):
    if os.environ.get("LANGGRAPH_DEVIATIONS") == "off":  # update_deviations.py's run: every real outcome
        for item in items:  # whose error's first line is all it reads
            if HERE in item.path.parents:
                item.repr_failure = _one_line
        return
    DEVIATIONS = _deviations()

    for item in items:
        if HERE not in item.path.parents:
            continue
        key = "::".join([item.path.relative_to(HERE).as_posix(), *item.nodeid.split("::")[1:]])
        reason = DEVIATIONS.get(key) or DEVIATIONS.get(key.split("[")[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
            # An expected failure's report is never shown: skip formatting its traceback
            # through these long files (most of the time of these tests went there).
            item.repr_failure = _one_line


def _deviations() -> dict[str, str]:
    """Every ``*_deviations.py`` beside this file merged: ``langgraph_deviations.py`` (written
    by update_deviations.py) and one per later-imported folder (prebuilt, stores)."""
    import importlib

    merged: dict[str, str] = {}
    for path in sorted(HERE.glob("*_deviations.py")):
        if path.stem == "update_deviations":  # the script that writes langgraph_deviations.py
            continue
        merged.update(importlib.import_module(path.stem).DEVIATIONS)
    return merged


def _one_line(excinfo: Any) -> str:
    return excinfo.exconly()


# -- LangGraph's fixtures, given ours --------------------------------------------------------
def _saver(kind: str) -> Iterator[Any]:
    if kind == "memory":
        yield InMemorySaver()
    else:
        with SqliteSaver.from_conn_string(":memory:") as saver:
            yield saver


@pytest.fixture(params=["memory", "sqlite"])
def sync_checkpointer(request: pytest.FixtureRequest) -> Iterator[Any]:
    yield from _saver(request.param)


@pytest.fixture(params=["memory", "sqlite"])
def async_checkpointer(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Our savers serve async calls themselves (blocking ones in a thread)."""
    yield from _saver(request.param)


@pytest.fixture(params=["sync", "async", "exit"])
def durability(request: pytest.FixtureRequest) -> str:
    """LangGraph's three durability modes, as its conftest gives them (rag.graph._durability)."""
    return request.param


@pytest.fixture(params=["sqlite", "memory"])
def cache(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    """Our node caches: SqliteCache on a file, InMemoryCache (LangGraph's params, Redis left out)."""
    from rag.graph.cache import InMemoryCache, SqliteCache

    if request.param == "memory":
        yield InMemoryCache()
        return
    with SqliteCache(path=tmp_path / "cache.sqlite") as sqlite_cache:
        yield sqlite_cache


def _store(kind: str) -> Iterator[Any]:
    from rag.graph.store.memory import InMemoryStore
    from rag.graph.store.sqlite import SqliteStore

    if kind == "memory":
        yield InMemoryStore()
    else:
        with SqliteStore.from_conn_string(":memory:") as store:
            yield store


@pytest.fixture(params=["memory", "sqlite"])
def sync_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Our InMemoryStore and SqliteStore (rag.graph.store)."""
    yield from _store(request.param)


@pytest.fixture(params=["memory", "sqlite"])
def async_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Our stores serve async calls themselves (SQLite's in a worker thread)."""
    yield from _store(request.param)


class _Mocker:
    """The part of pytest-mock's ``mocker`` LangGraph's tests use; patches undone at teardown."""

    Mock = mock.Mock
    MagicMock = mock.MagicMock
    AsyncMock = mock.AsyncMock
    ANY = mock.ANY
    call = mock.call

    def __init__(self) -> None:
        self._patches: list[Any] = []

    def _start(self, patcher: Any) -> Any:
        self._patches.append(patcher)
        return patcher.start()

    def patch(self, target: str, *args: Any, **kwargs: Any) -> Any:
        return self._start(mock.patch(target, *args, **kwargs))

    def stub(self, name: Any = None) -> Any:
        return mock.MagicMock(spec=lambda *args, **kwargs: None, name=name)

    def spy(self, owner: Any, name: str) -> Any:
        # As pytest-mock's: a function spied on a class is autospecced, so calls record self.
        original = getattr(owner, name)
        if isinstance(owner, type) and inspect.isfunction(original):
            if inspect.iscoroutinefunction(original):
                async def wrapper(*args: Any, **kwargs: Any) -> Any:
                    return await original(*args, **kwargs)
            else:
                def wrapper(*args: Any, **kwargs: Any) -> Any:
                    return original(*args, **kwargs)
            return self._start(mock.patch.object(owner, name, side_effect=wrapper, autospec=True))
        return self._start(mock.patch.object(owner, name, wraps=original))

    def stopall(self) -> None:
        for patcher in reversed(self._patches):
            patcher.stop()
        self._patches.clear()


@pytest.fixture
def mocker() -> Iterator[_Mocker]:
    helper = _Mocker()
    yield helper
    helper.stopall()


@pytest.fixture
def deterministic_uuids(mocker: _Mocker) -> _Mocker:
    from uuid import UUID

    side_effect = (UUID(f"00000000-0000-4000-8000-{i:012}", version=4) for i in range(10000))
    return mocker.patch("uuid.uuid4", side_effect=side_effect)
