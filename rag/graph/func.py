"""The functional API (LangGraph 1.2's ``langgraph.func``): ``@entrypoint`` and ``@task``.

A workflow is a plain function; the steps worth keeping are ``@task`` functions. Calling a
task inside an entrypoint (or a graph node, or another task) starts it and returns a
future: ``.result()`` waits for it in sync code, ``await`` in async code; tasks started
before waiting run concurrently. With a checkpointer, a run that pauses at
:func:`~rag.graph.types.interrupt` keeps the results of the tasks that finished; resumed
with ``Command(resume=...)``, the function runs again from its top and those calls return
their kept results instead of running (they are matched by the order of the calls, so
keep the order of task calls the same on every run). ``previous`` receives the thread's
last return value (or what ``entrypoint.final(value=..., save=...)`` saved).

>>> from rag.graph.checkpoint.memory import InMemorySaver
>>> from rag.graph.types import Command, interrupt
>>> @task
... def draft(topic: str) -> str:
...     return f"an essay about {topic}"
>>> @entrypoint(checkpointer=InMemorySaver())
... def review(topic: str) -> dict:
...     essay = draft(topic).result()
...     verdict = interrupt({"essay": essay})  # pauses here; draft is not run again on resume
...     return {"essay": essay, "verdict": verdict}
>>> config = {"configurable": {"thread_id": "1"}}
>>> review.invoke("cats", config)["__interrupt__"][0].value
{'essay': 'an essay about cats'}
>>> review.invoke(Command(resume="approved"), config)
{'essay': 'an essay about cats', 'verdict': 'approved'}

Differences from LangGraph: checkpoints are JSON (task inputs are not saved, their return
values are: a value JSON cannot hold, such as a pydantic model, fails when a paused run is
saved); a ``timeout`` applies to async tasks only, as in
LangGraph, and is a number of seconds or a ``timedelta``. When several tasks started together
pause, the run reports every pending interrupt (LangGraph reports the one the entrypoint was
waiting on and the others one resume later); answer them by id,
``Command(resume={interrupt_id: answer, ...})``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import typing
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Generic, Optional, Sequence, TypeVar, Union

from rag.errors import ValidationError
from rag.graph._calls import current_caller, is_async_callable
from rag.graph._func_graph import PREVIOUS, EntrypointGraph, EntrypointNode, Final
from rag.graph.constants import END, START
from rag.graph.cache.base import BaseCache
from rag.graph.cache.keys import task_namespace
from rag.graph.retry import RetryPolicy
from rag.graph.types import CachePolicy
from rag.runnables import Runnable

__all__ = ["task", "entrypoint"]

R = TypeVar("R")
S = TypeVar("S")
_INJECTED = ("config", "runtime", "store", "writer")


def _policies(retry_policy: Union[RetryPolicy, Sequence[RetryPolicy], None], what: str) -> tuple[RetryPolicy, ...]:
    policies = () if retry_policy is None else (
        (retry_policy,) if isinstance(retry_policy, RetryPolicy) else tuple(retry_policy))
    if not all(isinstance(policy, RetryPolicy) for policy in policies):
        raise ValidationError(f"{what}: retry_policy must be a RetryPolicy or a list of them, got {retry_policy!r:.80}")
    return policies


def _seconds(timeout: Union[float, timedelta, None], name: str) -> Optional[float]:
    if timeout is None:
        return None
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ValidationError(f"task {name!r}: timeout must be a number of seconds > 0 or a timedelta, got {timeout!r}")
    return float(seconds)


class _TaskRun(Runnable[dict, Any]):
    """A task function as a traced run (named after the task, its arguments as inputs),
    with ``config``/``runtime``/``store``/``writer`` filled in when it declares them and
    the caller did not pass them."""

    def __init__(self, func: Callable[..., Any], name: str, timeout: Optional[float]) -> None:
        self.name = name
        self._func = func
        self._timeout = timeout
        try:
            self._signature: Optional[inspect.Signature] = inspect.signature(func)
        except (TypeError, ValueError):  # builtins without a signature
            self._signature = None
        parameters = list(self._signature.parameters) if self._signature else []
        self._injected = {name: parameters.index(name) for name in _INJECTED if name in parameters}

    @property
    def target(self) -> Callable[..., Any]:
        """The task function itself (what its cache namespace is named after)."""
        return self._func

    def func(self, *args: Any, **kwargs: Any) -> Any:
        if self._timeout is not None:
            return asyncio.wait_for(self._func(*args, **kwargs), self._timeout)
        return self._func(*args, **kwargs)

    def trace_inputs(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments by parameter name (LangGraph's trace inputs)."""
        if self._signature is None:
            return {"args": list(args), **kwargs}
        try:
            bound = self._signature.bind_partial(*args, **kwargs)
        except TypeError:  # the call itself will fail with Python's own message
            return {"args": list(args), **kwargs}
        arguments = dict(bound.arguments)
        arguments.pop("self", None)
        return arguments

    def inject(self, kwargs: dict[str, Any], config: Any, positional: int) -> dict[str, Any]:
        missing = [name for name, index in self._injected.items() if name not in kwargs and index >= positional]
        if not missing:
            return kwargs
        from rag.graph._inject import runtime_of

        runtime = runtime_of(config)
        values = {"config": config, "runtime": runtime, "store": runtime.store, "writer": runtime.stream_writer}
        return {**kwargs, **{name: values[name] for name in missing}}

    def invoke(self, input: dict[str, Any], config: Any = None, **kwargs: Any) -> Any:
        return self._func(**input)


