"""``astream_log``: a run's state as a stream of JSON-patch operations (LangChain's RunLog).

The state is ``{"id", "name", "type", "streamed_output", "final_output", "logs"}``;
``logs`` has one entry per inner run (``{"id", "name", "type", "tags", "metadata",
"start_time", "streamed_output", "streamed_output_str", "final_output", "end_time"}``)
keyed by its name (``name:2``, ``name:3`` for repeats). Each :class:`RunLogPatch` holds the
operations (``{"op": "add" | "replace" | "remove", "path", "value"}``) that bring the state
up to date; patches add up (``+``) to a :class:`RunLog` whose ``state`` is the whole log.
Outputs in the log keep LangChain's "original" shapes: a chain's non-dict output as
``{"output": ...}``, a retriever's as ``{"documents": [...]}``, a model's as an LLMResult dict.

>>> import asyncio
>>> from rag.runnables import RunnableLambda
>>> async def final():
...     total = None
...     async for patch in RunnableLambda(lambda x: x + 1).astream_log(1):
...         total = patch if total is None else total + patch
...     return total.state["final_output"]
>>> asyncio.run(final())
2
"""

from __future__ import annotations

import copy
import threading
import uuid
from collections import Counter
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Optional, Sequence

from rag.errors import ValidationError
from rag.json_patch import make_patch
from rag.runnables._streams import NOTHING, output_adder
from rag.runnables.config import RunnableConfig
from rag.runnables.events import EventFilter, _Inbox, finish, run_with_handler

__all__ = ["RunLogPatch", "RunLog", "LogStreamHandler", "astream_log", "apply_ops", "diff_ops"]


