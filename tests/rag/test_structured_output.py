"""BaseChatModel.with_structured_output: schemas of four kinds, three methods, include_raw."""

import dataclasses
from typing import TypedDict

import pytest
from pydantic import BaseModel

from rag.errors import InvalidTypeError, ValidationError
from rag.messages import AIMessage
from rag.models import GenericFakeChatModel
from rag.models.structured import StructuredOutputError, output_schema


class WeatherModel(BaseModel):
    """The weather in a city."""

    city: str
    degrees: int


@dataclasses.dataclass
class WeatherData:
    city: str
    degrees: int


class WeatherDict(TypedDict):
    city: str
    degrees: int


WEATHER_JSON = {"title": "Weather", "type": "object", "required": ["city", "degrees"],
                "properties": {"city": {"type": "string"}, "degrees": {"type": "integer"}}}
ARGS = {"city": "Oslo", "degrees": 3}


def called(name, args=ARGS):
    return GenericFakeChatModel(messages=iter([AIMessage("", tool_calls=[{"name": name, "args": args, "id": "c1"}])]))


@pytest.mark.parametrize("schema,expected", [
    (WeatherModel, WeatherModel(city="Oslo", degrees=3)), (WeatherData, WeatherData("Oslo", 3)),
    (WeatherDict, ARGS), (WEATHER_JSON, ARGS)], ids=["pydantic", "dataclass", "typeddict", "json schema"])
def test_function_calling_reads_the_tool_call_into_the_schemas_type(schema, expected):
    name = output_schema(schema).name
    assert called(name).with_structured_output(schema).invoke("weather in Oslo?") == expected


@pytest.mark.parametrize("method", ["json_schema", "json_mode"])
def test_json_methods_read_the_reply_text(method):
    model = GenericFakeChatModel(messages=iter([AIMessage('```json\n{"city": "Oslo", "degrees": 3}\n```')]))
    assert model.with_structured_output(WeatherModel, method=method).invoke("?") == WeatherModel(city="Oslo", degrees=3)


def test_json_schema_method_sends_openais_response_format():
    runnable = GenericFakeChatModel(messages=iter([])).with_structured_output(WeatherDict, method="json_schema")
    sent = runnable.first.kwargs["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "WeatherDict"
    assert sent["json_schema"]["strict"] is True


def test_include_raw_reports_a_misfit_instead_of_raising():
    out = called("WeatherDict", {"city": "Oslo"}).with_structured_output(WeatherDict, include_raw=True).invoke("?")
    assert out["parsed"] is None and isinstance(out["parsing_error"], ValidationError)
    assert out["raw"].tool_calls[0]["args"] == {"city": "Oslo"}


def test_a_reply_without_the_call_is_a_clear_error():
    model = GenericFakeChatModel(messages=iter([AIMessage("It is cold.")]))
    with pytest.raises(StructuredOutputError, match="did not call 'WeatherDict'"):
        model.with_structured_output(WeatherDict).invoke("?")


def test_a_value_that_is_not_a_schema_is_refused():
    with pytest.raises(InvalidTypeError, match="must be a pydantic model class, a dataclass, a TypedDict"):
        output_schema(str)
    with pytest.raises(InvalidTypeError, match="needs a 'title'"):
        output_schema({"type": "object"})
