"""``Chain``: the classic chain base, run the way ``langchain_classic`` runs it.

One call is: :meth:`Chain.prep_inputs` (a bare value becomes the one input key; the
memory's variables are merged in) → ``on_chain_start`` → the input keys are checked →
``_call(inputs, run_manager=...)`` (``run_manager`` only when ``_call``'s signature names
it) → :meth:`Chain.prep_outputs` (the output keys are checked; the memory saves the call)
→ ``on_chain_end`` with ``_call``'s outputs (``on_chain_error`` instead if any step
raised). A chain is a :class:`~rag.runnables.Runnable`: it composes with ``|``, its
``stream`` yields its final output once, and a call traces as one run.
"""

from __future__ import annotations

import asyncio
import inspect
from abc import abstractmethod
from typing import Any, ClassVar, Optional

from rag import _callbacks
from rag._callbacks import ChildCallbacks
from rag._fields import assign_fields
from rag.classic._run_manager import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from rag.classic.base_memory import BaseMemory
from rag.classic.schema import RUN_KEY, RunInfo
from rag.errors import ValidationError
from rag.runnables import Runnable, RunnableConfig

__all__ = ["Chain"]


def _takes_run_manager(method: Any) -> bool:
    try:
        return "run_manager" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


class Chain(Runnable[dict[str, Any], dict[str, Any]]):
    """A classic chain: named inputs in, named outputs out, with optional memory.

    Subclasses declare their settings as annotated class attributes (built from keywords,
    as LangChain's pydantic chains) and implement ``input_keys``, ``output_keys`` and
    ``_call(inputs, run_manager=None)``; ``_acall`` defaults to ``_call`` in a worker
    thread. Fields every chain has: ``memory`` (default None), ``callbacks`` (handlers for
    this chain's runs, default None), ``verbose`` (accepted, prints nothing; default
    False), ``tags``, ``metadata`` and ``name`` (default None).

    >>> class Shout(Chain):
    ...     input_keys = ["text"]
    ...     output_keys = ["loud"]
    ...     def _call(self, inputs, run_manager=None):
    ...         return {"loud": inputs["text"].upper()}
    >>> Shout().invoke({"text": "hi"})
    {'text': 'hi', 'loud': 'HI'}
    >>> Shout().run("hi")
    'HI'
    """

    memory: Optional[BaseMemory] = None
    callbacks: Any = None
    verbose: bool = False
    tags: Optional[list[str]] = None
    metadata: Optional[dict[str, Any]] = None
    name: Optional[str] = None

    _call_takes_manager: ClassVar[bool] = True
    _acall_takes_manager: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Read once per class, not per call: LangChain inspects the signature every call.
        cls._call_takes_manager = _takes_run_manager(cls._call)
        cls._acall_takes_manager = _takes_run_manager(cls._acall)

    def __init__(self, **fields: Any) -> None:
        assign_fields(self, fields, Chain)
        self._check()

    def _check(self) -> None:
        """Validate the fields once built (subclasses extend it)."""
        if self.memory is not None and not isinstance(self.memory, BaseMemory):
            raise ValidationError(f"memory must be a BaseMemory, got {type(self.memory).__name__}: {self.memory!r:.60}")

    # -- what a subclass provides -----------------------------------------------------
    @property
    @abstractmethod
    def input_keys(self) -> list[str]:
        """The keys ``_call`` reads (memory variables included)."""

    @property
    @abstractmethod
    def output_keys(self) -> list[str]:
        """The keys ``_call`` returns."""

    @abstractmethod
    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        """The chain's work: all inputs (memory's included) to its outputs."""

    async def _acall(self, inputs: dict[str, Any],
                     run_manager: Optional[AsyncCallbackManagerForChainRun] = None) -> dict[str, Any]:
        """Async ``_call``; by default ``_call`` in a worker thread."""
        if self._call_takes_manager:
            sync = run_manager.get_sync() if run_manager is not None else None
            return await asyncio.to_thread(self._call, inputs, run_manager=sync)  # type: ignore[call-arg]
        return await asyncio.to_thread(self._call, inputs)

    # -- the steps around _call -------------------------------------------------------
    def _free_input_keys(self) -> list[str]:
        memory_keys = set(self.memory.memory_variables) if self.memory is not None else set()
        return [key for key in self.input_keys if key not in memory_keys]

    def _as_dict(self, inputs: Any) -> dict[str, Any]:
        if isinstance(inputs, dict):
            if self.memory is not None:
                clash = sorted(set(inputs) & set(self.memory.memory_variables))
                if clash:
                    raise ValidationError(
                        f"input key(s) {clash} are also variables of the chain's memory "
                        f"({type(self.memory).__name__}, memory_variables={self.memory.memory_variables}); "
                        "the memory would overwrite them: rename the memory_key or the input"
                    )
            return inputs
        free = self._free_input_keys()
        if len(free) != 1:
            # LangChain picks one of the keys at random here and then reports the others
            # missing; naming them all says what to pass.
            raise ValidationError(
                f"Missing some input keys: a single value {inputs!r:.40} was passed, but {type(self).__name__} "
                f"expects the inputs {free}; pass a dict"
            )
        return {free[0]: inputs}

    def prep_inputs(self, inputs: Any) -> dict[str, Any]:
        """``inputs`` as a dict (a bare value goes to the one input key the memory does not
        provide) with the memory's variables merged in."""
        inputs = self._as_dict(inputs)
        if self.memory is not None:
            inputs = {**inputs, **self.memory.load_memory_variables(inputs)}
        return inputs

    async def aprep_inputs(self, inputs: Any) -> dict[str, Any]:
        inputs = self._as_dict(inputs)
        if self.memory is not None:
            inputs = {**inputs, **await self.memory.aload_memory_variables(inputs)}
        return inputs

    def _validate_inputs(self, inputs: dict[str, Any]) -> None:
        missing = set(self.input_keys).difference(inputs)
        if missing:
            raise ValidationError(f"Missing some input keys: {missing}")

    def _validate_outputs(self, outputs: dict[str, Any]) -> None:
        missing = set(self.output_keys).difference(outputs)
        if missing:
            raise ValidationError(f"Missing some output keys: {missing}")

    def prep_outputs(self, inputs: dict[str, Any], outputs: dict[str, Any],
                     return_only_outputs: bool = False) -> dict[str, Any]:
        """Check ``outputs``, let the memory save the call, and return the outputs (with
        the inputs first unless ``return_only_outputs``)."""
        self._validate_outputs(outputs)
        if self.memory is not None:
            self.memory.save_context(inputs, outputs)
        return dict(outputs) if return_only_outputs else {**inputs, **outputs}

    async def aprep_outputs(self, inputs: dict[str, Any], outputs: dict[str, Any],
                            return_only_outputs: bool = False) -> dict[str, Any]:
        self._validate_outputs(outputs)
        if self.memory is not None:
            await self.memory.asave_context(inputs, outputs)
        return dict(outputs) if return_only_outputs else {**inputs, **outputs}

    # -- running ----------------------------------------------------------------------
    def _run_config(self, config: Optional[RunnableConfig]) -> dict[str, Any]:
        """``config`` with this chain's own handlers added for its runs."""
        config = dict(config if config is not None else (_callbacks._AMBIENT.get() or {}))
        if self.callbacks:
            given = config.get("callbacks") or []
            given = list(given) if isinstance(given, (list, tuple)) else [given]
            own = list(self.callbacks) if isinstance(self.callbacks, (list, tuple)) else [self.callbacks]
            parent = config.get("callbacks")
            if isinstance(parent, ChildCallbacks):
                config["callbacks"] = ChildCallbacks(given + own, parent_run_id=parent.parent_run_id,
                                                     tags=parent.tags, metadata=parent.metadata)
            else:
                config["callbacks"] = given + own
        return config

    def _start_fields(self) -> dict[str, Any]:
        return {"tags": self.tags, "metadata": self.metadata}

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict[str, Any]:
        """Run once; keywords ``return_only_outputs`` and ``include_run_info`` (both
        default False) as in LangChain."""
        inputs = self.prep_inputs(input)
        config = self._run_config(config)
        run = _callbacks.start_run(config, "chain", self.get_name(), inputs, **self._start_fields())
        manager = CallbackManagerForChainRun(run, {**(self.metadata or {}), **(config.get("metadata") or {})})
        try:
            self._validate_inputs(inputs)
            with _callbacks.ambient_config(run.child_config(config) if run.handlers else None):
                outputs = self._call(inputs, run_manager=manager) if self._call_takes_manager else self._call(inputs)
            final = self.prep_outputs(inputs, outputs, kwargs.get("return_only_outputs", False))
        except BaseException as exc:
            run.error(exc)
            raise
        run.end(outputs)
        if kwargs.get("include_run_info", False):
            final[RUN_KEY] = RunInfo(run_id=run.run_id)
        return final

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict[str, Any]:
        inputs = await self.aprep_inputs(input)
        config = self._run_config(config)
        run = await _callbacks.astart_run(config, "chain", self.get_name(), inputs, **self._start_fields())
        manager = AsyncCallbackManagerForChainRun(run, {**(self.metadata or {}), **(config.get("metadata") or {})})
        try:
            self._validate_inputs(inputs)
            with _callbacks.ambient_config(run.child_config(config) if run.handlers else None):
                outputs = (await self._acall(inputs, run_manager=manager) if self._acall_takes_manager
                           else await self._acall(inputs))
            final = await self.aprep_outputs(inputs, outputs, kwargs.get("return_only_outputs", False))
        except BaseException as exc:
            await run.aerror(exc)
            raise
        await run.aend(outputs)
        if kwargs.get("include_run_info", False):
            final[RUN_KEY] = RunInfo(run_id=run.run_id)
        return final

    # -- the older entry points LangChain still has -----------------------------------
    @staticmethod
    def _call_config(callbacks: Any, tags: Optional[list[str]], metadata: Optional[dict[str, Any]],
                     run_name: Optional[str]) -> RunnableConfig:
        config = {"callbacks": callbacks, "tags": tags, "metadata": metadata, "run_name": run_name}
        return {key: value for key, value in config.items() if value is not None}  # type: ignore[return-value]

    def __call__(self, inputs: Any, return_only_outputs: bool = False, callbacks: Any = None, *,
                 tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
                 run_name: Optional[str] = None, include_run_info: bool = False) -> dict[str, Any]:
        """:meth:`invoke` with the config given as keywords (LangChain's older entry point)."""
        return self.invoke(inputs, self._call_config(callbacks, tags, metadata, run_name),
                           return_only_outputs=return_only_outputs, include_run_info=include_run_info)

    async def acall(self, inputs: Any, return_only_outputs: bool = False, callbacks: Any = None, *,
                    tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
                    run_name: Optional[str] = None, include_run_info: bool = False) -> dict[str, Any]:
        return await self.ainvoke(inputs, self._call_config(callbacks, tags, metadata, run_name),
                                  return_only_outputs=return_only_outputs, include_run_info=include_run_info)

    @property
    def _run_output_key(self) -> str:
        if len(self.output_keys) != 1:
            raise ValidationError(
                f"`run` not supported when there is not exactly one output key. Got {self.output_keys}."
            )
        return self.output_keys[0]

    def _run_inputs(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        if args and not kwargs:
            if len(args) != 1:
                raise ValidationError("`run` supports only one positional argument.")
            return args[0]
        if kwargs and not args:
            return kwargs
        if not args:
            raise ValidationError(
                "`run` supported with either positional arguments or keyword arguments, but none were provided."
            )
        raise ValidationError(
            f"`run` supported with either positional arguments or keyword arguments but not both. "
            f"Got args: {args} and kwargs: {kwargs}."
        )

    def run(self, *args: Any, callbacks: Any = None, tags: Optional[list[str]] = None,
            metadata: Optional[dict[str, Any]] = None, **kwargs: Any) -> Any:
        """The one output of a call given one positional input or the inputs as keywords."""
        key = self._run_output_key
        return self(self._run_inputs(args, kwargs), callbacks=callbacks, tags=tags, metadata=metadata)[key]

    async def arun(self, *args: Any, callbacks: Any = None, tags: Optional[list[str]] = None,
                   metadata: Optional[dict[str, Any]] = None, **kwargs: Any) -> Any:
        key = self._run_output_key
        outputs = await self.acall(self._run_inputs(args, kwargs), callbacks=callbacks, tags=tags, metadata=metadata)
        return outputs[key]

    def apply(self, input_list: list[dict[str, Any]], callbacks: Any = None) -> list[dict[str, Any]]:
        """One call per input (LangChain's ``apply``)."""
        return [self(inputs, callbacks=callbacks) for inputs in input_list]

    # -- schemas ----------------------------------------------------------------------
    def _input_jsonschema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {key: {"title": key.replace("_", " ").title()}
                                                 for key in self.input_keys}}

    def _output_jsonschema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {key: {"title": key.replace("_", " ").title()}
                                                 for key in self.output_keys}}

    def _schema_title(self, suffix: str) -> str:
        return f"Chain{suffix}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(input_keys={self.input_keys}, output_keys={self.output_keys})"
