"""Runs langchain-classic 1.0.8's own unit tests (files under ``unit_tests/``, copied
unchanged; versions and sha256 in MANIFEST.json) against rag.classic.

The files are never edited: when a test module is imported, its import lines are renamed
(:data:`RENAMES`, longest prefix first) so ``langchain_classic`` means ``rag.classic``,
the agent types, messages and parser exception come from this project, and
``tests.unit_tests`` means this folder. Models, prompts, tools and callback classes stay
langchain_core's: the tests supply those, and our chains take them. Helper modules (fake
models, the callback handler) get only the ``langchain_classic`` / ``tests`` renames, so
LangChain's fakes stay LangChain objects.

A test that cannot pass is listed in ``deviations.py`` with its reason and runs as a
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
PACKAGE = "_langchain_classic_peer"

# Import paths as LangChain's tests write them -> ours (longest prefix wins; the module is
# replaced, except for the helpers under tests.unit_tests, whose path is kept).
PREFIX_RENAMES = {"tests.unit_tests": f"{PACKAGE}.unit_tests"}
CLASSIC_RENAMES = {
    "langchain_classic.base_memory": "rag.classic.base_memory",
    "langchain_classic.schema": "rag.classic.schema",
    "langchain_classic.memory": "rag.classic.memory",
    "langchain_classic.chains.conversation.memory": "rag.classic.memory",
    "langchain_classic.chains.conversation.base": "rag.classic.chains",
    "langchain_classic.chains.conversational_retrieval.base": "rag.classic.chains",
    "langchain_classic.chains.retrieval_qa.base": "rag.classic.chains",
    "langchain_classic.chains.base": "rag.classic.chains.base",
    "langchain_classic.chains": "rag.classic.chains",
    "langchain_classic.agents.format_scratchpad": "rag.classic.agents.scratchpad",
    "langchain_classic.agents.output_parsers": "rag.classic.agents.parsers",
    "langchain_classic.agents": "rag.classic.agents",
}
# In the test modules only: the values the tests build and compare with our outputs.
TEST_RENAMES = {
    "langchain_core.agents": "rag.classic.agents",
    "langchain_core.messages": "rag.messages",
    "langchain_core.exceptions": "rag.errors",
}
_IMPORT = re.compile(r"^(\s*)(from|import)\s+([\w.]+)", re.MULTILINE)


# Names LangChain's tests import that rag.classic does not offer, with the reason. The
# import succeeds (a placeholder), so the module's other tests run; using one raises
# NotOffered with the reason, and those tests are listed in deviations.py.
NOT_OFFERED = {
    "AgentType": "initialize_agent / AgentType (the pre-LCEL agents, deprecated since LangChain 0.1) are not "
                 "offered; build agents with create_react_agent & co. and AgentExecutor",
    "initialize_agent": "initialize_agent / AgentType (the pre-LCEL agents, deprecated since LangChain 0.1) are not "
                        "offered; build agents with create_react_agent & co. and AgentExecutor",
    "AgentExecutorIterator": "AgentExecutorIterator is not a public class here; AgentExecutor.iter() gives the "
                             "same chunks",
    "create_openai_functions_agent": "the OpenAI functions agent (legacy function_call API) is not offered; "
                                     "create_openai_tools_agent / create_tool_calling_agent are",
    "StructuredChatAgent": "the pre-LCEL StructuredChatAgent class (deprecated since LangChain 0.1) is not offered; "
                           "create_structured_chat_agent and StructuredChatOutputParser are",
    "FunctionMessage": "rag.messages has no FunctionMessage (OpenAI's legacy function role)",
}


class NotOffered:
    """Stands for a name rag.classic does not offer; any use raises with the reason."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{self._name}: {NOT_OFFERED[self._name]}")

    __call__ = _refuse

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._refuse()


def rename_imports(source: str, renames: dict[str, str]) -> str:
    """``source`` with each ``from X import`` / ``import X`` line's module renamed: to
    the shim of our module (``PACKAGE.ours.<module>``, which adds the NotOffered names)."""
    ordered = sorted(renames, key=len, reverse=True)

    def rename(match: re.Match) -> str:
        module = match.group(3)
        for old, new in PREFIX_RENAMES.items():
            if module == old or module.startswith(old + "."):
                return f"{match.group(1)}{match.group(2)} {new}{module[len(old):]}"
        for old in ordered:
            if module == old or module.startswith(old + "."):
                target = renames[old]
                if match.group(2) == "from":
                    target = f"{PACKAGE}.ours.{target}"
                return f"{match.group(1)}{match.group(2)} {target}"
        return match.group(0)

    return _IMPORT.sub(rename, source)


class _PeerFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads ``_langchain_classic_peer.*`` from this folder with the renames applied."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        if fullname.startswith(f"{PACKAGE}.ours"):
            target = fullname[len(f"{PACKAGE}.ours."):]
            if target and importlib.util.find_spec(target) is None:
                return None
            return importlib.util.spec_from_loader(fullname, self, origin="shim", is_package=True)
        relative = Path(*fullname.split(".")[1:])
        folder = HERE / relative
        if fullname == PACKAGE or folder.is_dir():
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        file = folder.with_suffix(".py")
        return importlib.util.spec_from_loader(fullname, self, origin=str(file)) if file.is_file() else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        spec = module.__spec__
        if spec.origin == "shim":
            _fill_shim(module, spec.name[len(f"{PACKAGE}.ours."):] if spec.name != f"{PACKAGE}.ours" else "")
            return
        if spec.origin is None or not spec.origin.endswith(".py"):  # a folder: a namespace-like package
            module.__path__ = []
            return
        path = Path(spec.origin)
        module.__file__ = str(path)
        renames = {**CLASSIC_RENAMES, **(TEST_RENAMES if path.name.startswith("test_") else {})}
        code = compile(rename_imports(path.read_text(encoding="utf-8"), renames), str(path), "exec", dont_inherit=True)
        exec(code, module.__dict__)


def _fill_shim(module, target: str) -> None:
    """``module`` reads as ``target`` (one of ours), plus the NotOffered names."""
    module.__path__ = []
    if not target:
        return
    real = importlib.import_module(target)

    def __getattr__(name):
        if hasattr(real, name):
            return getattr(real, name)
        if name in NOT_OFFERED:
            return NotOffered(name)
        raise AttributeError(f"module {target!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__


if not any(isinstance(finder, _PeerFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _PeerFinder())


check_unchanged(json.loads((HERE / "MANIFEST.json").read_text())["files"], HERE / "unit_tests", "langchain-classic 1.0.8")

pytest_pycollect_makemodule = collector(
    HERE / "unit_tests", lambda path: ".".join([PACKAGE, *path.relative_to(HERE).with_suffix("").parts]))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """LangChain's tests run ``async def`` tests with pytest-asyncio's auto mode."""
    return run_coroutine_test(pyfuncitem, HERE)


def pytest_collection_modifyitems(config, items):
    from deviations import DEVIATIONS

    for item in items:
        if HERE not in item.path.parents:
            continue
        key = f"{item.path.relative_to(HERE / 'unit_tests').as_posix()}::{item.name}"
        reason = DEVIATIONS.get(key) or DEVIATIONS.get(key.split("[")[0])
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
