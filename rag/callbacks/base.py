"""BaseCallbackHandler: LangChain's callback methods, all optional no-ops to override.

Every method receives ``run_id`` (this run) and ``parent_run_id`` (the run it nests in,
None at the top) as keywords, plus ``tags``, ``metadata`` and ``name`` on start events.
Handlers go in ``config={"callbacks": [handler]}`` and reach every nested step; an
exception in a handler is logged and the chain goes on, unless ``raise_error`` is True.
``async def`` overrides are awaited on async paths.
"""

from __future__ import annotations

from typing import Any, Optional
from uuid import UUID

__all__ = ["BaseCallbackHandler"]


class BaseCallbackHandler:
    """Override the events you need; the rest do nothing.

    ``raise_error`` (default False): let this handler's exceptions stop the chain.
    ``ignore_chain`` / ``ignore_chat_model`` / ``ignore_retriever`` / ``ignore_agent``
    (tools): skip those kinds of runs.

    >>> class Printer(BaseCallbackHandler):
    ...     def on_chain_end(self, outputs, *, run_id, parent_run_id=None, **kwargs):
    ...         print("output:", outputs)
    >>> from rag.runnables import RunnableLambda
    >>> RunnableLambda(lambda x: x + 1).invoke(1, {"callbacks": [Printer()]})
    output: 2
    2
    """

    raise_error: bool = False
    run_inline: bool = False
    ignore_chain: bool = False
    ignore_chat_model: bool = False
    ignore_retriever: bool = False
    ignore_agent: bool = False
    ignore_llm: bool = False

    # -- chains (every Runnable composition) ------------------------------------------
    def on_chain_start(self, serialized: dict[str, Any], inputs: Any, *, run_id: UUID,
                       parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A chain run started with ``inputs`` (``{"input": ""}`` for a streamed step whose
        input is still arriving; its end event then gets ``inputs=``). Prompts and parsers
        pass ``run_type="prompt"`` / ``"parser"``, as in LangChain."""

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A chain run returned ``outputs`` (for a stream: its chunks added up)."""

    def on_chain_error(self, error: BaseException, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                       **kwargs: Any) -> Any:
        """A chain run raised ``error``."""

    def on_stream_chunk(self, chunk: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                        **kwargs: Any) -> Any:
        """A streaming chain run yielded ``chunk`` (not a LangChain callback: the event
        streams of ``astream_events`` / ``astream_log`` are built on it)."""

    # -- retrievers -------------------------------------------------------------------
    def on_retriever_start(self, serialized: dict[str, Any], query: str, *, run_id: UUID,
                           parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A retriever started searching for ``query``."""

    def on_retriever_end(self, documents: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                         **kwargs: Any) -> Any:
        """A retriever returned ``documents``."""

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                           **kwargs: Any) -> Any:
        """A retriever raised ``error``."""

    # -- chat models ----------------------------------------------------------------
    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID,
                            parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A chat model was called with ``messages`` (one list per prompt)."""

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: UUID,
                         parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A streaming model produced ``token`` (``chunk``: the message chunk)."""

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A model finished; ``response`` is an :class:`~rag.models.LLMResult`."""

    def on_llm_error(self, error: BaseException, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                     **kwargs: Any) -> Any:
        """A model call raised ``error``."""

    # -- tools ------------------------------------------------------------------------
    def on_tool_start(self, serialized: dict[str, Any], input_str: str, *, run_id: UUID,
                      parent_run_id: Optional[UUID] = None, inputs: Optional[dict[str, Any]] = None,
                      **kwargs: Any) -> Any:
        """A tool was called; ``input_str`` is its arguments as JSON, ``inputs`` the dict."""

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None, **kwargs: Any) -> Any:
        """A tool returned ``output`` (a ToolMessage when called with a tool call)."""

    def on_tool_error(self, error: BaseException, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                      **kwargs: Any) -> Any:
        """A tool raised ``error``."""
