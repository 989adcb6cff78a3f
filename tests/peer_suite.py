"""What the imported peer suites share (langchain-classic's tests, langchain's agent
middleware tests, LangGraph's tests): the check that each copied file is byte for byte the
peer's, the collector that imports a copied test file through the suite's renaming loader,
and running an ``async def`` test on a fresh event loop (the peers use pytest-asyncio's auto
mode, which this project does not install).

Each suite's ``conftest.py`` keeps what differs: its renames, fixtures and deviations.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from hashlib import sha256
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import pytest


def check_unchanged(files: Mapping[str, str], folder: Path, peer: str) -> None:
    """Refuse to run when a copied file (name -> sha256, relative to ``folder``) was edited:
    the peer's tests are only evidence while they are the peer's own."""
    for name, digest in files.items():
        actual = sha256((folder / name).read_bytes()).hexdigest()
        if actual != digest:
            raise pytest.UsageError(f"{folder.name}/{name} differs from {peer}'s (sha256 {actual} != {digest}); "
                                    "the imported tests must stay unchanged")


def collector(root: Path, module_name: Callable[[Path], str]) -> Callable[[Path, Any], Optional[pytest.Module]]:
    """A ``pytest_pycollect_makemodule`` hook for the ``test_*.py`` files under ``root``:
    each is imported as ``module_name(path)``, so the suite's import hook renames its imports."""

    class PeerModule(pytest.Module):
        """A copied test file, imported through the suite's renaming loader."""

        def _getobj(self) -> Any:
            return importlib.import_module(module_name(self.path))

    def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> Optional[pytest.Module]:
        if root in module_path.parents and module_path.name.startswith("test_"):
            return PeerModule.from_parent(parent, path=module_path)
        return None

    return pytest_pycollect_makemodule


def run_coroutine_test(pyfuncitem: Any, root: Path) -> Optional[bool]:
    """Run an ``async def`` test under ``root`` on a new event loop (True: it ran)."""
    if root in pyfuncitem.path.parents and inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None
