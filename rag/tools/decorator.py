"""``@tool``: a typed, documented function becomes a :class:`~rag.tools.Tool`."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Union, overload

from rag.errors import ValidationError
from rag.tools._schema import function_schema, parse_docstring
from rag.tools.base import ResponseFormat, Tool

__all__ = ["tool"]


def _from_function(
    func: Callable[..., Any],
    name: Optional[str],
    description: Optional[str],
    args_schema: Any,
    return_direct: bool,
    response_format: ResponseFormat,
    parse_docstring_: bool,
) -> Tool:
    tool_name = name or func.__name__
    summary, arg_descriptions = parse_docstring(func.__doc__ or "")
    if description is None:
        if not func.__doc__:
            raise ValidationError(
                f"function {func.__name__!r} has no docstring; give it one (the model reads it) or pass description=..."
            )
        description = summary if parse_docstring_ else inspect.cleandoc(func.__doc__)
    schema = args_schema if args_schema is not None else function_schema(
        func, tool_name, arg_descriptions if parse_docstring_ else None)
    is_async = inspect.iscoroutinefunction(func)
    return Tool(tool_name, None if is_async else func, description, coroutine=func if is_async else None,
                args_schema=schema, return_direct=return_direct, response_format=response_format)


@overload
def tool(name_or_callable: Callable[..., Any]) -> Tool: ...


@overload
def tool(name_or_callable: Optional[str] = None, *, description: Optional[str] = None, args_schema: Any = None,
         return_direct: bool = False, response_format: ResponseFormat = "content",
         parse_docstring: bool = False) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    name_or_callable: Union[str, Callable[..., Any], None] = None,
    *,
    description: Optional[str] = None,
    args_schema: Any = None,
    return_direct: bool = False,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
) -> Any:
    """Make a :class:`Tool` from a function: ``@tool``, ``@tool("name")`` or ``@tool(...)``.

    The name defaults to the function's name and the description to its docstring; the
    arguments' JSON schema comes from the type hints (defaults listed, ``Optional`` as
    ``anyOf`` with null). ``parse_docstring=True`` uses only the docstring's summary as the
    description and its Google-style ``Args:`` lines as argument descriptions. An
    ``async def`` function becomes the tool's coroutine.

    >>> @tool
    ... def multiply(a: int, b: int = 2) -> int:
    ...     '''Multiply two integers.'''
    ...     return a * b
    >>> multiply.invoke({"a": 3}), multiply.args_schema["required"]
    (6, ['a'])
    """
    options = dict(description=description, args_schema=args_schema, return_direct=return_direct,
                   response_format=response_format, parse_docstring_=parse_docstring)
    if callable(name_or_callable) and not isinstance(name_or_callable, str):
        return _from_function(name_or_callable, None, **options)  # type: ignore[arg-type]
    if name_or_callable is not None and not isinstance(name_or_callable, str):
        raise ValidationError(f"@tool takes a function or a name, got {type(name_or_callable).__name__}")

    def decorate(func: Callable[..., Any]) -> Tool:
        if not callable(func):
            raise ValidationError(f"@tool decorates a function, got {type(func).__name__}")
        return _from_function(func, name_or_callable, **options)  # type: ignore[arg-type]

    return decorate
