"""The issue's public names import from their modules, every __all__ resolves, and the
docstring examples of these modules run."""

import doctest
import importlib

import pytest

MODULES = ["rag.runnables", "rag.messages", "rag.prompts", "rag.parsers", "rag.models", "rag._callbacks"]


def test_the_issue_names_import():
    from rag.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage  # noqa: F401
    from rag.models import BaseChatModel, ChatOpenAI, FakeListChatModel  # noqa: F401
    from rag.parsers import StrOutputParser  # noqa: F401
    from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate  # noqa: F401
    from rag.runnables import (  # noqa: F401
        Runnable,
        RunnableConfig,
        RunnableLambda,
        RunnableParallel,
        RunnablePassthrough,
        RunnableSequence,
        coerce_to_runnable,
    )


@pytest.mark.parametrize("name", MODULES)
def test_every_name_in_all_exists(name):
    module = importlib.import_module(name)
    assert [item for item in module.__all__ if not hasattr(module, item)] == []


DOCTEST_MODULES = [
    "rag._callbacks", "rag.runnables", "rag.runnables.base", "rag.runnables.lambdas", "rag.runnables.sequence",
    "rag.runnables.parallel", "rag.runnables.passthrough", "rag.runnables.binding", "rag.runnables.retry",
    "rag.runnables.fallbacks", "rag.runnables.graph", "rag.messages", "rag.message_roles", "rag.codec",
    "rag.prompts", "rag.prompts.chat",
    "rag.prompts.prompt", "rag.prompts.values", "rag.prompts.formatting", "rag.parsers", "rag.parsers.base",
    "rag.parsers.json_output", "rag.parsers.list_output", "rag.json_patch", "rag.models",
    "rag.models.fake", "rag.models.openai", "rag.models._secret", "rag.models._sse", "rag.models._tools",
]


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
