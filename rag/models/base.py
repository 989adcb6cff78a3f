"""BaseChatModel: a chat model is a Runnable from messages to an :class:`AIMessage`.

A model implements :meth:`BaseChatModel._generate`; streaming models also implement
:meth:`BaseChatModel._stream` (and natively async ones ``_agenerate``/``_astream``).
Input coercion, callbacks (start, each token, end, error), ``streaming=True`` and
``bind_tools`` are done here once.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterator, Optional, Sequence, Union

from rag import _callbacks
from rag.errors import ValidationError
from rag.messages import AIMessage, AIMessageChunk, BaseMessage, convert_to_messages, message_chunk_to_message
from rag.models._tools import convert_to_openai_tool, normalize_tool_choice
from rag.runnables import Runnable, RunnableBinding, RunnableConfig

__all__ = ["BaseChatModel", "ChatGeneration", "LLMResult", "LanguageModelInput"]

LanguageModelInput = Union[str, Sequence[Any], Any]  # a string, message-likes or a prompt value


@dataclass
class ChatGeneration:
    """One generated message, as handed to ``on_llm_end`` (LangChain's shape)."""

    message: BaseMessage

    @property
    def text(self) -> str:
        return self.message.text


@dataclass
class LLMResult:
    """What ``on_llm_end`` receives: ``generations[prompt][candidate]`` and ``llm_output``."""

    generations: list[list[ChatGeneration]]
    llm_output: dict[str, Any] = field(default_factory=dict)


def _as_one_chunk(message: AIMessage) -> AIMessageChunk:
    """A whole answer as the single chunk streamed by a model that cannot stream."""
    return AIMessageChunk(message.content, tool_calls=message.tool_calls, id=message.id,
                          invalid_tool_calls=message.invalid_tool_calls, usage_metadata=message.usage_metadata,
                          response_metadata=message.response_metadata)


def to_messages(input: Any) -> list[BaseMessage]:
    """A model's input as messages: a string is one human message; a prompt value gives its
    messages; a list may mix messages, strings, ``(role, content)`` pairs and role dicts."""
    if isinstance(input, str):
        return convert_to_messages([input])
    if isinstance(input, BaseMessage):
        return [input]
    if hasattr(input, "to_messages"):
        return list(input.to_messages())
    if isinstance(input, (list, tuple)):
        return convert_to_messages(input)
    raise ValidationError(
        f"a chat model takes a str, a list of messages or a prompt value, got {type(input).__name__}: {input!r:.60}"
    )


class BaseChatModel(Runnable[LanguageModelInput, AIMessage]):
    """The chat model interface. ``invoke`` returns an :class:`AIMessage`; ``stream`` yields
    :class:`AIMessageChunk` s (one chunk with the whole reply if the model cannot stream);
    ``streaming=True`` makes ``invoke`` stream internally so token callbacks fire.

    Keyword arguments of ``invoke``/``stream`` (``stop``, ``tools``, ``tool_choice``, any
    server parameter) reach ``_generate``/``_stream``; ``bind``/``bind_tools`` fix them.
    """

    streaming: bool = False
    tags: Optional[list[str]] = None
    metadata: Optional[dict[str, Any]] = None

    # -- what a model implements ----------------------------------------------------------
    @abstractmethod
    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        """The reply to ``messages``."""

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        """The reply in chunks; models that can stream override this."""
        raise NotImplementedError

    async def _agenerate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        return await asyncio.to_thread(self._generate, messages, stop, **kwargs)

    async def _astream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None, **kwargs: Any) -> AsyncIterator[AIMessageChunk]:
        # A sync-only streaming model on the async path: pull each chunk in a worker thread.
        iterator = self._stream(messages, stop, **kwargs)
        done = object()
        while (chunk := await asyncio.to_thread(next, iterator, done)) is not done:
            yield chunk  # type: ignore[misc]

    @property
    def _llm_type(self) -> str:
        return type(self).__name__

    def _identifying_params(self) -> dict[str, Any]:
        """Plain settings reported to callbacks as ``invocation_params`` (never secrets)."""
        return {}

    # -- derived behaviour ------------------------------------------------------------------
    def _can_stream(self) -> bool:
        return type(self)._stream is not BaseChatModel._stream

    def _can_astream(self) -> bool:
        return self._can_stream() or type(self)._astream is not BaseChatModel._astream

    def _start(self, config: Optional[RunnableConfig], messages: list[BaseMessage], stop: Any, kwargs: dict) -> dict[str, Any]:
        params = {**self._identifying_params(), "_type": self._llm_type, "stop": stop,
                  **{k: v for k, v in kwargs.items() if k != "tools"}}
        return {"tags": self.tags, "metadata": self.metadata,
                "serialized": {"name": self.get_name(), "kwargs": self._identifying_params()},
                "invocation_params": params}

    @staticmethod
    def _finish(message: AIMessage, run: _callbacks.Run) -> AIMessage:
        if message.id is None:
            message.id = f"run-{run.run_id}"
        return message

    def invoke(self, input: LanguageModelInput, config: Optional[RunnableConfig] = None, *,
               stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        if (self.streaming or _callbacks.wants_model_tokens(config)) and self._can_stream():
            total: Optional[AIMessageChunk] = None
            for chunk in self.stream(input, config, stop=stop, **kwargs):
                total = chunk if total is None else total + chunk
            return message_chunk_to_message(total or AIMessageChunk(""))  # type: ignore[return-value]
        messages = to_messages(input)
        run = _callbacks.start_run(config, "chat_model", self.get_name(), [messages], **self._start(config, messages, stop, kwargs))
        try:
            message = self._generate(messages, stop=stop, **kwargs)
        except Exception as exc:
            run.error(exc)
            raise
        run.end(LLMResult([[ChatGeneration(self._finish(message, run))]]))
        return message

    async def ainvoke(self, input: LanguageModelInput, config: Optional[RunnableConfig] = None, *,
                      stop: Optional[list[str]] = None, **kwargs: Any) -> AIMessage:
        if (self.streaming or _callbacks.wants_model_tokens(config)) and self._can_astream():
            total: Optional[AIMessageChunk] = None
            async for chunk in self.astream(input, config, stop=stop, **kwargs):
                total = chunk if total is None else total + chunk
            return message_chunk_to_message(total or AIMessageChunk(""))  # type: ignore[return-value]
        messages = to_messages(input)
        run = await _callbacks.astart_run(config, "chat_model", self.get_name(), [messages], **self._start(config, messages, stop, kwargs))
        try:
            message = await self._agenerate(messages, stop=stop, **kwargs)
        except Exception as exc:
            await run.aerror(exc)
            raise
        await run.aend(LLMResult([[ChatGeneration(self._finish(message, run))]]))
        return message

    def stream(self, input: LanguageModelInput, config: Optional[RunnableConfig] = None, *,
               stop: Optional[list[str]] = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        if not self._can_stream():
            message = self.invoke(input, config, stop=stop, **kwargs)
            yield _as_one_chunk(message)
            return
        messages = to_messages(input)
        run = _callbacks.start_run(config, "chat_model", self.get_name(), [messages], **self._start(config, messages, stop, kwargs))
        total: Optional[AIMessageChunk] = None
        try:
            for chunk in self._stream(messages, stop=stop, **kwargs):
                chunk.id = chunk.id or f"run-{run.run_id}"
                run.event("on_llm_new_token", chunk.text, chunk=chunk)
                total = chunk if total is None else total + chunk
                yield chunk
        except BaseException as exc:  # GeneratorExit too: a consumer that stops early ends the run
            run.error(exc)
            raise
        run.end(LLMResult([[ChatGeneration(message_chunk_to_message(total or AIMessageChunk("")))]]))

    async def astream(self, input: LanguageModelInput, config: Optional[RunnableConfig] = None, *,
                      stop: Optional[list[str]] = None, **kwargs: Any) -> AsyncIterator[AIMessageChunk]:
        if not self._can_astream():
            message = await self.ainvoke(input, config, stop=stop, **kwargs)
            yield _as_one_chunk(message)
            return
        messages = to_messages(input)
        run = await _callbacks.astart_run(config, "chat_model", self.get_name(), [messages], **self._start(config, messages, stop, kwargs))
        total: Optional[AIMessageChunk] = None
        try:
            async for chunk in self._astream(messages, stop=stop, **kwargs):
                chunk.id = chunk.id or f"run-{run.run_id}"
                await run.aevent("on_llm_new_token", chunk.text, chunk=chunk)
                total = chunk if total is None else total + chunk
                yield chunk
        except BaseException as exc:  # GeneratorExit too: a consumer that stops early ends the run
            await run.aerror(exc)  # the sync path for GeneratorExit: see Run.aerror
            raise
        await run.aend(LLMResult([[ChatGeneration(message_chunk_to_message(total or AIMessageChunk("")))]]))

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Optional[Any] = None, **kwargs: Any) -> RunnableBinding:
        """A copy of this model that offers ``tools`` (functions, tool objects, pydantic
        models or OpenAI tool dicts) on every call. ``tool_choice``: None (server default),
        "auto", "none", "required"/"any", True (the only tool) or a tool name."""
        if isinstance(tools, (str, dict)) or not isinstance(tools, Sequence):
            raise ValidationError(f"bind_tools needs a list of tools, got {type(tools).__name__}")
        converted = [convert_to_openai_tool(tool) for tool in tools]
        choice = normalize_tool_choice(tool_choice, converted)
        extra = {"tool_choice": choice} if choice is not None else {}
        return self.bind(tools=converted, **extra, **kwargs)

    def with_structured_output(self, schema: Any, *, method: str = "function_calling", include_raw: bool = False,
                               **kwargs: Any) -> Runnable:
        """This model answering with data of ``schema`` (a pydantic model class, a dataclass,
        a TypedDict or a JSON schema dict): ``method`` ``"function_calling"`` (default),
        ``"json_schema"`` or ``"json_mode"``; see :mod:`rag.models.structured`."""
        from rag.models.structured import with_structured_output

        return with_structured_output(self, schema, method=method, include_raw=include_raw, **kwargs)  # type: ignore[arg-type]

    def _graph_io_names(self) -> tuple[str, str]:
        return "ChatModelInput", f"{self.get_name()}Output"

    def _input_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import CHAT_MODEL_INPUT_SCHEMA

        return CHAT_MODEL_INPUT_SCHEMA

    def _output_jsonschema(self) -> dict[str, Any]:
        from rag.runnables.schema import AI_MESSAGE_SCHEMA

        return AI_MESSAGE_SCHEMA
