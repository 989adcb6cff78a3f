"""Callbacks and local tracing: handlers that see every step of a chain.

Pass handlers in ``config={"callbacks": [...]}``; they reach every nested run (also
across threads, batches and async tasks). :class:`ConsoleCallbackHandler` prints runs as
they happen; :class:`FileTracer` appends each invocation's run tree to a JSON-lines
file that :func:`print_trace` shows as an indented tree.

>>> import io
>>> from rag.runnables import RunnableLambda
>>> out = io.StringIO()
>>> RunnableLambda(lambda x: x * 2, name="double").invoke(2, {"callbacks": [ConsoleCallbackHandler(out)]})
4
"""

from rag.callbacks.base import BaseCallbackHandler
from rag.callbacks.console import ConsoleCallbackHandler
from rag.callbacks.file import FileTracer
from rag.callbacks.manager import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from rag.callbacks.tracer import BaseTracer, TraceRun
from rag.callbacks.view import format_trace, print_trace, read_trace

__all__ = [
    "BaseCallbackHandler",
    "CallbackManagerForRetrieverRun",
    "AsyncCallbackManagerForRetrieverRun",
    "BaseTracer",
    "TraceRun",
    "ConsoleCallbackHandler",
    "FileTracer",
    "format_trace",
    "print_trace",
    "read_trace",
]
