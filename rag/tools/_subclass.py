"""Tools written as LangChain's ``BaseTool`` subclasses: class attributes for ``name``,
``description`` and ``args_schema``, a ``_run`` method (and/or ``async def _arun``) doing the
work, and keyword construction (``MyTool(return_value=...)``) of any annotated field.

>>> from rag.tools import Tool
>>> class Greeter(Tool):
...     name: str = "greet"
...     description: str = "Greet someone."
...     greeting: str = "Hello"
...     def _run(self, who: str) -> str:
...         return f"{self.greeting}, {who}!"
>>> Greeter(greeting="Hi").invoke({"who": "Ada"})
'Hi, Ada!'
"""

from __future__ import annotations

import inspect
from typing import Any

from rag.errors import ValidationError
from rag.tools._schema import function_schema

__all__ = ["keyword_init"]

#: Tool's own constructor keywords a subclass may also set.
_TOOL_OPTIONS = ("return_direct", "response_format", "handle_tool_error", "tags", "metadata")


def _fields(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        names.update(getattr(klass, "__annotations__", {}))
    return names


def keyword_init(self: Any, **values: Any) -> None:
    """The constructor of a ``_run``-defining Tool subclass (see the module docstring)."""
    from rag.tools.base import Tool

    cls = type(self)
    allowed = _fields(cls) | {"name", "description", "args_schema", *_TOOL_OPTIONS}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ValidationError(f"{cls.__name__} got unknown fields {unknown}; it takes {sorted(allowed)}")
    for key, value in values.items():
        if key not in ("name", "description", "args_schema", *_TOOL_OPTIONS):
            setattr(self, key, value)
    name = values.get("name", cls.__dict__.get("name") or getattr(cls, "name", None))
    description = values.get("description", getattr(cls, "description", None))
    if not isinstance(name, str) or not isinstance(description, str):
        raise ValidationError(f"{cls.__name__} needs a name and a description (class attributes or keywords), got "
                              f"name={name!r}, description={description!r}")
    run = self._run if "_run" in _defined(cls) else None
    arun = self._arun if "_arun" in _defined(cls) and inspect.iscoroutinefunction(self._arun) else None
    schema = values.get("args_schema", getattr(cls, "args_schema", None))
    if schema is None or isinstance(schema, property):
        schema = function_schema(run or arun, name)  # type: ignore[arg-type]
    options = {key: values.get(key, getattr(cls, key)) for key in _TOOL_OPTIONS
               if key in values or key in cls.__dict__}
    Tool.__init__(self, name, run, description, coroutine=arun, args_schema=schema, **options)


def _defined(cls: type) -> set[str]:
    """``_run``/``_arun`` as some subclass of Tool (not Tool itself) defines them."""
    from rag.tools.base import Tool

    return {name for klass in cls.__mro__ if klass is not Tool and issubclass(klass, Tool)
            for name in ("_run", "_arun") if name in klass.__dict__}