def _parts(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValidationError(f"a JSON pointer starts with '/', got {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def apply_ops(state: Any, ops: Sequence[dict[str, Any]]) -> Any:
    """``state`` with JSON-patch ``ops`` applied (add, replace, remove; ``-`` appends).
    Values are copied in, so later changes to the state leave the ops alone."""
    for op in ops:
        parts = _parts(op["path"])
        if not parts:
            if op["op"] in ("add", "replace"):
                state = copy.deepcopy(op["value"])
                continue
            raise ValidationError(f"cannot {op['op']} the whole document")
        target = state
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        last = parts[-1]
        if op["op"] == "remove":
            del target[int(last) if isinstance(target, list) else last]
        elif isinstance(target, list):
            value = copy.deepcopy(op["value"])
            if last == "-":
                target.append(value)
            elif op["op"] == "add":
                target.insert(int(last), value)
            else:
                target[int(last)] = value
        elif op["op"] in ("add", "replace"):
            target[last] = copy.deepcopy(op["value"])
        else:
            raise ValidationError(f"unsupported JSON-patch op {op['op']!r}")
    return state


def diff_ops(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """JSON-patch operations that turn ``old`` into ``new`` (:func:`rag.json_patch.make_patch`,
    as ``jsonpatch.make_patch`` writes them for the growing outputs of a stream)."""
    return make_patch(old, new, path)


class RunLogPatch:
    """Operations to apply to the run state; ``patch + patch`` gives a :class:`RunLog`."""

    def __init__(self, *ops: dict[str, Any]) -> None:
        self.ops = list(ops)

    def __add__(self, other: Any) -> "RunLog":
        if type(other) is RunLogPatch:
            ops = self.ops + other.ops
            return RunLog(*ops, state=apply_ops(None, copy.deepcopy(ops)))
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLogPatch) and self.ops == other.ops

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunLogPatch({self.ops!r})"


class RunLog(RunLogPatch):
    """The operations so far and the ``state`` they build."""

    def __init__(self, *ops: dict[str, Any], state: Any) -> None:
        super().__init__(*ops)
        self.state = state

    def __add__(self, other: Any) -> "RunLog":
        if type(other) is RunLogPatch:
            return RunLog(*self.ops, *other.ops, state=apply_ops(self.state, other.ops))
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLog) and self.state == other.state and self.ops == other.ops

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunLog({self.state!r})"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _logged_output(run_type: str, output: Any) -> Any:
    """An output in LangChain's "original" log shape."""
    if run_type == "prompt":
        return output
    if run_type == "retriever":
        return {"documents": output}
    if run_type == "chat_model":
        generations = [[{"text": g.message.text, "generation_info": None, "type": "ChatGeneration",
                         "message": g.message} for g in candidates] for candidates in output.generations]
        return {"generations": generations, "llm_output": None, "run": None, "type": "LLMResult"}
    return output if isinstance(output, dict) else {"output": output}


class LogStreamHandler:
    """A callback handler that sends each run's log operations to ``sink(patch)``."""

    streams_model_tokens = True  # as LangChain's log handler: models stream their tokens

    def __init__(self, sink: Any, event_filter: EventFilter) -> None:
        self._sink = sink
        self._filter = event_filter
        self.root_id: Optional[uuid.UUID] = None
        self._keys: dict[uuid.UUID, str] = {}
        self._types: dict[uuid.UUID, str] = {}
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _start(self, run_type: str, serialized: Any, run_id: uuid.UUID, kwargs: dict[str, Any]) -> None:
        name = str(kwargs.get("name") or (serialized or {}).get("name") or "Unnamed")
        tags = list(kwargs.get("tags") or [])
        with self._lock:
            is_root = self.root_id is None
            if is_root:
                self.root_id = run_id
            self._types[run_id] = run_type
        if is_root:
            self._sink(RunLogPatch({"op": "replace", "path": "", "value": {
                "id": str(run_id), "streamed_output": [], "final_output": None, "logs": {}, "name": name,
                "type": run_type}}))
            return
        if not self._filter.passes({"name": name, "tags": tags}, run_type):
            return
        with self._lock:
            self._counts[name] += 1
            key = name if self._counts[name] == 1 else f"{name}:{self._counts[name]}"
            self._keys[run_id] = key
        self._sink(RunLogPatch({"op": "add", "path": f"/logs/{key}", "value": {
            "id": str(run_id), "name": name, "type": run_type, "tags": tags,
            "metadata": dict(kwargs.get("metadata") or {}), "start_time": _now(), "streamed_output": [],
            "streamed_output_str": [], "final_output": None, "end_time": None}}))

    def _end(self, run_id: uuid.UUID, output: Any) -> None:
        with self._lock:
            key = self._keys.pop(run_id, None)
            run_type = self._types.pop(run_id, "chain")
        if key is not None:
            value = None if output is None else _logged_output(run_type, output)
            self._sink(RunLogPatch({"op": "add", "path": f"/logs/{key}/final_output", "value": value},
                                   {"op": "add", "path": f"/logs/{key}/end_time", "value": _now()}))

    # -- callbacks ----------------------------------------------------------------------
    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: uuid.UUID, run_type: Optional[str] = None,
                       **kwargs: Any) -> None:
        self._start(run_type or "chain", serialized, run_id, kwargs)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._start("chat_model", serialized, run_id, kwargs)

    def on_retriever_start(self, serialized: Any, query: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._start("retriever", serialized, run_id, kwargs)

    def on_tool_start(self, serialized: Any, input_str: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._start("tool", serialized, run_id, kwargs)

    def on_stream_chunk(self, chunk: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        key = self._keys.get(run_id)
        if key is not None and run_id != self.root_id:
            self._sink(RunLogPatch({"op": "add", "path": f"/logs/{key}/streamed_output/-", "value": chunk}))

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: uuid.UUID, **kwargs: Any) -> None:
        key = self._keys.get(run_id)
        if key is not None:
            self._sink(RunLogPatch({"op": "add", "path": f"/logs/{key}/streamed_output_str/-", "value": token},
                                   {"op": "add", "path": f"/logs/{key}/streamed_output/-",
                                    "value": chunk if chunk is not None else token}))

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._end(run_id, outputs)

    def on_llm_end(self, response: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._end(run_id, response)

    def on_retriever_end(self, documents: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._end(run_id, documents)

    def on_tool_end(self, output: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._end(run_id, output)

    def _error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._end(run_id, None)

    on_chain_error = on_llm_error = on_retriever_error = on_tool_error = _error


async def astream_log(runnable: Any, input: Any, config: Optional[RunnableConfig] = None, *, diff: bool = True,
                      with_streamed_output_list: bool = True, include_names: Optional[Sequence[str]] = None,
                      include_types: Optional[Sequence[str]] = None, include_tags: Optional[Sequence[str]] = None,
                      exclude_names: Optional[Sequence[str]] = None, exclude_types: Optional[Sequence[str]] = None,
                      exclude_tags: Optional[Sequence[str]] = None, **kwargs: Any) -> AsyncIterator[Any]:
    """Run ``runnable`` on ``input`` (streaming) and yield :class:`RunLogPatch` es as it
    goes (``diff=False``: the growing :class:`RunLog` instead). The root's output chunks go
    to ``/streamed_output`` (unless ``with_streamed_output_list=False``) and their running
    sum to ``/final_output``; the filters choose which inner runs get a log entry."""
    inbox = _Inbox()
    handler = LogStreamHandler(inbox.put, EventFilter(include_names, include_types, include_tags, exclude_names,
                                                      exclude_types, exclude_tags))

    class _Root:  # wraps the runnable so the root's chunks become patches in order
        async def astream(self, value: Any, cfg: Any, **kw: Any) -> AsyncIterator[Any]:
            total, add_output = NOTHING, output_adder(runnable)
            async for chunk in runnable.astream(value, cfg, **kw):
                previous, total = total, add_output(total, chunk)
                ops = [{"op": "add", "path": "/streamed_output/-", "value": copy.deepcopy(chunk)}] \
                    if with_streamed_output_list else []
                old = None if previous is NOTHING else previous
                ops.extend({**op, "path": f"/final_output{op['path']}"} for op in diff_ops(old, total))
                inbox.put(RunLogPatch(*ops))
                yield chunk

    task, _ = await run_with_handler(_Root(), input, config, handler, inbox, kwargs)
    try:
        state: Optional[RunLog] = None
        async for patch in inbox:
            if diff:
                yield patch
            else:
                state = RunLog(*patch.ops, state=apply_ops(None, copy.deepcopy(patch.ops))) if state is None \
                    else state + patch
                yield state
    finally:
        await finish(task)
