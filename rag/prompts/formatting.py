"""f-string templates: finding their variables and filling them in, safely.

Only plain names are allowed as variables (``{question}``), never attribute access or
indexing (``{obj.attr}``, ``{items[0]}``), which could reach into objects passed as values;
``{{`` and ``}}`` are literal braces. Format specs work (``{score:.2f}``).
"""

from __future__ import annotations

import string
from typing import Any, Mapping

from rag.errors import ValidationError

__all__ = ["template_variables", "format_template", "check_template_format"]

_FORMATTER = string.Formatter()
SUPPORTED_FORMATS = ("f-string",)


def check_template_format(template_format: str) -> None:
    if template_format not in SUPPORTED_FORMATS:
        raise ValidationError(
            f"template_format {template_format!r} is not supported; use 'f-string' "
            "(jinja2 can run code from the template, so it is left out on purpose)"
        )


def template_variables(template: str) -> list[str]:
    """The variables of an f-string template, in first-appearance order.

    >>> template_variables("{b} and {a}, {{literal}}, {b:>4}")
    ['b', 'a']
    """
    if not isinstance(template, str):
        raise ValidationError(f"a template must be a str, got {type(template).__name__}: {template!r:.60}")
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise ValidationError(
            f"invalid f-string template {template!r:.80}: {exc}; write literal braces as {{{{ and }}}}"
        ) from exc
    names: list[str] = []
    for _, field_name, _, _ in parsed:
        if field_name is None:
            continue
        if field_name == "" or field_name.isdigit():
            raise ValidationError(
                f"template {template!r:.80} has a positional field {{{field_name}}}; name it, e.g. {{question}}"
            )
        if any(ch in field_name for ch in ".["):
            raise ValidationError(
                f"invalid variable {field_name!r} in template {template!r:.80}: attribute access and "
                "indexing are not allowed; pass the value itself as a variable"
            )
        if field_name not in names:
            names.append(field_name)
    return names


def format_template(template: str, values: Mapping[str, Any]) -> str:
    """Fill ``template``'s variables from ``values`` (extra values are ignored)."""
    return _FORMATTER.vformat(template, (), dict(values))
