"""RunnableWithMessageHistory: a runnable that remembers a conversation per session.

Before each call it loads the session's history (from ``get_session_history``, chosen by
``config["configurable"]["session_id"]`` or the keys of ``history_factory_config``) and
hands it to the runnable; after the call it stores the new input and output messages.

Where it differs from LangChain's (langchain-core 1.7), on purpose:

* A streamed answer is stored as one complete :class:`~rag.messages.AIMessage` (the chunks
  added up), never an ``AIMessageChunk`` (LangChain stores the chunk, and the next turn
  sends it back as a chunk).
* Output it cannot turn into messages (a dict without the key, a number...) raises
  :class:`~rag.errors.ValidationError` naming what it got; LangChain's listener logs the
  error and the turn is lost silently.
* A session id that is not a str (``session_id=1``) is refused; LangChain passes any value
  on, so whether ``1`` and ``"1"`` name one history depends on the store.

As LangChain's (checked against it in the tests): a call that fails, or a stream not read
to its end (the consumer stopped, the client went away), stores nothing, neither the
question nor a partial answer, so the history only ever holds whole turns; the history is
written once, after the output is complete.

>>> from rag.memory import InMemoryChatMessageHistory
>>> from rag.models import FakeListChatModel
>>> histories = {}
>>> chat = RunnableWithMessageHistory(FakeListChatModel(responses=["4", "5"]),
...     lambda session_id: histories.setdefault(session_id, InMemoryChatMessageHistory()))
>>> chat.invoke("2 + 2?", {"configurable": {"session_id": "s1"}}).content
'4'
>>> len(histories["s1"].messages)
2
"""

from __future__ import annotations

import inspect
from typing import Any, AsyncIterator, Callable, Iterator, Optional, Sequence

from rag.errors import InvalidTypeError, ValidationError
from rag.memory.base import BaseChatMessageHistory, check_session_id
from rag.messages import AIMessage, BaseMessage, HumanMessage, message_chunk_to_message
from rag.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig, coerce_to_runnable
from rag.runnables._streams import NOTHING, add_chunks

__all__ = ["RunnableWithMessageHistory"]

_SESSION_ID = ConfigurableFieldSpec(id="session_id", annotation=str, name="Session ID",
                                    description="Unique identifier for a session.", default="", is_shared=True)


def _parameter_names(function: Callable[..., Any]) -> list[str]:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