class _TaskFunction:
    """A ``@task``: calling it inside a running entrypoint, node or task returns a future."""

    def __init__(self, func: Callable[..., Any], *, name: Optional[str], retry_policy: Any, timeout: Any,
                 cache_policy: Any = None) -> None:
        if not callable(func):
            raise ValidationError(f"@task needs a function, got {type(func).__name__} {func!r:.80}")
        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            raise NotImplementedError(f"task {getattr(func, '__name__', func)!r}: generators are not supported "
                                      "in the functional API; return a value (or a list) instead")
        try:  # first: copying the function's __dict__ must not overwrite the attributes set below
            functools.update_wrapper(self, func)
        except AttributeError:  # a partial or callable object without __name__ & co.
            pass
        self.name = name or getattr(func, "__name__", None) or getattr(getattr(func, "func", None), "__name__", None) \
            or type(func).__name__
        if not isinstance(self.name, str) or not self.name:
            raise ValidationError(f"a task needs a non-empty str name, got {self.name!r}")
        self.func = func
        self.is_async = is_async_callable(func)
        self.retry_policy = _policies(retry_policy, f"task {self.name!r}")
        if cache_policy is not None and not isinstance(cache_policy, CachePolicy):
            raise ValidationError(f"task {self.name!r}: cache_policy must be a CachePolicy, got {cache_policy!r:.80}")
        self.cache_policy = cache_policy
        self.timeout = _seconds(timeout, self.name)
        if self.timeout is not None and not self.is_async:
            raise ValidationError(f"task {self.name!r}: a timeout needs an async task (a sync function cannot be "
                                  "stopped safely in its thread)")
        self._run = _TaskRun(func, self.name, self.timeout)
        self.__name__ = self.name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        caller = current_caller(self.name)
        return caller.call(self._run, self.name, args, kwargs, self.retry_policy, self.is_async, self.cache_policy)

    def clear_cache(self, cache: Any) -> None:
        """Forget this task's cached results in ``cache`` (the entrypoint's ``cache``)."""
        if self.cache_policy is not None:
            cache.clear([task_namespace(self.func)])

    async def aclear_cache(self, cache: Any) -> None:
        """Async :meth:`clear_cache`."""
        if self.cache_policy is not None:
            await cache.aclear([task_namespace(self.func)])

    def __repr__(self) -> str:
        return f"<task {self.name!r}>"


def task(__func_or_none__: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
         retry_policy: Union[RetryPolicy, Sequence[RetryPolicy], None] = None, cache_policy: Any = None,
         timeout: Union[float, timedelta, None] = None) -> Any:
    """Make ``func`` a task: ``@task``, ``@task()``, ``@task(name=..., retry_policy=...)``
    or ``task(func, name=...)``.

    ``name``: the name in the "updates" stream and in traces (default: the function's);
    ``retry_policy``: a :class:`~rag.graph.retry.RetryPolicy` (or a list: the first that
    retries an error applies) to run the task again when it raises; ``timeout``: seconds
    (or a ``timedelta``) per attempt of an async task, then ``asyncio.TimeoutError``;
    ``cache_policy``: a :class:`~rag.graph.types.CachePolicy`: a call whose arguments give a
    cached key (``key_func(*args, **kwargs)``) returns the result cached by an earlier call,
    in any run of an entrypoint with that ``cache``, without running (``clear_cache(cache)``
    forgets them).
    Sync and async functions both work; an async task can only be called from async code.

    >>> @task(name="twice")
    ... def double(x: int) -> int:
    ...     return 2 * x
    >>> double.name
    'twice'
    """

    def decorate(func: Callable[..., Any]) -> _TaskFunction:
        return _TaskFunction(func, name=name, retry_policy=retry_policy, timeout=timeout, cache_policy=cache_policy)

    return decorate(__func_or_none__) if __func_or_none__ is not None else decorate


