"""``@traceable``: a plain Python function traced as a run, as LangSmith's decorator does.

The run nests under whatever run is active (a chain step, a graph node, another
``@traceable`` function) and goes to that run's handlers; at the top, to the handlers of
:func:`tracing_context` and to the trace store when ``$RAG_TRACING`` is on. Sync and
async functions, generators and async generators are supported; a generator's run ends
when it is exhausted, with what it yielded as output (strings joined).
"""

from __future__ import annotations

import functools
import inspect
from contextlib import contextmanager
from typing import Any, AsyncIterator, Callable, Generator, Iterator, Optional, TypeVar, overload

from rag import _callbacks

__all__ = ["traceable", "tracing_context", "RUN_TYPES"]

#: LangSmith's run types; a traced function declares one (default ``chain``).
RUN_TYPES = ("chain", "llm", "chat_model", "retriever", "tool", "prompt", "parser", "embedding")

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def tracing_context(*, callbacks: Optional[list[Any]] = None, tags: Optional[list[str]] = None,
                    metadata: Optional[dict[str, Any]] = None) -> Iterator[None]:
    """Within the block, ``@traceable`` functions and runnables called without a config
    report to ``callbacks`` with ``tags`` and ``metadata`` (LangSmith's ``tracing_context``)."""
    config: dict[str, Any] = {}
    if callbacks is not None:
        config["callbacks"] = list(callbacks)
    if tags:
        config["tags"] = list(tags)
    if metadata:
        config["metadata"] = dict(metadata)
    with _callbacks.ambient_config(config):
        yield


def _inputs(signature: Optional[inspect.Signature], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if signature is None:
        return {"args": list(args), **kwargs}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return {"args": list(args), **kwargs}
    bound.apply_defaults()
    values = dict(bound.arguments)
    for name in ("self", "cls"):
        values.pop(name, None)
    return values


def _joined(items: list[Any]) -> Any:
    return "".join(items) if items and all(isinstance(item, str) for item in items) else items


@overload
def traceable(func: F) -> F: ...


@overload
def traceable(*, name: Optional[str] = None, run_type: str = "chain", tags: Optional[list[str]] = None,
              metadata: Optional[dict[str, Any]] = None) -> Callable[[F], F]: ...


def traceable(func: Optional[F] = None, *, name: Optional[str] = None, run_type: str = "chain",
              tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None) -> Any:
    """Trace each call of the decorated function as a run named ``name`` (default the
    function's name) of ``run_type`` (one of :data:`RUN_TYPES`), with ``tags`` and
    ``metadata``; inputs are its arguments by name, the output what it returns.

    >>> from rag.callbacks import BaseTracer
    >>> class Names(BaseTracer):
    ...     def _on_run_end(self, run):
    ...         print(run.name, run.run_type, run.outputs)
    >>> @traceable(run_type="retriever")
    ... def lookup(query):
    ...     return ["a", "b"]
    >>> with tracing_context(callbacks=[Names()]):
    ...     lookup("cats")
    lookup retriever ['a', 'b']
    ['a', 'b']
    """
    if run_type not in RUN_TYPES:
        raise ValueError(f"run_type must be one of {', '.join(RUN_TYPES)}; got {run_type!r}")

    def decorate(function: F) -> F:
        run_name = str(name or getattr(function, "__name__", "traceable"))
        try:
            signature: Optional[inspect.Signature] = inspect.signature(function)
        except (TypeError, ValueError):
            signature = None
        extra: dict[str, Any] = {} if run_type == "chain" else {"run_type": run_type}

        def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[_callbacks.Run, Any]:
            run = _callbacks.start_run(None, "chain", run_name, _inputs(signature, args, kwargs), tags=tags,
                                       metadata=metadata, **extra)
            return run, (run.child_config(_callbacks.current_config()) if run.handlers else None)

        if inspect.isasyncgenfunction(function):
            @functools.wraps(function)
            async def agen_wrapper(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
                run, child = start(args, kwargs)
                items: list[Any] = []
                generator = function(*args, **kwargs)
                sent: Any = None  # what the consumer sends (asend) goes on to the function's generator
                try:
                    while True:
                        with _callbacks.ambient_config(child):
                            try:
                                item = await generator.asend(sent)
                            except StopAsyncIteration:
                                break
                        items.append(item)
                        sent = yield item
                except BaseException as exc:
                    run.error(exc)
                    raise
                run.end(_joined(items))
            return agen_wrapper  # type: ignore[return-value]

        if inspect.isgeneratorfunction(function):
            @functools.wraps(function)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
                run, child = start(args, kwargs)
                items: list[Any] = []
                generator = function(*args, **kwargs)
                sent: Any = None  # what the consumer sends goes on to the function's generator
                try:
                    while True:
                        # Set around each step only: a context variable set across a yield
                        # would leak into the consumer's code.
                        with _callbacks.ambient_config(child):
                            try:
                                item = generator.send(sent)
                            except StopIteration as stop:
                                result = stop.value
                                break
                        items.append(item)
                        sent = yield item
                except BaseException as exc:
                    run.error(exc)
                    raise
                run.end(_joined(items))
                return result
            return gen_wrapper  # type: ignore[return-value]

        if inspect.iscoroutinefunction(function):
            @functools.wraps(function)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                run, child = start(args, kwargs)
                try:
                    with _callbacks.ambient_config(child):
                        output = await function(*args, **kwargs)
                except BaseException as exc:
                    run.error(exc)
                    raise
                run.end(output)
                return output
            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            run, child = start(args, kwargs)
            try:
                with _callbacks.ambient_config(child):
                    output = function(*args, **kwargs)
            except BaseException as exc:
                run.error(exc)
                raise
            run.end(output)
            return output
        return wrapper  # type: ignore[return-value]

    return decorate(func) if func is not None else decorate
