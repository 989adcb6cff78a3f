"""Configurable fields: attributes of a runnable set per call through ``config["configurable"]``.

>>> from rag.models import FakeListChatModel
>>> model = FakeListChatModel(responses=["a"]).configurable_fields(
...     responses=ConfigurableField(id="replies", description="scripted replies"))
>>> model.invoke("hi", {"configurable": {"replies": ["b"]}}).content
'b'
>>> [spec.id for spec in model.config_specs]
['replies']
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator, Mapping, Optional

from rag import _callbacks
from rag.errors import ValidationError
from rag.runnables.base import Runnable
from rag.runnables.config import RunnableConfig

__all__ = ["ConfigurableField", "ConfigurableFieldSpec", "RunnableConfigurableFields",
           "RunnableConfigurableAlternatives", "collect_config_specs"]


@dataclass(frozen=True)
class ConfigurableField:
    """Names an attribute as configurable: ``id`` is its key in ``config["configurable"]``;
    ``name``/``description`` document it in the config schema; ``annotation`` is its type
    (default: the type of the attribute's current value)."""

    id: str
    name: Optional[str] = None
    description: Optional[str] = None
    annotation: Any = None
    is_shared: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValidationError(f"ConfigurableField needs a non-empty str id, got {self.id!r}")


@dataclass(frozen=True)
class ConfigurableFieldSpec:
    """A ``configurable`` key a runnable reads: ``id``, its type (``annotation``), ``name``,
    ``description`` and ``default``. ``required=True`` (not in LangChain) means callers must
    give it; the server answers 400 when they do not."""

    id: str
    annotation: Any = Any
    name: Optional[str] = None
    description: Optional[str] = None
    default: Any = None
    is_shared: bool = False
    required: bool = False


def _children(runnable: Runnable) -> list[Runnable]:
    """The runnables held in ``runnable``'s attributes (directly, in lists or dict values),
    which is how every composition stores its steps."""
    found: list[Runnable] = []
    for value in vars(runnable).values():
        items = value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else [value]
        found.extend(item for item in items if isinstance(item, Runnable) and item is not runnable)
    return found


def collect_config_specs(runnable: Runnable) -> list[ConfigurableFieldSpec]:
    """The specs ``runnable`` declares itself (``_own_config_specs``) and those of the
    runnables inside it, one per id (the first wins)."""
    specs: dict[str, ConfigurableFieldSpec] = {}
    own = getattr(runnable, "_own_config_specs", None)
    for spec in [*(own() if own else []), *(s for child in _children(runnable) for s in child.config_specs)]:
        specs.setdefault(spec.id, spec)
    return list(specs.values())


class _Delegating(Runnable[Any, Any]):
    """Runs whichever runnable :meth:`_pick` chooses for the call's config."""

    default: Runnable

    def _pick(self, config: Optional[Mapping[str, Any]]) -> Runnable:
        raise NotImplementedError

    def _values(self, config: Optional[Mapping[str, Any]]) -> dict[str, Any]:
        config = config if config is not None else _callbacks._AMBIENT.get()
        return dict((config or {}).get("configurable") or {})

    def get_name(self) -> str:
        return self.name or self.default.get_name()

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._pick(config).invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self._pick(config).ainvoke(input, config, **kwargs)

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        yield from self._pick(config).stream(input, config, **kwargs)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self._pick(config).astream(input, config, **kwargs):
            yield chunk

    def transform(self, input: Iterator[Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        yield from self._pick(config).transform(input, config, **kwargs)

    async def atransform(self, input: AsyncIterator[Any], config: Optional[RunnableConfig] = None,
                         **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self._pick(config).atransform(input, config, **kwargs):
            yield chunk

    def get_input_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self._pick(config).get_input_jsonschema(config)

    def get_output_jsonschema(self, config: Optional[RunnableConfig] = None) -> dict[str, Any]:
        return self._pick(config).get_output_jsonschema(config)


class RunnableConfigurableFields(_Delegating):
    """``default`` with some attributes replaced per call; made by
    :meth:`Runnable.configurable_fields`. The runnable is copied (shallow) for a call that
    sets a field, so concurrent calls with different values do not interfere."""

    def __init__(self, default: Runnable, fields: Mapping[str, ConfigurableField]) -> None:
        for attribute, field in fields.items():
            if not isinstance(field, ConfigurableField):
                raise ValidationError(f"configurable_fields({attribute}=...) needs a ConfigurableField, got {field!r:.60}")
            if not hasattr(default, attribute):
                raise ValidationError(f"{default.get_name()} has no attribute {attribute!r} to make configurable")
        if isinstance(default, RunnableConfigurableFields):
            fields, default = {**default.fields, **fields}, default.default
        self.default = default
        self.fields = dict(fields)
        self.name = None

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        specs = []
        for attribute, field in self.fields.items():
            value = getattr(self.default, attribute)
            specs.append(ConfigurableFieldSpec(id=field.id, annotation=field.annotation or type(value),
                                               name=field.name, description=field.description, default=value,
                                               is_shared=field.is_shared))
        return specs

    def _pick(self, config: Optional[Mapping[str, Any]]) -> Runnable:
        values = self._values(config)
        overrides = {attr: values[field.id] for attr, field in self.fields.items() if field.id in values}
        if not overrides:
            return self.default
        chosen = copy.copy(self.default)
        for attribute, value in overrides.items():
            setattr(chosen, attribute, value)
        return chosen

    def __repr__(self) -> str:
        return f"RunnableConfigurableFields({self.default!r}, fields={sorted(f.id for f in self.fields.values())})"


class RunnableConfigurableAlternatives(_Delegating):
    """``default`` or one of ``alternatives``, chosen by ``config["configurable"][which.id]``;
    made by :meth:`Runnable.configurable_alternatives`."""

    def __init__(self, default: Runnable, which: ConfigurableField, alternatives: Mapping[str, Any], *,
                 default_key: str = "default") -> None:
        if not isinstance(which, ConfigurableField):
            raise ValidationError(f"configurable_alternatives needs a ConfigurableField as `which`, got {which!r:.60}")
        if default_key in alternatives:
            raise ValidationError(f"alternative {default_key!r} clashes with default_key; rename one of them")
        from rag.runnables.base import coerce_to_runnable

        self.default = default
        self.which = which
        self.alternatives = {key: coerce_to_runnable(value) for key, value in alternatives.items()}
        self.default_key = default_key
        self.name = None

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        return [ConfigurableFieldSpec(id=self.which.id, annotation=str, name=self.which.name,
                                      description=self.which.description, default=self.default_key)]

    def _pick(self, config: Optional[Mapping[str, Any]]) -> Runnable:
        key = self._values(config).get(self.which.id, self.default_key)
        if key == self.default_key:
            return self.default
        if key not in self.alternatives:
            raise ValidationError(f"unknown alternative {key!r} for {self.which.id!r}; expected one of "
                                  f"{[self.default_key, *self.alternatives]}")
        return self.alternatives[key]
