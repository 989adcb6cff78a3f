"""configurable_fields / configurable_alternatives: per-call settings via config["configurable"]."""

from __future__ import annotations

import pytest

from rag.errors import ValidationError
from rag.models import FakeListChatModel
from rag.prompts import PromptTemplate
from rag.runnables import ConfigurableField, RunnableLambda


def test_a_configurable_field_changes_only_the_call_that_sets_it():
    model = FakeListChatModel(responses=["default"]).configurable_fields(responses=ConfigurableField(id="replies"))
    assert model.invoke("hi", {"configurable": {"replies": ["set"]}}).content == "set"
    assert model.invoke("hi").content == "default"


def test_a_configurable_field_reaches_a_step_inside_a_chain():
    model = FakeListChatModel(responses=["default"]).configurable_fields(responses=ConfigurableField(id="replies"))
    chain = PromptTemplate.from_template("{q}") | model
    assert chain.invoke({"q": "x"}, {"configurable": {"replies": ["inner"]}}).content == "inner"
    assert [spec.id for spec in chain.config_specs] == ["replies"]


def test_making_a_missing_attribute_configurable_is_refused():
    with pytest.raises(ValidationError, match="temperature"):
        FakeListChatModel(responses=["x"]).configurable_fields(temperature=ConfigurableField(id="t"))


def test_alternatives_are_chosen_per_call():
    upper = RunnableLambda(lambda s: s.upper())
    chain = RunnableLambda(lambda s: s).configurable_alternatives(ConfigurableField(id="mode"), upper=upper)
    assert chain.invoke("a") == "a"
    assert chain.invoke("a", {"configurable": {"mode": "upper"}}) == "A"
    with pytest.raises(ValidationError, match="lower"):
        chain.invoke("a", {"configurable": {"mode": "lower"}})
