"""Keyword injection into nodes and conditional-edge functions (LangGraph's rules).

A function run by the graph receives, besides the state, each of these parameters it
declares (by name; a positional-or-keyword or keyword-only parameter):

- ``config``: the run's config (the node's own, with ``metadata.langgraph_node`` ...);
- ``runtime``: the :class:`~rag.graph.runtime.Runtime` (any annotation);
- ``store``: the compiled graph's store, when unannotated or annotated ``BaseStore``
  (``Optional[BaseStore]``: None when the graph has none);
- ``writer``: the ``stream_mode="custom"`` writer, when unannotated or annotated
  ``StreamWriter`` (a no-op when "custom" is not streamed);
- ``previous``: the functional API's previous return value (None in a StateGraph);
- ``error``: annotated ``NodeError``, the failure an error handler handles (None in other
  nodes; see :mod:`rag.graph._error_handlers`).

A parameter with another annotation (``store: dict``) is left alone, as in LangGraph, so a
function keeps its own meaning for those names. The runtime travels in the config under
``configurable["__pregel_runtime"]`` (LangGraph's key), so a subgraph run inside a node
inherits the parent's context and store.
"""

from __future__ import annotations

import inspect
import time
import weakref
from typing import Any, Callable, Optional

from rag.errors import InvalidTypeError
from rag.graph.errors import NodeError
from rag.graph.runtime import DEFAULT_RUNTIME, ExecutionInfo, RunControl, Runtime, _no_op_stream_writer
from rag.graph.types import CURRENT_TASK, StreamWriter

__all__ = ["RUNTIME_KEY", "NODE_ERROR_KEY", "injected_params", "with_injection", "call_injected", "runtime_of", "coerce_context",
           "run_runtime", "with_task_runtime", "count_attempt"]

#: Where the run's Runtime is kept in ``config["configurable"]`` (LangGraph's CONFIG_KEY_RUNTIME).
RUNTIME_KEY = "__pregel_runtime"

_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_EMPTY = inspect.Parameter.empty
_NAMES = ("config", "runtime", "store", "writer", "previous", "error")
#: Where an error handler's NodeError is kept in ``config["configurable"]`` (LangGraph's key).
NODE_ERROR_KEY = "__pregel_node_error"

# inspect.signature costs ~15 µs: remembered per function, weakly (functions made on the fly die).
_SEEN: "weakref.WeakKeyDictionary[Any, tuple[str, ...]]" = weakref.WeakKeyDictionary()


def _is_store_annotation(annotation: Any) -> bool:
    """``BaseStore`` / ``Optional[BaseStore]`` (a class or the strings of them), matched by
    name so this module needs no store implementation."""
    if annotation is _EMPTY:
        return True
    if isinstance(annotation, str):
        return annotation.replace(" ", "") in ("BaseStore", "Optional[BaseStore]", "BaseStore|None")
    if getattr(annotation, "__name__", None) == "BaseStore":
        return True
    arguments = [a for a in getattr(annotation, "__args__", ()) or () if a is not type(None)]
    return len(arguments) == 1 and getattr(arguments[0], "__name__", None) == "BaseStore"


def _accepts(parameter: inspect.Parameter) -> bool:
    annotation = parameter.annotation
    if parameter.name == "store":
        return _is_store_annotation(annotation)
    if parameter.name == "writer":
        return annotation in (_EMPTY, StreamWriter, "StreamWriter")
    if parameter.name == "error":  # a plain ``error`` parameter is the function's own business
        return annotation is NodeError or annotation == "NodeError"
    return True  # config, runtime, previous: any annotation (as LangGraph's)


def injected_params(func: Callable[..., Any]) -> tuple[str, ...]:
    """The names among ``config``, ``runtime``, ``store``, ``writer``, ``previous``, ``error`` that
    ``func`` declares in a form the graph fills in (see the module docstring)."""
    try:
        return _SEEN[func]
    except (KeyError, TypeError):
        pass
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):  # builtins without a signature
        found: tuple[str, ...] = ()
    else:
        found = tuple(name for name in _NAMES if name in parameters
                      and parameters[name].kind in _KINDS and _accepts(parameters[name]))
    try:
        _SEEN[func] = found
    except TypeError:
        pass
    return found


def runtime_of(config: Optional[dict[str, Any]]) -> Runtime[Any]:
    """The Runtime a function called with ``config`` sees: the config's, else the running
    task's, else an empty one."""
    runtime = ((config or {}).get("configurable") or {}).get(RUNTIME_KEY)
    if runtime is None:
        scope = CURRENT_TASK.get()
        runtime = getattr(scope, "runtime", None)
    return runtime if runtime is not None else DEFAULT_RUNTIME


def _arguments(names: tuple[str, ...], config: Optional[dict[str, Any]]) -> dict[str, Any]:
    runtime = runtime_of(config)
    values = {"config": config or {}, "runtime": runtime, "store": runtime.store,
              "writer": runtime.stream_writer, "previous": runtime.previous}
    if "error" in names:
        values["error"] = ((config or {}).get("configurable") or {}).get(NODE_ERROR_KEY)
    return {name: values[name] for name in names}


