"""PromptTemplate: one f-string template to a string prompt."""

from __future__ import annotations

from typing import Any, Optional

from rag.errors import ValidationError
from rag.prompts.base import BasePromptTemplate, PartialValue
from rag.prompts.formatting import check_template_format, format_template, template_variables
from rag.prompts.values import StringPromptValue

__all__ = ["PromptTemplate"]


class PromptTemplate(BasePromptTemplate):
    """An f-string template (``"Answer {question}"``). ``input_variables`` (sorted) are the
    template's variables minus ``partial_variables``; passing them is optional, and if
    passed they must match. ``invoke`` returns a :class:`StringPromptValue`; a missing
    variable raises :class:`~rag.errors.NotFoundError` (a ``KeyError``) naming it.

    >>> prompt = PromptTemplate.from_template("Tell me about {topic} in {n} words.")
    >>> prompt.input_variables
    ['n', 'topic']
    >>> prompt.partial(n=5).format(topic="RAG")
    'Tell me about RAG in 5 words.'
    """

    def __init__(
        self,
        template: str,
        input_variables: Optional[list[str]] = None,
        partial_variables: Optional[dict[str, PartialValue]] = None,
        template_format: str = "f-string",
    ) -> None:
        check_template_format(template_format)
        self.template = template
        self.template_format = template_format
        self.partial_variables = dict(partial_variables or {})
        found = sorted(set(template_variables(template)) - set(self.partial_variables))
        if input_variables is not None and sorted(input_variables) != found:
            raise ValidationError(
                f"input_variables {sorted(input_variables)} do not match the template's variables {found}; "
                "leave input_variables out to take them from the template"
            )
        self.input_variables = found
        self.optional_variables: list[str] = []
        self.name = None

    @classmethod
    def from_template(
        cls, template: str, *, template_format: str = "f-string",
        partial_variables: Optional[dict[str, PartialValue]] = None,
    ) -> "PromptTemplate":
        return cls(template, partial_variables=partial_variables, template_format=template_format)

    def format(self, **kwargs: Any) -> str:
        """The filled-in string; a missing variable raises NotFoundError."""
        return format_template(self.template, self._merged(self._check_input(kwargs)))

    def format_prompt(self, **kwargs: Any) -> StringPromptValue:
        return StringPromptValue(self.format(**kwargs))

    def partial(self, **kwargs: PartialValue) -> "PromptTemplate":
        return PromptTemplate(self.template, partial_variables={**self.partial_variables, **kwargs},
                              template_format=self.template_format)

    def __add__(self, other: Any) -> "PromptTemplate":
        """Joins two templates (or a template and a string) into one."""
        if isinstance(other, str):
            other = PromptTemplate(other)
        if not isinstance(other, PromptTemplate):
            return NotImplemented
        return PromptTemplate(self.template + other.template,
                              partial_variables={**self.partial_variables, **other.partial_variables})

    def __repr__(self) -> str:
        return f"PromptTemplate(template={self.template!r}, input_variables={self.input_variables!r})"
