"""``AgentExecutor``: the classic agent loop (plan → act → observe) as a chain.

Each step the agent plans from the inputs and the steps so far; a finish ends the run,
otherwise each chosen action's tool runs and its observation is recorded. The run ends
at the agent's finish, at a ``return_direct`` tool's result, or when ``max_iterations``
or ``max_execution_time`` is reached (``early_stopping_method``). ``stream`` yields the
actions, the steps and the output as they happen; ``iter`` yields each step's result.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Iterator, Optional, Union

from rag import _callbacks
from rag.classic._run_manager import CallbackManagerForChainRun
from rag.classic.agents.agent import BaseMultiActionAgent, BaseSingleActionAgent, RunnableAgent, RunnableMultiActionAgent
from rag.classic.agents.parsers import ToolsAgentOutputParser
from rag.classic.agents.tools import EXCEPTION_TOOL, INVALID_TOOL, run_tool
from rag.classic.agents.types import AddableDict, AgentAction, AgentFinish, AgentStep
from rag.classic.chains.base import Chain
from rag.classic.schema import RUN_KEY, RunInfo
from rag.errors import OutputParserException, ValidationError
from rag.runnables import Runnable, RunnableConfig

__all__ = ["AgentExecutor", "EARLY_STOPPING_METHODS", "MAX_PARSING_ERRORS_WITHOUT_LIMIT"]

EARLY_STOPPING_METHODS = ("force", "generate")
# With max_iterations=None, LangChain feeds a model that never writes a parsable reply
# back forever; here this many parsing errors in a row end the run with the last error.
MAX_PARSING_ERRORS_WITHOUT_LIMIT = 15
_DONE = object()


def _wrap_agent(agent: Any, stream_runnable: bool) -> Any:
    if isinstance(agent, (BaseSingleActionAgent, BaseMultiActionAgent)):
        return agent
    # A runnable from another library (LangChain's) is run through its invoke/stream.
    if not (isinstance(agent, Runnable) or (hasattr(agent, "invoke") and hasattr(agent, "stream"))):
        raise ValidationError(f"agent must be a runnable or a RunnableAgent, got {type(agent).__name__}: {agent!r:.60}")
    last = getattr(agent, "last", agent)
    # A tool-calling agent's parser returns a list of actions: run them all each step.
    multi = isinstance(last, ToolsAgentOutputParser) or getattr(last, "returns_multiple_actions", False)
    kind = RunnableMultiActionAgent if multi else RunnableAgent
    return kind(runnable=agent, stream_runnable=stream_runnable)


class AgentExecutor(Chain):
    """Runs ``agent`` with ``tools`` until it answers.

    Settings (defaults): ``max_iterations`` (15; None for no limit; at least 1),
    ``max_execution_time`` (None; seconds), ``early_stopping_method`` ("force": answer
    "Agent stopped due to iteration limit or time limit."; "generate": ask the agent once
    more), ``handle_parsing_errors`` (False: raise; True: show the model the parser's
    message; a string: show it; a function of the exception: show what it returns),
    ``return_intermediate_steps`` (False), ``trim_intermediate_steps`` (-1: the agent sees
    every step; n > 0: the last n; a function of the steps), ``memory`` (None),
    ``stream_runnable`` (True: the agent's model streams, so tokens reach callbacks).

    Safer than LangChain: a parsing error is a step like any other (it counts toward
    ``max_iterations``, and without a limit at most
    :data:`MAX_PARSING_ERRORS_WITHOUT_LIMIT` in a row are fed back); a tool that raises
    ends the run with :class:`~rag.classic.agents.ToolRunError` naming the tool, unless
    the tool's own ``handle_tool_error`` turns its ToolException into an observation.

    >>> from rag.classic.agents import create_react_agent
    >>> from rag.models import FakeListChatModel
    >>> from rag.prompts import PromptTemplate
    >>> from rag.tools import tool
    >>> @tool
    ... def shout(text: str) -> str:
    ...     '''Say it loudly.'''
    ...     return text.upper()
    >>> prompt = PromptTemplate.from_template("{tools}\\n{tool_names}\\n{input}\\n{agent_scratchpad}")
    >>> model = FakeListChatModel(responses=["Action: shout\\nAction Input: hi", "Final Answer: HI"])
    >>> AgentExecutor(agent=create_react_agent(model, [shout], prompt), tools=[shout]).invoke({"input": "x"})
    {'input': 'x', 'output': 'HI'}
    """

    agent: Any
    tools: Any
    return_intermediate_steps: bool = False
    max_iterations: Optional[int] = 15
    max_execution_time: Optional[float] = None
    early_stopping_method: str = "force"
    handle_parsing_errors: Union[bool, str, Callable[[OutputParserException], str]] = False
    trim_intermediate_steps: Union[int, Callable[[list], list]] = -1
    stream_runnable: bool = True

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_agent_and_tools(cls, agent: Any, tools: Any, callbacks: Any = None, **kwargs: Any) -> "AgentExecutor":
        return cls(agent=agent, tools=tools, callbacks=callbacks, **kwargs)

    def _check(self) -> None:
        super()._check()
        self.agent = _wrap_agent(self.agent, self.stream_runnable)
        tools = list(self.tools) if isinstance(self.tools, (list, tuple)) else None
        if not tools:
            raise ValidationError(f"AgentExecutor needs a list of tools for its agent to call, got {self.tools!r:.60}")
        for tool in tools:
            if not (isinstance(getattr(tool, "name", None), str) and hasattr(tool, "invoke")):
                raise ValidationError(f"each tool must have a name and invoke (a rag.tools.Tool), got {tool!r:.60}")
        names = [tool.name for tool in tools]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValidationError(f"two tools share the name(s) {repeated}; the agent chooses tools by name")
        self.tools = tools
        allowed = self.agent.get_allowed_tools()
        if allowed is not None and set(allowed) != set(names):
            raise ValidationError(f"Allowed tools ({allowed}) different than provided tools ({names})")
        if isinstance(self.agent, BaseMultiActionAgent) and any(getattr(t, "return_direct", False) for t in tools):
            raise ValidationError("Tools that have `return_direct=True` are not allowed in multi-action agents")
        limit = self.max_iterations
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValidationError(f"max_iterations must be a positive int or None, got {limit!r}")
        seconds = self.max_execution_time
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0):
            raise ValidationError(f"max_execution_time must be a positive number of seconds or None, got {seconds!r}")
        if self.early_stopping_method not in EARLY_STOPPING_METHODS:
            raise ValidationError(f"early_stopping_method must be one of {EARLY_STOPPING_METHODS}, "
                                  f"got {self.early_stopping_method!r}")
        handler = self.handle_parsing_errors
        if not isinstance(handler, (bool, str)) and not callable(handler):
            raise ValidationError(f"handle_parsing_errors must be a bool, a str or a function, got {handler!r:.60}")
        trim = self.trim_intermediate_steps
        if not callable(trim) and (isinstance(trim, bool) or not isinstance(trim, int)):
            raise ValidationError(f"trim_intermediate_steps must be an int or a function, got {trim!r:.60}")

    @property
    def input_keys(self) -> list[str]:
        return self.agent.input_keys

    @property
    def output_keys(self) -> list[str]:
        keys = self.agent.return_values
        return [*keys, "intermediate_steps"] if self.return_intermediate_steps else keys

    def lookup_tool(self, name: str) -> Any:
        return {tool.name: tool for tool in self.tools}[name]

    # -- one step ---------------------------------------------------------------------
    def _should_continue(self, iterations: int, elapsed: float) -> bool:
        if self.max_iterations is not None and iterations >= self.max_iterations:
            return False
        return self.max_execution_time is None or elapsed < self.max_execution_time

    def _visible_steps(self, steps: list) -> list:
        trim = self.trim_intermediate_steps
        if callable(trim):
            return trim(steps)
        return steps[-trim:] if trim > 0 else steps

    def _parsing_observation(self, exc: OutputParserException) -> tuple[str, str]:
        """``(observation, text)`` the model is shown for a parsing error, or raise."""
        handler = self.handle_parsing_errors
        if handler is False:
            raise ValidationError("An output parsing error occurred. In order to pass this error back to the agent and "
                                  "have it try again, pass `handle_parsing_errors=True` to the AgentExecutor. This is "
                                  f"the error: {exc}") from exc
        if handler is True:
            if exc.send_to_llm:
                return str(exc.observation), str(exc.llm_output)
            return "Invalid or incomplete response", str(exc)
        if isinstance(handler, str):
            return handler, str(exc)
        return handler(exc), str(exc)

    def _iter_next_step(self, tools: dict[str, Any], inputs: dict[str, Any], steps: list,
                        run_manager: Optional[CallbackManagerForChainRun]) -> Iterator[Any]:
        """The decision and its consequences: an AgentFinish, or each AgentAction then
        each AgentStep (a parsing error handled is one step of the "_Exception" tool)."""
        # No empty callbacks list: LangChain's models (a LangChain runnable agent) fail on one.
        child = run_manager.get_child() if run_manager is not None and run_manager.handlers else None
        try:
            decision = self.agent.plan(self._visible_steps(steps), callbacks=child, **inputs)
        except OutputParserException as exc:
            observation, text = self._parsing_observation(exc)
            action = AgentAction("_Exception", observation, text)
            if run_manager is not None:
                run_manager.on_agent_action(action, color="green")
            yield AgentStep(action, run_tool(EXCEPTION_TOOL, action.tool_input, child))
            return
        if isinstance(decision, AgentFinish):
            yield decision
            return
        actions = [decision] if isinstance(decision, AgentAction) else list(decision or [])
        if not actions or not all(isinstance(a, AgentAction) for a in actions):
            raise ValidationError(f"the agent must return an AgentAction, a list of them or an AgentFinish, "
                                  f"got {decision!r:.80}")
        yield from actions
        for action in actions:
            if run_manager is not None:
                run_manager.on_agent_action(action, color="green")
            tool = tools.get(action.tool)
            if tool is None:
                invalid = {"requested_tool_name": action.tool, "available_tool_names": list(tools)}
                yield AgentStep(action, run_tool(INVALID_TOOL, invalid, child))
            else:
                yield AgentStep(action, run_tool(tool, action.tool_input, child))

    def _tool_return(self, step: tuple[AgentAction, Any], tools: dict[str, Any]) -> Optional[AgentFinish]:
        action, observation = step
        key = (self.agent.return_values or ["output"])[0]
        tool = tools.get(action.tool)
        if tool is not None and getattr(tool, "return_direct", False):
            return AgentFinish({key: observation}, "")
        return None

    def _finish(self, finish: AgentFinish, steps: list, run_manager: Optional[CallbackManagerForChainRun]) -> dict:
        if run_manager is not None:
            run_manager.on_agent_finish(finish, color="green", verbose=self.verbose)
        outputs = dict(finish.return_values)
        if self.return_intermediate_steps:
            outputs["intermediate_steps"] = steps
        return outputs

    # -- the loop ---------------------------------------------------------------------
    def _loop(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun]) -> Iterator[Any]:
        """Every AgentAction and AgentStep as it happens, a :class:`_StepDone` after each
        step, and last a :class:`_Finished`."""
        tools = {tool.name: tool for tool in self.tools}
        steps: list = []
        iterations, parse_errors, started = 0, 0, time.monotonic()
        while self._should_continue(iterations, time.monotonic() - started):
            produced = []
            for item in self._iter_next_step(tools, inputs, steps, run_manager):
                produced.append(item)
                if not isinstance(item, AgentFinish):
                    yield item
            if isinstance(produced[-1], AgentFinish):
                yield _Finished(produced[-1], self._finish(produced[-1], steps, run_manager))
                return
            new = [(s.action, s.observation) for s in produced if isinstance(s, AgentStep)]
            steps.extend(new)
            parse_errors = parse_errors + 1 if new[0][0].tool == "_Exception" else 0
            if self.max_iterations is None and parse_errors >= MAX_PARSING_ERRORS_WITHOUT_LIMIT:
                raise ValidationError(f"the agent's reply could not be parsed {parse_errors} times in a row; "
                                      f"the last one was: {new[0][0].log!r:.200}")
            direct = self._tool_return(new[0], tools) if len(new) == 1 else None
            if direct is not None:
                yield _Finished(direct, self._finish(direct, steps, run_manager))
                return
            yield _StepDone(new)
            iterations += 1
        stopped = self.agent.return_stopped_response(self.early_stopping_method, steps, **inputs)
        yield _Finished(stopped, self._finish(stopped, steps, run_manager))

    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        for item in self._loop(inputs, run_manager):
            if isinstance(item, _Finished):
                return item.outputs
        raise AssertionError("the agent loop ended without outputs")  # _loop always finishes

    # -- streaming --------------------------------------------------------------------
    def stream(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Iterator[AddableDict]:
        """Chunks as the run goes: ``{"actions": [...], "messages": [...]}`` for each
        action, ``{"steps": [...], "messages": [...]}`` for each observation, and last
        ``{"output": ..., "messages": [...]}`` (the outputs); they add up with ``+``."""
        yield from self._iterate(input, config, yield_actions=True, **kwargs)

    async def astream(self, input: Any, config: Optional[RunnableConfig] = None,
                      **kwargs: Any) -> AsyncIterator[AddableDict]:
        """:meth:`stream` run in a worker thread, each chunk handed over as it comes."""
        chunks = self.stream(input, config, **kwargs)
        while True:
            chunk = await asyncio.to_thread(next, chunks, _DONE)
            if chunk is _DONE:
                return
            yield chunk

    def iter(self, inputs: Any, callbacks: Any = None, *, include_run_info: bool = False) -> Iterator[AddableDict]:
        """One chunk per step, ``{"intermediate_step": [(action, observation), ...]}``,
        then the outputs (LangChain's ``AgentExecutorIterator``)."""
        config = self._call_config(callbacks, self.tags, None, None)
        return self._iterate(inputs, config, yield_actions=False, include_run_info=include_run_info)

    def _iterate(self, input: Any, config: Optional[RunnableConfig], *, yield_actions: bool,
                 include_run_info: bool = False, **_: Any) -> Iterator[AddableDict]:
        inputs = self.prep_inputs(input)
        config = self._run_config(config)
        run = _callbacks.start_run(config, "chain", self.get_name(), inputs, **self._start_fields())
        manager = CallbackManagerForChainRun(run, {**(self.metadata or {}), **(config.get("metadata") or {})})
        try:
            self._validate_inputs(inputs)
            for item in self._loop(inputs, manager):
                if isinstance(item, _Finished):
                    # As LangChain's iterator: the finish's messages ride along in the outputs.
                    outputs = {**item.outputs, "messages": item.finish.messages}
                    final = AddableDict(self.prep_outputs(inputs, outputs, return_only_outputs=True))
                elif isinstance(item, _StepDone):
                    if not yield_actions:
                        yield AddableDict(intermediate_step=item.steps)
                elif yield_actions and isinstance(item, AgentAction):
                    yield AddableDict(actions=[item], messages=item.messages)
                elif yield_actions and isinstance(item, AgentStep):
                    yield AddableDict(steps=[item], messages=item.messages)
        except BaseException as exc:
            run.error(exc)
            raise
        run.end(outputs)
        if include_run_info:
            final[RUN_KEY] = RunInfo(run_id=run.run_id)
        yield final


@dataclass
class _StepDone:
    """One step's ``(action, observation)`` pairs (what ``iter()`` yields)."""

    steps: list


@dataclass
class _Finished:
    """The run's end: the agent's finish and the outputs built from it."""

    finish: AgentFinish
    outputs: dict