def call_injected(func: Callable[..., Any], state: Any, config: Optional[dict[str, Any]]) -> Any:
    """``func(state, **what it declares)`` (the result may be awaitable: an async ``func``)."""
    names = injected_params(func)
    return func(state, **_arguments(names, config)) if names else func(state)


def with_injection(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` itself when it declares nothing beyond ``config`` (RunnableLambda passes
    that); otherwise a ``wrapper(state, config)`` of the same kind (sync or async) that
    fills in what ``func`` declares."""
    names = injected_params(func)
    if not set(names) - {"config"}:
        return func
    if inspect.iscoroutinefunction(func):
        async def wrapper(state: Any, config: Any = None) -> Any:
            return await func(state, **_arguments(names, config))
    else:
        def wrapper(state: Any, config: Any = None) -> Any:  # type: ignore[misc]
            return func(state, **_arguments(names, config))
    # Not functools.wraps: its __wrapped__ would make inspect.signature report func's own
    # parameters, and RunnableLambda would then not pass ``config`` to the wrapper.
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(wrapper, attribute, getattr(func, attribute))
        except (AttributeError, TypeError):
            pass
    wrapper.__injects__ = names  # type: ignore[attr-defined]
    return wrapper


def coerce_context(context_schema: Optional[type], context: Any) -> Any:
    """``context`` as the run's context: a dict becomes an instance of a dataclass or
    pydantic ``context_schema`` (as LangGraph's); anything else is kept as given."""
    if context is None or context_schema is None or not isinstance(context, dict):
        return context
    import dataclasses

    is_model = hasattr(context_schema, "model_fields") and isinstance(context_schema, type)
    if dataclasses.is_dataclass(context_schema) or is_model:
        try:
            return context_schema(**context)
        except TypeError as exc:
            raise TypeError(f"context {context!r:.120} does not fit context_schema "
                            f"{context_schema.__name__}: {exc}") from exc
    return context


def run_runtime(config: Optional[dict[str, Any]], *, context: Any, context_schema: Optional[type], store: Any,
                writer: Optional[Callable[[Any], None]], control: Optional[RunControl] = None) -> Runtime[Any]:
    """The Runtime of one graph run: its ``context`` (coerced to ``context_schema``), the
    graph's ``store``, the run's "custom" ``writer`` and ``control``, over the runtime of a
    parent run found in ``config`` (a subgraph inside a node inherits what it does not set;
    a run without a parent and without ``control`` gets a fresh :class:`RunControl`)."""
    if control is not None and not isinstance(control, RunControl):
        raise InvalidTypeError(f"control must be a rag.graph.runtime.RunControl, got {type(control).__name__}")
    parent = ((config or {}).get("configurable") or {}).get(RUNTIME_KEY)
    own = Runtime(context=coerce_context(context_schema, context), store=store,
                  stream_writer=writer or _no_op_stream_writer,
                  control=control or (parent.control if parent is not None else None) or RunControl())
    return parent.merge(own) if parent is not None else own



def with_task_runtime(config: dict[str, Any], *, task_id: str, checkpoint_id: str, thread_id: Optional[str],
                      run_id: Any = None) -> None:
    """Give the task whose ``config`` this is its own Runtime: the run's, with the task's
    :class:`~rag.graph.runtime.ExecutionInfo` (changes ``config["configurable"]`` in place,
    a fresh dict per task)."""
    configurable = dict(config.get("configurable") or {})
    runtime = configurable.get(RUNTIME_KEY) or DEFAULT_RUNTIME
    info = ExecutionInfo(checkpoint_id=checkpoint_id, checkpoint_ns=configurable.get("checkpoint_ns") or "",
                         task_id=task_id, thread_id=thread_id, run_id=_text_or_none(run_id))
    configurable[RUNTIME_KEY] = runtime.override(execution_info=info)
    config["configurable"] = configurable


def count_attempt(config: dict[str, Any], scope: Any) -> None:
    """Before an attempt of a node run under a retry policy: the first records
    ``node_first_attempt_time`` (Unix seconds), each later one adds 1 to ``node_attempt``, in
    the task's Runtime (``config`` changed in place) and in its scope (for get_runtime())."""
    configurable = dict(config.get("configurable") or {})
    runtime = configurable.get(RUNTIME_KEY)
    if runtime is None or runtime.execution_info is None:
        return
    info = runtime.execution_info
    if info.node_first_attempt_time is None:
        info = info.patch(node_first_attempt_time=time.time())
    else:
        info = info.patch(node_attempt=info.node_attempt + 1)
    configurable[RUNTIME_KEY] = runtime = runtime.override(execution_info=info)
    config["configurable"] = configurable
    if scope is not None:
        scope.runtime = runtime


def _text_or_none(value: Any) -> Optional[str]:
    return None if value is None else str(value)
