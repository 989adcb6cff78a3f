"""Tools: Tool, @tool and create_retriever_tool (schemas, inputs, tool calls, errors)."""

import asyncio
from typing import Literal, Optional

import pytest

from rag.documents import Document
from rag.errors import ValidationError
from rag.messages import ToolMessage
from rag.prompts import PromptTemplate
from rag.retrievers import BaseRetriever
from rag.tools import Tool, ToolException, create_retriever_tool, tool


class ListRetriever(BaseRetriever):
    """Returns fixed documents and remembers the queries it saw."""

    def __init__(self, documents):
        self.documents = documents
        self.queries = []

    def _get_relevant_documents(self, query, **kwargs):
        self.queries.append(query)
        return list(self.documents)


DOCS = [Document("Cats purr.", {"source": "a.txt"}), Document("Dogs bark.", {"source": "b.txt"})]


@pytest.fixture
def retriever():
    return ListRetriever(DOCS)


def test_retriever_tool_schema_has_one_required_string_query(retriever):
    search = create_retriever_tool(retriever, "pets", "Search pet facts.")
    assert search.args_schema["required"] == ["query"]
    assert search.args_schema["properties"]["query"]["type"] == "string"
    assert (search.name, search.description) == ("pets", "Search pet facts.")


def test_retriever_tool_takes_a_string_or_a_query_dict(retriever):
    search = create_retriever_tool(retriever, "pets", "Search pet facts.")
    assert search.invoke("cats") == search.invoke({"query": "dogs"}) == "Cats purr.\n\nDogs bark."
    assert retriever.queries == ["cats", "dogs"]


def test_retriever_tool_formats_with_document_prompt_and_separator(retriever):
    search = create_retriever_tool(retriever, "pets", "d", document_prompt=PromptTemplate.from_template(
        "{source}: {page_content}"), document_separator="\n---\n")
    assert search.invoke("x") == "a.txt: Cats purr.\n---\nb.txt: Dogs bark."


def test_retriever_tool_names_a_document_prompt_variable_missing_from_metadata(retriever):
    search = create_retriever_tool(retriever, "pets", "d", document_prompt="{author}: {page_content}")
    with pytest.raises(ValueError, match="author"):
        search.invoke("x")


def test_retriever_tool_answers_a_tool_call_with_a_tool_message(retriever):
    search = create_retriever_tool(retriever, "pets", "d")
    message = search.invoke({"name": "pets", "args": {"query": "cats"}, "id": "call_7", "type": "tool_call"})
    assert isinstance(message, ToolMessage)
    assert (message.content, message.tool_call_id, message.name, message.status) == (
        "Cats purr.\n\nDogs bark.", "call_7", "pets", "success")


def test_content_and_artifact_sends_text_and_carries_the_documents(retriever):
    search = create_retriever_tool(retriever, "pets", "d", response_format="content_and_artifact")
    assert search.func("cats") == ("Cats purr.\n\nDogs bark.", DOCS)
    message = search.invoke({"name": "pets", "args": {"query": "cats"}, "id": "c1"})
    assert message.content == "Cats purr.\n\nDogs bark." and message.artifact == DOCS


def test_retriever_tool_async_matches_sync(retriever):
    search = create_retriever_tool(retriever, "pets", "d")
    assert asyncio.run(search.ainvoke({"query": "cats"})) == search.invoke("cats")


def test_retriever_tool_rejects_a_bad_response_format(retriever):
    with pytest.raises(ValueError, match="response_format"):
        create_retriever_tool(retriever, "pets", "d", response_format="artifact")


def test_tool_arguments_are_checked_against_the_schema(retriever):
    search = create_retriever_tool(retriever, "pets", "d")
    with pytest.raises(ValidationError, match="missing required argument 'query'"):
        search.invoke({"q": "cats"})
    with pytest.raises(ValidationError, match="must be string"):
        search.invoke({"query": 3})


@tool
def multiply(a: int, b: int = 2) -> int:
    """Multiply two integers."""
    return a * b


def test_tool_decorator_uses_name_docstring_and_type_hints():
    assert (multiply.name, multiply.description) == ("multiply", "Multiply two integers.")
    assert multiply.args_schema["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer", "default": 2}}
    assert multiply.args_schema["required"] == ["a"]


def test_tool_decorator_invoked_with_a_tool_call_returns_a_tool_message():
    message = multiply.invoke({"name": "multiply", "args": {"a": 3, "b": 4}, "id": "c9", "type": "tool_call"})
    assert isinstance(message, ToolMessage) and message.content == "12" and message.tool_call_id == "c9"


def test_tool_decorator_with_a_name_and_parsed_docstring():
    @tool("lookup", parse_docstring=True)
    def find(term: str, limit: Optional[int] = None) -> str:
        """Look a term up.

        Args:
            term: the word to look up
            limit: at most this many results
        """
        return term

    assert find.name == "lookup" and find.description == "Look a term up."
    assert find.args_schema["properties"]["term"] == {"type": "string", "description": "the word to look up"}
    assert find.args_schema["properties"]["limit"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]


