"""Runs langchain 1.4.7's own middleware tests (files under ``unit_tests/``, copied
unchanged; versions and sha256 in MANIFEST.json) against rag.agents.

The files are never edited: when a test module is imported, its import lines are renamed
(:data:`RENAMES`, longest prefix first) so ``langchain.agents`` means ``rag.agents``,
messages, tools, checkpointers and runtimes come from this project, and
``tests.unit_tests.agents.model`` is ``fake_tool_calling_model.py`` here (the same fake model
on our BaseChatModel). A name our module lacks imports as a placeholder that raises
``NotImplementedError`` when used, so the module's other tests still run.

A test that cannot pass is listed in ``agent_deviations.py`` with its reason and runs as a
strict xfail: reported, never skipped, and an error if it starts passing.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from peer_suite import check_unchanged, collector, run_coroutine_test

HERE = Path(__file__).parent
PACKAGE = "_langchain_agent_peer"

RENAMES = {
    "langchain.agents.factory": "rag.agents",
    "langchain.agents.middleware.model_call_limit": "rag.agents.middleware.limits",
    "langchain.agents.middleware.tool_call_limit": "rag.agents.middleware.limits",
    "langchain.agents.middleware.context_editing": "rag.agents.middleware.context_editing",
    "langchain.agents.middleware.todo": "rag.agents.middleware.todo",
    "langchain.agents.middleware.pii": "rag.agents.middleware.pii",
    "langchain.agents.middleware._redaction": "rag.agents.middleware.pii",
    "langchain.agents.middleware.types": "rag.agents.middleware.types",
    "langchain.agents.middleware.tool_retry": "rag.agents.middleware.retry",
    "langchain.agents.middleware.human_in_the_loop": "rag.agents.middleware.human_in_the_loop",
    "langchain.agents.middleware._retry": "rag.agents.middleware.retry",
    "langchain.agents.middleware.model_retry": "rag.agents.middleware.retry",
    "langchain.agents.middleware.model_fallback": "rag.agents.middleware.retry",
    "langchain.agents.middleware.summarization": "rag.agents.middleware.summarization",
    "langchain.agents.middleware.tool_selection": "rag.agents.middleware.tool_selection",
    "langchain.agents.structured_output": "rag.agents.structured_output",
    "langchain.messages": "rag.messages",
    "langchain.tools": "rag.tools",
    "langgraph.types": "rag.graph.types",
    "langgraph.errors": "rag.graph.errors",
    "langgraph.graph.message": "rag.graph.message",
    "langgraph.prebuilt.tool_node": "rag.agents.middleware.types",
    "langchain.agents.middleware": "rag.agents.middleware",
    "langchain.agents": "rag.agents",
    "langchain_core.messages": "rag.messages",
    "langchain_core.tools": "rag.tools",
    "langchain_core.language_models.fake_chat_models": "rag.models",
    # the package's fake models are ours; its base classes stay LangChain's (a test's own model
    # subclassing them returns ChatResult, which our BaseChatModel does not)
    "langchain_core.language_models": "rag.models",
    "langchain_core.language_models.chat_models": "langchain_core.language_models.chat_models",
    "langchain_core.language_models.base": "langchain_core.language_models.base",
    "langgraph.checkpoint.memory": "rag.graph.checkpoint.memory",
    "langgraph.runtime": "rag.agents.middleware.types",
    "tests.unit_tests.agents.model": "_langchain_agent_peer.fake_tool_calling_model",
    "tests.unit_tests.agents.messages": "_langchain_agent_peer.unit_tests.agents.messages",
    "tests.unit_tests.agents.any_str": "_langchain_agent_peer.unit_tests.agents.any_str",
}
# Names that differ as well as their module ("module:name" when it lives elsewhere in ours):
# LangChain's base class of tools is our Tool; RemoveMessage belongs to rag.graph's add_messages.
NAME_RENAMES = {
    "langchain_core.tools": {"BaseTool": "Tool"},
    "langchain.tools": {"BaseTool": "Tool"},
    "langchain_core.messages": {"RemoveMessage": "rag.graph.message:RemoveMessage"},
    "langchain.messages": {"RemoveMessage": "rag.graph.message:RemoveMessage"},
}
_IMPORT = re.compile(r"^(\s*)(from|import)\s+([\w.]+)", re.MULTILINE)


class NotOffered:
    """Stands for a name our module does not offer; any use raises saying so."""

    def __init__(self, module: str, name: str) -> None:
        self._where = f"{module}.{name}"

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{self._where} is not offered by rag (see DEVIATIONS.md)")

    __call__ = _refuse

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._refuse()


def rename_imports(source: str) -> str:
    """``source`` with each renamed module of a ``from X import`` line pointing at the shim
    of ours (``PACKAGE.ours.<module>``, which adds the placeholders)."""
    ordered = sorted(RENAMES, key=len, reverse=True)

    def rename(match: re.Match) -> str:
        module = match.group(3)
        for old in ordered:
            if module == old or module.startswith(old + "."):
                target = f"{PACKAGE}.ours.{module}" if match.group(2) == "from" else RENAMES[old]
                return f"{match.group(1)}{match.group(2)} {target}"
        return match.group(0)

    return _IMPORT.sub(rename, source)


class _PeerFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads ``_langchain_agent_peer.*`` from this folder with the renames applied."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        if fullname.startswith(f"{PACKAGE}.ours"):
            return importlib.util.spec_from_loader(fullname, self, origin="shim", is_package=True)
        folder = HERE / Path(*fullname.split(".")[1:])
        if fullname == PACKAGE or folder.is_dir():
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        file = folder.with_suffix(".py")
        return importlib.util.spec_from_loader(fullname, self, origin=str(file)) if file.is_file() else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        spec = module.__spec__
        module.__path__ = []
        if spec.origin == "shim":
            original = spec.name[len(f"{PACKAGE}.ours."):] if spec.name != f"{PACKAGE}.ours" else ""
            if any(original == old or original.startswith(old + ".") for old in RENAMES):
                module.__getattr__ = _shim_lookup(original)  # else: a parent of one, a bare package
            return
        if spec.origin is None or not spec.origin.endswith(".py"):
            return
        path = Path(spec.origin)
        module.__file__ = str(path)
        exec(compile(rename_imports(path.read_text(encoding="utf-8")), str(path), "exec", dont_inherit=True), module.__dict__)


def _shim_lookup(original: str):
    """Names of ``original`` (LangChain's module) looked up in ours first (for a middleware
    module, then in the ``rag.agents.middleware`` package); a name we lack falls back to
    LangChain's own (a helper base class the test subclasses), else a NotOffered placeholder."""
    target = RENAMES[max((old for old in RENAMES if original == old or original.startswith(old + ".")), key=len)]
    ours = importlib.import_module(target)

    public = importlib.import_module("rag.agents.middleware")

    def lookup(name):
        renamed = NAME_RENAMES.get(original, {}).get(name, name)
        if ":" in renamed:
            module, _, attribute = renamed.partition(":")
            return getattr(importlib.import_module(module), attribute)
        name = renamed
        if hasattr(ours, name):
            return getattr(ours, name)
        if target.startswith("rag.agents.middleware.") and hasattr(public, name):
            return getattr(public, name)  # our decorators live beside, not in, the types module
        try:
            return getattr(importlib.import_module(original), name)
        except (ImportError, AttributeError):
            return NotOffered(target, name)
    return lookup


if not any(isinstance(finder, _PeerFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _PeerFinder())


check_unchanged(json.loads((HERE / "MANIFEST.json").read_text())["files"], HERE / "unit_tests", "langchain 1.4.7")

pytest_pycollect_makemodule = collector(
    HERE / "unit_tests", lambda path: ".".join([PACKAGE, *path.relative_to(HERE).with_suffix("").parts]))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """LangChain's tests run ``async def`` tests with pytest-asyncio's auto mode."""
    return run_coroutine_test(pyfuncitem, HERE)


def _deviations() -> dict[str, str]:
    # Loaded by path under its own name: pytest puts each conftest's folder on sys.path,
    # and the classic suite's deviations.py must stay the one its conftest imports.
    spec = importlib.util.spec_from_file_location(f"{PACKAGE}_deviations", HERE / "agent_deviations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DEVIATIONS


def pytest_collection_modifyitems(config, items):
    DEVIATIONS = _deviations()

    for item in items:
        if HERE not in item.path.parents:
            continue
        key = f"{item.path.relative_to(HERE / 'unit_tests').as_posix()}::{item.name}"
        reason = DEVIATIONS.get(key) or DEVIATIONS.get(key.split("[")[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