class RunnableWithMessageHistory(Runnable[Any, Any]):
    """``runnable`` with the history of a session added to its input.

    ``runnable`` takes a list of messages, or a dict; it returns a str, a message, a list of
    messages or a dict holding one of them. ``get_session_history(session_id)`` returns the
    session's :class:`~rag.memory.BaseChatMessageHistory` (with ``history_factory_config``,
    a list of :class:`~rag.runnables.ConfigurableFieldSpec`, it is called with those ids as
    keyword arguments instead).

    ``input_messages_key``: the key of a dict input holding the new message(s) (a str
    becomes a HumanMessage); ``history_messages_key``: the key the history is put under
    (without it the history is put in front of the input messages); ``output_messages_key``:
    the key of a dict output holding the answer. Without keys, a dict's only key, else
    ``"input"``/``"output"``, as in LangChain.
    """

    def __init__(self, runnable: Any, get_session_history: Callable[..., BaseChatMessageHistory], *,
                 input_messages_key: Optional[str] = None, output_messages_key: Optional[str] = None,
                 history_messages_key: Optional[str] = None,
                 history_factory_config: Optional[Sequence[ConfigurableFieldSpec]] = None) -> None:
        self.runnable = coerce_to_runnable(runnable)
        if not callable(get_session_history):
            raise ValidationError(f"get_session_history must be a function returning a chat history, got "
                                  f"{type(get_session_history).__name__}")
        for what, key in (("input_messages_key", input_messages_key), ("output_messages_key", output_messages_key),
                          ("history_messages_key", history_messages_key)):
            if key is not None and (not isinstance(key, str) or not key):
                raise ValidationError(f"{what} must be a non-empty str or None, got {key!r}")
        specs = list(history_factory_config or [_SESSION_ID])
        for spec in specs:
            if not isinstance(spec, ConfigurableFieldSpec):
                raise ValidationError(f"history_factory_config must list ConfigurableFieldSpec, got {spec!r:.60}")
        if len(specs) > 1:
            names = _parameter_names(get_session_history)
            if set(names) != {spec.id for spec in specs}:
                raise ValidationError(f"Expected keys {sorted(s.id for s in specs)} do not match parameter names "
                                      f"{sorted(names)} of get_session_history.")
        self.get_session_history = get_session_history
        self.input_messages_key = input_messages_key
        self.output_messages_key = output_messages_key
        self.history_messages_key = history_messages_key
        self.history_factory_config = specs
        self.name = None

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        return list(self.history_factory_config)

    # ------------------------------------------------------------------ the session

    def _history(self, config: Optional[RunnableConfig]) -> BaseChatMessageHistory:
        configurable = dict((config or {}).get("configurable") or {})
        expected = [spec.id for spec in self.history_factory_config]
        missing = [key for key in expected if key not in configurable]
        if missing:
            example = {"configurable": dict.fromkeys(missing, "[your-value-here]")}
            raise ValidationError(f"Missing keys {sorted(missing)} in config['configurable']; expected keys are "
                                  f"{sorted(expected)}. Pass them with the call, e.g. chain.invoke(..., {example})")
        for spec in self.history_factory_config:
            value = configurable[spec.id]
            if spec.annotation is str:
                check_session_id(value, what=f"config['configurable'][{spec.id!r}]")
            elif isinstance(spec.annotation, type) and not isinstance(value, spec.annotation):
                raise ValidationError(f"config['configurable'][{spec.id!r}] must be a {spec.annotation.__name__}, "
                                      f"got {type(value).__name__} {value!r:.60}")
        if len(expected) == 1:
            history = self.get_session_history(configurable[expected[0]])
        else:
            history = self.get_session_history(**{key: configurable[key] for key in expected})
        if not (hasattr(history, "add_messages") and hasattr(history, "messages")):
            raise InvalidTypeError(f"get_session_history returned {type(history).__name__}, not a chat message history")
        return history

    def _input_messages(self, value: Any) -> list[BaseMessage]:
        if isinstance(value, dict):
            key = self.input_messages_key or (next(iter(value)) if len(value) == 1 else "input")
            if key not in value:
                raise ValidationError(f"the input has no key {key!r} (keys: {sorted(value)}); set input_messages_key")
            value = value[key]
        if isinstance(value, str):
            return [HumanMessage(value)]
        if isinstance(value, BaseMessage):
            return [value]
        if isinstance(value, (list, tuple)):
            if value and isinstance(value[0], list):  # a batch of one list of messages (chat models)
                if len(value) != 1:
                    raise ValidationError(f"expected a single list of messages, got {len(value)} lists")
                value = value[0]
            if all(isinstance(item, BaseMessage) for item in value):
                return list(value)
        raise ValidationError(f"expected a str, a message or a list of messages as input, got "
                              f"{type(value).__name__} {value!r:.80}")

    def _output_messages(self, value: Any) -> list[BaseMessage]:
        if isinstance(value, dict):
            key = self.output_messages_key or (next(iter(value)) if len(value) == 1 else "output")
            if key not in value:
                raise ValidationError(f"cannot store the answer: the output has no key {key!r} (keys: {sorted(value)}); "
                                      "set output_messages_key to the key holding the answer")
            value = value[key]
        if isinstance(value, str):
            return [AIMessage(value)]
        if isinstance(value, BaseMessage):
            return [message_chunk_to_message(value)]
        if isinstance(value, (list, tuple)) and all(isinstance(item, BaseMessage) for item in value):
            return [message_chunk_to_message(item) for item in value]
        raise ValidationError(f"cannot store the answer: expected a str, a message or a list of messages, got "
                              f"{type(value).__name__} {value!r:.80}")

    def _prepare(self, input: Any, history: list[BaseMessage]) -> tuple[Any, list[BaseMessage]]:
        """The runnable's input (with the history) and the new input messages to store."""
        new = self._input_messages(input)
        if self.history_messages_key:
            return {**input, self.history_messages_key: history}, new
        if self.input_messages_key:
            return {**input, self.input_messages_key: [*history, *new]}, new
        return [*history, *new], new

    # ------------------------------------------------------------------ entry points

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        def body(value: Any, child: RunnableConfig) -> Any:
            history = self._history(child)
            prepared, new = self._prepare(value, list(history.messages))
            output = self.runnable.invoke(prepared, child, **kwargs)
            history.add_messages([*new, *self._output_messages(output)])
            return output

        return self._call_traced(body, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        async def body(value: Any, child: RunnableConfig) -> Any:
            history = self._history(child)
            prepared, new = self._prepare(value, list(await history.aget_messages()))
            output = await self.runnable.ainvoke(prepared, child, **kwargs)
            await history.aadd_messages([*new, *self._output_messages(output)])
            return output

        return await self._acall_traced(body, input, config)

    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[Any]:
        def body(value: Any, child: RunnableConfig) -> Iterator[Any]:
            history = self._history(child)
            prepared, new = self._prepare(value, list(history.messages))
            total = NOTHING
            for chunk in self.runnable.stream(prepared, child, **kwargs):
                total = add_chunks(total, chunk)
                yield chunk
            # Reached only when the stream ran to its end: a failure or an early stop
            # (GeneratorExit at the yield) leaves the history as it was.
            if total is NOTHING:
                raise ValidationError("cannot store the answer: the runnable streamed nothing")
            history.add_messages([*new, *self._output_messages(total)])

        return self._stream_traced(body, input, config)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> AsyncIterator[Any]:
        async def body(value: Any, child: RunnableConfig) -> AsyncIterator[Any]:
            history = self._history(child)
            prepared, new = self._prepare(value, list(await history.aget_messages()))
            total = NOTHING
            async for chunk in self.runnable.astream(prepared, child, **kwargs):
                total = add_chunks(total, chunk)
                yield chunk
            if total is NOTHING:
                raise ValidationError("cannot store the answer: the runnable streamed nothing")
            await history.aadd_messages([*new, *self._output_messages(total)])

        async for chunk in self._astream_traced(body, input, config):
            yield chunk

    def get_name(self) -> str:
        return self.name or "RunnableWithMessageHistory"

    def __repr__(self) -> str:
        return f"RunnableWithMessageHistory({self.runnable!r})"
