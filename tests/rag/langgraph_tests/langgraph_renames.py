"""Loads LangGraph's own test files (copied unchanged; see MANIFEST.json) so that they run
against rag.graph: each import line is renamed as the file loads, never the file itself.

``langgraph.graph`` means ``rag.graph``, ``langgraph.types`` ``rag.graph.types`` and so on
(:data:`RENAMES`, longest prefix first); ``langchain_core.messages`` / ``.runnables`` mean
ours, so the messages a test builds compare with the ones our graphs return; ``tests.``
means the copied folder (the sdist's helpers, renamed the same way).

A name one of our modules lacks, and any other ``langgraph`` module (``langgraph.func``,
``langgraph.channels``, ``langgraph.pregel``...), imports as a :class:`NotOffered`
placeholder: the file's other tests still run, and using it raises ``NotImplementedError``
naming what is missing; those tests are strict xfails in ``langgraph_deviations.py``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PACKAGE = "_langgraph_peer"
FOLDERS = ("langgraph", "checkpoint", "checkpoint_sqlite", "prebuilt")

#: LangGraph module -> ours (a ``from`` import goes through a shim that adds NotOffered names).
RENAMES = {
    "langgraph.graph.state": "rag.graph",
    "langgraph.graph.message": "rag.graph.message",
    "langgraph.graph": "rag.graph",
    "langgraph.types": "rag.graph.types",
    "langgraph.constants": "rag.graph.constants",
    "langgraph._internal._constants": "rag.graph.constants",
    "langgraph.errors": "rag.graph.errors",
    "langgraph.config": "rag.graph.config",
    "langgraph.func": "rag.graph.func",
    "langgraph.runtime": "rag.graph.runtime",
    "langgraph.cache": "rag.graph.cache",
    "langgraph.checkpoint.memory": "rag.graph.checkpoint.memory",
    "langgraph.checkpoint.sqlite": "rag.graph.checkpoint.sqlite",
    "langgraph.checkpoint.base": "rag.graph.checkpoint.base",
    "langgraph.store.base.batch": "rag.graph.store.batch",
    "langgraph.store.base": "rag.graph.store.base",
    "langgraph.store.memory": "rag.graph.store.memory",
    "langgraph.store.sqlite.base": "rag.graph.store._sqlite_queries",
    "langgraph.store.sqlite.aio": "rag.graph.store.sqlite_aio",
    "langgraph.store.sqlite": "rag.graph.store",
    "langchain_core.embeddings": "rag.embeddings",
    "langchain_core.messages.base": "rag.messages",
    "langchain_core.messages": "rag.messages",
    "langchain_core.runnables": "rag.runnables",
    "langgraph.prebuilt.tool_node": "rag.agents.tool_node",
    "langgraph.prebuilt.chat_agent_executor": "rag.agents._react",
    "langgraph.prebuilt": "rag.agents",
    "langchain_core.tools": "rag.tools",
}
#: Modules of LangGraph with no counterpart here: every name in them is NotOffered.
MISSING = "langgraph"
_IMPORT = re.compile(r"^(\s*)(from|import)\s+([\w.]+)", re.MULTILINE)


class NotOffered:
    """Stands for ``module.name`` that rag.graph does not offer; calling, subscripting,
    subclassing or reading an attribute of it raises ``NotImplementedError`` saying so."""

    def __init__(self, what: str, *rest: Any) -> None:
        if rest:  # used as a base class: class X(NotOffered-instance) runs type(base)(name, bases, ns)
            raise NotImplementedError(f"{what}: a subclass of a name rag.graph does not offer")
        self._what = what

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self._what} is not offered by rag.graph")

    __call__ = _refuse
    __getitem__ = _refuse
    __iter__ = _refuse

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return NotOffered(f"{self._what}.{attribute}")

    def __mro_entries__(self, bases: tuple) -> tuple:
        # A helper class built on a missing base still defines (the file's other tests run);
        # making one of its objects raises.
        what = self._what

        class Missing:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                raise NotImplementedError(f"{what} is not offered by rag.graph (a base class)")

        return (Missing,)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.any_schema()  # a pydantic model annotated with a missing type still defines

    def __repr__(self) -> str:
        return f"NotOffered({self._what})"


def rename_imports(source: str) -> str:
    """``source`` with each import line's module renamed (see the module docstring)."""
    ordered = sorted(RENAMES, key=len, reverse=True)

    def rename(match: re.Match) -> str:
        indent, keyword, module = match.groups()
        if module.startswith("."):  # a relative import (``from .model import``): the copied folder's own
            return match.group(0)
        if module == "tests" or module.startswith("tests."):
            return f"{indent}{keyword} {PACKAGE}.{_FOLDER[0]}{module[len('tests'):]}"
        for old in ordered:
            if module == old or module.startswith(old + "."):
                target = RENAMES[old] + module[len(old):] if module != old and old.startswith("langchain_core") \
                    else RENAMES[old]
                return f"{indent}{keyword} {PACKAGE}.ours.{target}" if keyword == "from" else match.group(0)
        missing = module == MISSING or module.startswith(MISSING + ".") or not _exists(module.split(".")[0])
        if keyword == "from" and missing:  # also test-only packages not installed here (pytest_mock, syrupy)
            return f"{indent}{keyword} {PACKAGE}.missing.{module}"
        return match.group(0)

    return _IMPORT.sub(rename, source)