def test_tool_decorator_needs_a_docstring_or_description():
    with pytest.raises(ValueError, match="docstring"):
        @tool
        def undocumented(x: str) -> str:
            return x


def test_async_tool_runs_on_both_paths():
    @tool
    async def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    assert asyncio.run(shout.ainvoke({"text": "hi"})) == "HI"
    assert shout.invoke("hi") == "HI"


def test_literal_arguments_become_an_enum_and_are_enforced():
    @tool
    def pick(colour: Literal["red", "blue"]) -> str:
        """Pick a colour."""
        return colour

    assert pick.args_schema["properties"]["colour"] == {"enum": ["red", "blue"]}
    with pytest.raises(ValidationError, match="colour"):
        pick.invoke({"colour": "green"})


def test_handled_tool_exception_becomes_an_error_tool_message():
    def fail(tool_input: str) -> str:
        raise ToolException("index offline")

    broken = Tool("broken", fail, "Fails.", handle_tool_error=True)
    message = broken.invoke({"name": "broken", "args": {"tool_input": "x"}, "id": "c1"})
    assert (message.content, message.status) == ("index offline", "error")


def test_unhandled_tool_exception_propagates():
    def fail(tool_input: str) -> str:
        raise ToolException("index offline")

    with pytest.raises(ToolException, match="index offline"):
        Tool("broken", fail, "Fails.").invoke("x")


def test_content_and_artifact_function_must_return_a_pair():
    bad = Tool("bad", lambda tool_input: "only text", "d", response_format="content_and_artifact")
    with pytest.raises(ValidationError, match="tuple"):
        bad.invoke({"name": "bad", "args": {"tool_input": "x"}, "id": "c1"})


def test_a_multi_argument_tool_refuses_a_bare_string():
    with pytest.raises(ValidationError, match="pass a dict"):
        multiply.invoke("3")


# -- differential checks against langchain-core ---------------------------------------------
lc_tools = pytest.importorskip("langchain_core.tools")


def test_retriever_tool_openai_definition_matches_langchain(retriever):
    from langchain_core.retrievers import BaseRetriever as LCRetriever
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class LCList(LCRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            return []

    theirs = convert_to_openai_tool(lc_tools.create_retriever_tool(LCList(), "pets", "Search pet facts."))
    ours = create_retriever_tool(retriever, "pets", "Search pet facts.").to_openai_tool()
    assert ours == theirs


def test_decorated_tool_openai_definition_matches_langchain():
    from langchain_core.utils.function_calling import convert_to_openai_tool

    def scale(value: float, factor: int = 2, unit: Optional[str] = None, tags: Optional[list[str]] = None) -> float:
        """Scale a value.

        Args:
            value: the number to scale
            factor: how many times
        """
        return value * factor

    ours = tool(parse_docstring=True)(scale).to_openai_tool()
    theirs = convert_to_openai_tool(lc_tools.tool(parse_docstring=True)(scale))
    assert ours == theirs


def test_retriever_tool_text_matches_langchain_for_the_same_documents():
    from langchain_core.documents import Document as LCDocument
    from langchain_core.prompts import PromptTemplate as LCPrompt
    from langchain_core.retrievers import BaseRetriever as LCRetriever

    class LCList(LCRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            return [LCDocument(d.page_content, metadata=d.metadata) for d in DOCS]

    theirs = lc_tools.create_retriever_tool(LCList(), "p", "d", document_prompt=LCPrompt.from_template(
        "[{source}] {page_content}"), document_separator=" | ").invoke("q")
    ours = create_retriever_tool(ListRetriever(DOCS), "p", "d", document_prompt="[{source}] {page_content}",
                                 document_separator=" | ").invoke("q")
    assert ours == theirs


def answer_with(question: str, k: int = 4) -> "TypeOnlyKnownToTypeCheckers":  # noqa: F821
    """Answer the question."""
    return f"{question}:{k}"


def test_a_function_whose_return_type_cannot_be_resolved_still_makes_a_tool():
    # A user's function whose return type is imported only for type checkers: its arguments still count.
    made = tool(answer_with)
    assert made.args == {"question": {"type": "string"}, "k": {"type": "integer", "default": 4}}
    assert made.invoke({"question": "why", "k": 2}) == "why:2"


def test_an_index_method_makes_a_tool(tmp_path):
    from rag.index import Index

    (tmp_path / "notes.md").write_text("Goldfish swim in ponds.")
    index = Index.create(tmp_path / "index", embeddings="hashing")
    index.update([str(tmp_path / "notes.md")])
    made = tool(index.ask)
    assert made.args["question"]["type"] == "string"
    assert "ponds" in made.invoke({"question": "Where do goldfish swim?"}).answer