class entrypoint:
    """Make a function a workflow: ``@entrypoint(checkpointer=..., store=..., context_schema=...)``.

    The function takes one input (any type; a dict for several values) and may declare
    ``previous`` (the thread's last saved value, None at first), ``config``, ``runtime``,
    ``store`` and ``writer`` (keyword parameters, filled in by the graph). The decorated
    name is a compiled graph: ``invoke``/``stream``/``ainvoke``/``astream``,
    ``get_state``/``update_state`` and the rest, as a StateGraph's. ``checkpointer``: a
    saver (e.g. ``InMemorySaver()``), needed for ``interrupt()``, ``previous`` and resuming;
    ``store``: the long-term store given to ``runtime.store``/``store``;
    ``context_schema``: the type of ``invoke(..., context=...)``; ``retry_policy``: as a
    task's, for the whole function; ``cache``: where tasks with a ``cache_policy`` keep their
    results (``InMemoryCache()``, ``SqliteCache(path=...)``). ``cache_policy`` (caching the
    whole entrypoint) is not offered.

    >>> @entrypoint()
    ... def add_one(numbers: list[int]) -> list[int]:
    ...     return [n + 1 for n in numbers]
    >>> add_one.invoke([1, 2])
    [2, 3]
    """

    def __init__(self, checkpointer: Any = None, store: Any = None, cache: Any = None,
                 context_schema: Optional[type] = None, cache_policy: Any = None,
                 retry_policy: Union[RetryPolicy, Sequence[RetryPolicy], None] = None,
                 timeout: Union[float, timedelta, None] = None) -> None:
        from rag.graph.checkpoint.base import BaseCheckpointSaver
        from rag.graph.errors import InvalidCheckpointerError

        if checkpointer is not None and not isinstance(checkpointer, BaseCheckpointSaver):
            raise InvalidCheckpointerError(
                f"Invalid checkpointer provided: checkpointer must be a saver such as InMemorySaver() or "
                f"SqliteSaver(...), got {type(checkpointer).__name__}")
        if cache is not None and not isinstance(cache, BaseCache):
            raise ValidationError(f"entrypoint(cache=...) needs a cache such as InMemoryCache() or SqliteCache(...), "
                                  f"got {type(cache).__name__}")
        if cache_policy is not None:
            raise ValidationError("entrypoint(cache_policy=...) is not supported: give the tasks it calls a "
                                  "cache_policy (and the entrypoint cache=...) instead")
        if timeout is not None:
            raise ValidationError("entrypoint(timeout=...) is not supported; give the async tasks it calls a timeout")
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.context_schema = context_schema
        self.retry_policy = _policies(retry_policy, "entrypoint")

    @dataclass
    class final(Final, Generic[R, S]):
        """Return ``value`` to the caller and save ``save`` for the thread's next run (its
        ``previous``): ``return entrypoint.final(value=answer, save=history)``. Annotate
        the function ``-> entrypoint.final[ReturnType, SavedType]``."""

        value: R
        save: S

    def __call__(self, func: Callable[..., Any]) -> EntrypointGraph:
        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            raise NotImplementedError("Generators are not supported in the Functional API: return a value "
                                      f"from {getattr(func, '__name__', func)!r} instead of yielding")
        if not callable(func):
            raise ValidationError(f"@entrypoint needs a function, got {type(func).__name__} {func!r:.80}")
        name = getattr(func, "__name__", None)
        if not isinstance(name, str) or not name or name in (START, END):
            raise ValidationError(f"@entrypoint needs a named function, got {func!r:.80}")
        parameters = list(inspect.signature(func).parameters.values())
        if not parameters:
            raise ValidationError(f"entrypoint {name!r} must take one parameter, its input (a dict for several)")
        input_type, output_type = _types(func, parameters[0].name)
        from rag.graph.state_graph import StateGraph

        state = typing.TypedDict("EntrypointState", {START: Any, END: Any, PREVIOUS: Any})  # type: ignore[operator]
        builder = StateGraph(state, context_schema=self.context_schema)
        builder.add_node(name, EntrypointNode(func, name), retry_policy=list(self.retry_policy) or None)
        builder.add_edge(START, name).add_edge(name, END)
        builder.direct_input = True  # the input triggers the node: no START step (rag.graph._loop)
        graph = EntrypointGraph(builder, self.checkpointer, node=name, store=self.store, input_type=input_type,
                                output_type=output_type)
        graph.cache = self.cache
        return graph


def _types(func: Callable[..., Any], first: str) -> tuple[Any, Any]:
    """The input type (the first parameter's) and the returned type (``value`` of an
    ``entrypoint.final[value, save]`` annotation), Any where not annotated."""
    try:
        hints = typing.get_type_hints(func)
    except (NameError, AttributeError):  # unresolvable forward references: no schema, not an error
        hints = {}  # (a TypeError, such as entrypoint.final[int] with one argument, is the caller's to see)
    returned = hints.get("return", Any)
    if returned is entrypoint.final:
        returned = Any
    elif typing.get_origin(returned) is entrypoint.final:
        arguments = typing.get_args(returned)
        if len(arguments) != 2:
            raise TypeError("annotate both the returned and the saved value: -> entrypoint.final[int, str] "
                            f"returns an int and saves a str; got {returned!r}")
        returned = arguments[0]
    return hints.get(first, Any), returned