_FOLDER = ["langgraph"]  # the folder whose file is being renamed (its ``tests.`` package)


class _PeerFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads ``_langgraph_peer.<folder>.<file>`` from this folder with the renames applied;
    ``_langgraph_peer.ours.<module>`` / ``.missing.<module>`` are the shims."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        parts = fullname.split(".")[1:]
        if parts and parts[0] in ("ours", "missing"):
            kind = parts[0]
            if kind == "ours" and len(parts) > 1 and not _exists(".".join(parts[1:])):
                kind = "missing"  # e.g. langchain_core.messages.tool: no such module of ours
            return importlib.util.spec_from_loader(fullname, self, origin=kind, is_package=True)
        file = HERE.joinpath(*parts).with_suffix(".py") if parts else None
        if file is not None and file.is_file():
            return importlib.util.spec_from_loader(fullname, self, origin=str(file))
        return importlib.util.spec_from_loader(fullname, self, origin="folder", is_package=True)

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        spec = module.__spec__
        if spec.origin in ("ours", "missing", "folder"):
            module.__path__ = []
            target = ".".join(spec.name.split(".")[2:])
            if spec.origin == "ours" and target:
                _fill_shim(module, importlib.import_module(target), target)
            elif spec.origin == "missing":
                module.__getattr__ = _missing_attribute(target)
            return
        path = Path(spec.origin)
        module.__file__ = str(path)
        _FOLDER[0] = path.parent.name
        # compile() passes this module's `from __future__ import annotations` on unless told not to; the
        # prebuilt tests need real annotations (tools' Annotated[..., InjectedState] markers). The older
        # folders' deviations were recorded with postponed annotations (a missing name in one is harmless).
        code = compile(rename_imports(path.read_text(encoding="utf-8")), str(path), "exec",
                       dont_inherit=path.parent.name == "prebuilt")
        exec(code, module.__dict__)


def _missing_attribute(target: str) -> Any:
    def __getattr__(name: str) -> Any:
        # Dunder names stay absent: tools that walk sys.modules (hypothesis reads every
        # module's __file__) must see an ordinary module, not a placeholder.
        if name.startswith("__"):
            raise AttributeError(name)
        return NotOffered(f"{target}.{name}")

    return __getattr__


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent that is a module, not a package
        return False


#: LangChain names that are spelt differently here (a type alias, for annotations).
#: ``"module:name"`` when the name lives in another module of ours (LangChain keeps
#: RemoveMessage with the messages; rag.graph keeps it with add_messages).
ALIASES = {"rag.messages": {"AnyMessage": "BaseMessage", "RemoveMessage": "rag.graph.message:RemoveMessage"},
           "rag.tools": {"BaseTool": "Tool"}, "rag.tools.base": {"BaseTool": "Tool"}}
#: Our classes whose missing class attributes a test file reads at import time
#: (``BaseCheckpointSaver.get_next_version``): offered as a subclass whose missing
#: attributes are NotOffered, so the file loads.
LENIENT_CLASSES = {"BaseCheckpointSaver"}


def _lenient(cls: type, target: str) -> type:
    class Lenient(type(cls)):  # type: ignore[misc]
        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return NotOffered(f"{target}.{cls.__name__}.{name}")

    return Lenient(cls.__name__, (cls,), {"__module__": cls.__module__})


def _fill_shim(module: Any, real: Any, target: str) -> None:
    aliases = ALIASES.get(target, {})

    def __getattr__(name: str) -> Any:
        if name in aliases:
            home, _, attribute = aliases[name].rpartition(":")
            return getattr(importlib.import_module(home) if home else real, attribute)
        if name in LENIENT_CLASSES and hasattr(real, name):
            value = module.__dict__[name] = _lenient(getattr(real, name), target)
            return value
        if hasattr(real, name):
            return getattr(real, name)
        if name.startswith("__"):
            raise AttributeError(name)
        return NotOffered(f"{target}.{name}")

    module.__getattr__ = __getattr__


def install() -> None:
    """Put the loader on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _PeerFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PeerFinder())


def module_name(path: Path) -> str:
    """The dotted name a copied file loads under."""
    return ".".join([PACKAGE, *path.relative_to(HERE).with_suffix("").parts])
