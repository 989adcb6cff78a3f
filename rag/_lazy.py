"""A package's names imported on first use (PEP 562), so importing the package stays cheap.

In ``rag/embeddings/__init__.py``::

    __getattr__, __dir__ = lazy_exports(__name__, {
        "rag.embeddings.openai": ["OpenAIEmbeddings", "EmbeddingServiceError"]})

makes ``from rag.embeddings import OpenAIEmbeddings`` import the HTTP client, and only then.
:func:`lazy_module` does the same for a whole package that a module's type hints name.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping

__all__ = ["lazy_exports", "lazy_module"]


def lazy_exports(
    package: str, modules: Mapping[str, Iterable[str]], *, submodules: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the module named ``package``.

    ``modules`` maps a module (full dotted name) to the names it defines that ``package``
    exports; each is imported on first access and then kept in the package's namespace, so
    later accesses are plain attribute reads. ``submodules`` (names of the package's own
    modules) import on first access too, as ``import package.name`` would: type hints that
    name a class by its module (``rag.index.answer.Answer``) then resolve without the
    module having been imported before. Anything else raises AttributeError naming the
    package.
    """
    home = {name: module for module, names in modules.items() for name in names}
    own = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in home:
            value = getattr(import_module(home[name]), name)
        elif name in own:
            value = import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(home) | own)

    return __getattr__, __dir__


class _LazyModule(ModuleType):
    def __getattr__(self, attribute: str) -> Any:
        return getattr(import_module(self.__name__), attribute)


def lazy_module(name: str) -> ModuleType:
    """A stand-in for the module ``name`` that imports it on first attribute access.

    For type hints that name a class by its module in a module that must not import it
    at start-up (``rag.index.registry`` is read by ``rag --help``; ``stores`` brings the
    store machinery)::

        if TYPE_CHECKING:
            import stores.base
        else:
            stores = lazy_module("stores")

        def create(self) -> stores.base.VectorStore: ...

    A type checker reads the import; ``typing.get_type_hints(create)`` imports ``stores``
    when it resolves the hint, and not before.
    """
    return _LazyModule(name)
