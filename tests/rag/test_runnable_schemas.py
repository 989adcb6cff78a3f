"""input_schema / output_schema / config_schema: JSON Schema dicts on every runnable."""

from __future__ import annotations

from typing import Optional, TypedDict

import pytest

from rag.documents import Document
from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.parsers import StrOutputParser
from rag.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
from rag.retrievers import BaseRetriever
from rag.runnables import (
    ConfigurableField,
    ConfigurableFieldSpec,
    Runnable,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)
from rag.runnables.schema import DOCUMENT_SCHEMA, hint_schema


class Shelf(BaseRetriever):
    def _get_relevant_documents(self, query, **kwargs):
        return [Document(query)]


def test_a_prompts_input_is_an_object_of_its_variables():
    assert PromptTemplate.from_template("{a} and {b}").input_schema == {
        "title": "PromptInput", "type": "object",
        "properties": {"a": {"title": "A", "type": "string"}, "b": {"title": "B", "type": "string"}},
        "required": ["a", "b"]}


def test_a_prompt_input_matches_langchains_schema():
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    ours = ChatPromptTemplate.from_template("say {topic}").input_schema
    assert ours == LCPrompt.from_template("say {topic}").input_schema.model_json_schema()


def test_a_messages_placeholder_is_an_array_of_messages_and_optional_ones_are_not_required():
    schema = ChatPromptTemplate([MessagesPlaceholder("history", optional=True), ("human", "{q}")]).input_schema
    assert schema["required"] == ["q"]
    assert schema["properties"]["history"]["type"] == "array"


def test_a_retriever_takes_a_string_and_gives_documents():
    assert Shelf().input_schema == {"title": "ShelfInput", "type": "string"}
    assert Shelf().output_schema["items"] == DOCUMENT_SCHEMA


def test_a_chat_model_gives_an_ai_message():
    schema = FakeListChatModel(responses=["x"]).output_schema
    assert schema["title"] == "FakeListChatModelOutput"
    assert schema["properties"]["type"]["const"] == "ai"


def test_a_parser_takes_a_string_or_a_message_and_gives_its_parse_type():
    parser = StrOutputParser()
    assert {"type": "string"} in parser.input_schema["anyOf"]
    assert parser.output_schema == {"title": "StrOutputParserOutput", "type": "string"}


class Query(TypedDict):
    text: str
    limit: Optional[int]


def test_a_lambda_with_type_hints_has_their_schemas():
    def search(query: Query) -> list[Document]:
        return []

    schema = RunnableLambda(search).input_schema
    assert schema["properties"] == {"text": {"type": "string"},
                                    "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}
    assert RunnableLambda(search).output_schema == {"title": "searchOutput", "type": "array", "items": DOCUMENT_SCHEMA}


def test_a_lambda_without_hints_accepts_anything():
    # LangChain titles it after the class: a lambda has no name of its own.
    assert RunnableLambda(lambda x: x).input_schema == {"title": "RunnableLambdaInput"}


def test_a_sequence_takes_its_first_steps_input_and_gives_its_last_steps_output():
    chain = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["x"]) | StrOutputParser()
    assert chain.input_schema["required"] == ["q"]
    assert chain.output_schema == {"title": "StrOutputParserOutput", "type": "string"}


def test_a_parallel_map_outputs_an_object_of_its_branches():
    mapping = RunnableParallel(docs=Shelf(), question=RunnablePassthrough())
    assert mapping.input_schema == {"title": "RunnableParallel<docs,question>Input", "type": "string"}
    output = mapping.output_schema
    assert output["type"] == "object" and set(output["properties"]) == {"docs", "question"}
    assert output["properties"]["docs"]["type"] == "array"


def test_a_parallel_map_of_prompts_merges_their_variables():
    mapping = RunnableParallel(a=PromptTemplate.from_template("{x}"), b=PromptTemplate.from_template("{y}"))
    assert mapping.input_schema["required"] == ["x", "y"]


def test_config_schema_lists_declared_configurable_fields():
    model = FakeListChatModel(responses=["x"]).configurable_fields(
        responses=ConfigurableField(id="replies", name="Replies", description="what to say"))
    schema = (PromptTemplate.from_template("{q}") | model).config_schema()
    field = schema["$defs"]["Configurable"]["properties"]["replies"]
    assert field == {"title": "Replies", "type": "array", "description": "what to say", "default": ["x"]}
    assert schema["properties"] == {"configurable": {"$ref": "#/$defs/Configurable"}}


def test_config_schema_without_fields_is_an_empty_object_as_in_langserve():
    assert RunnableLambda(lambda x: x, name="f").config_schema() == {"title": "fConfig", "type": "object",
                                                                     "properties": {}}


def test_config_schema_include_adds_runnable_config_keys_and_refuses_others():
    schema = RunnableLambda(lambda x: x).config_schema(include=["tags"])
    assert schema["properties"]["tags"]["type"] == "array"
    with pytest.raises(ValidationError, match="callbacks"):
        RunnableLambda(lambda x: x).config_schema(include=["callbacks"])


def test_a_required_spec_is_listed_as_required():
    class PerUser(Runnable):
        def _own_config_specs(self):
            return [ConfigurableFieldSpec(id="user_id", annotation=str, required=True)]

        def invoke(self, input, config=None, **kwargs):
            return input

    configurable = PerUser().config_schema()["$defs"]["Configurable"]
    assert configurable["required"] == ["user_id"] and "default" not in configurable["properties"]["user_id"]


@pytest.mark.parametrize("hint, schema", [
    (str, {"type": "string"}), (int, {"type": "integer"}), (float, {"type": "number"}),
    (bool, {"type": "boolean"}), (list[str], {"type": "array", "items": {"type": "string"}}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (Optional[str], {"anyOf": [{"type": "string"}, {"type": "null"}]}),
])
def test_type_hints_become_json_schema(hint, schema):
    assert hint_schema(hint) == schema
