"""What every prompt template shares: variables, partials, validation and ``invoke``."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Callable, Mapping, Optional, Union

from rag.errors import NotFoundError, ValidationError
from rag.prompts.values import PromptValue
from rag.runnables import Runnable, RunnableConfig

__all__ = ["BasePromptTemplate"]

PartialValue = Union[Any, Callable[[], Any]]


class BasePromptTemplate(Runnable[Any, PromptValue]):
    """A Runnable from a dict of variables to a :class:`PromptValue`.

    Subclasses set ``input_variables`` (required, sorted), ``optional_variables`` and
    ``partial_variables`` (values, or functions called at format time) and implement
    :meth:`format_prompt`. A template with one variable also accepts the bare value.
    """

    input_variables: list[str]
    optional_variables: list[str]
    partial_variables: dict[str, PartialValue]
    _run_type = "prompt"

    @abstractmethod
    def format_prompt(self, **kwargs: Any) -> PromptValue:
        """The prompt value for these variables."""

    @abstractmethod
    def partial(self, **kwargs: PartialValue) -> "BasePromptTemplate":
        """A copy with some variables filled in (values or zero-argument functions)."""

    def _merged(self, values: Mapping[str, Any]) -> dict[str, Any]:
        partials = {k: (v() if callable(v) else v) for k, v in self.partial_variables.items()}
        return {**partials, **values}

    def _check_input(self, input: Any) -> dict[str, Any]:
        if not isinstance(input, dict):
            if len(self.input_variables) == 1:
                return {self.input_variables[0]: input}
            raise ValidationError(
                f"{self.get_name()} expects a dict with keys {self.input_variables}, "
                f"got {type(input).__name__}: {input!r:.60}"
            )
        missing = sorted(set(self.input_variables) - set(input))
        if missing:
            raise NotFoundError(
                f"Input to {self.get_name()} is missing variables {missing}. Expected: "
                f"{self.input_variables} Received: {list(input)}. If {{{missing[0]}}} is meant as "
                f"literal text, escape it with double braces: '{{{{{missing[0]}}}}}'"
            )
        return input

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> PromptValue:
        return self._call_traced(lambda value, _cfg: self.format_prompt(**self._check_input(value)), input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> PromptValue:
        # Formatting is fast and pure: no worker thread needed.
        async def body(value: Any, _cfg: Any) -> PromptValue:
            return self.format_prompt(**self._check_input(value))

        return await self._acall_traced(body, input, config)

    def _graph_io_names(self) -> tuple[str, str]:
        return "PromptInput", f"{self.get_name()}Output"

    def _variable_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema of one variable (a string unless a subclass knows better)."""
        return {"title": name.replace("_", " ").title(), "type": "string"}

    def _input_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import object_schema

        variables = [*self.input_variables, *self.optional_variables]
        properties = {name: self._variable_schema(name) for name in variables if name not in self.partial_variables}
        required = [name for name in self.input_variables if name not in self.partial_variables]
        return object_schema(properties, required=required)

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import PROMPT_VALUE_SCHEMA

        return PROMPT_VALUE_SCHEMA

    def _schema_title(self, suffix: str) -> str:
        return "PromptInput" if suffix == "Input" else super()._schema_title(suffix)
