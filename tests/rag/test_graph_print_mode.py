"""``print_mode=`` (and ``debug=True``) as LangGraph's: the chunks of the given modes are
printed to standard output as the run makes them (``[mode] repr(chunk)``, the mode in bold),
whether or not they are also streamed; a subgraph's chunk carries ``[graph=namespace]``."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest

from rag.graph import START, StateGraph
from rag.graph.func import entrypoint

BOLD, RESET, YELLOW = "\033[1m", "\033[0m", "\033[1;30;33m"


class S(TypedDict):
    text: str


def two_nodes():
    graph = StateGraph(S).add_node("a", lambda s: {"text": s["text"] + "a"}).add_node("b", lambda s: {"text": s["text"] + "b"})
    return graph.add_edge(START, "a").add_edge("a", "b").compile()


def printed_lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_invoke_prints_each_update_and_returns_the_state(capsys):
    assert two_nodes().invoke({"text": ""}, print_mode="updates") == {"text": "ab"}
    assert printed_lines(capsys) == [f"{BOLD}[updates]{RESET} {{'a': {{'text': 'a'}}}}",
                                     f"{BOLD}[updates]{RESET} {{'b': {{'text': 'ab'}}}}"]


def test_printed_modes_are_not_streamed_unless_asked_for(capsys):
    chunks = list(two_nodes().stream({"text": ""}, stream_mode="updates", print_mode="values"))
    assert chunks == [{"a": {"text": "a"}}, {"b": {"text": "ab"}}]
    assert printed_lines(capsys) == [f"{BOLD}[values]{RESET} {{'text': ''}}", f"{BOLD}[values]{RESET} {{'text': 'a'}}",
                                     f"{BOLD}[values]{RESET} {{'text': 'ab'}}"]


def test_a_mode_both_streamed_and_printed_is_yielded_and_printed(capsys):
    chunks = list(two_nodes().stream({"text": ""}, stream_mode="updates", print_mode=["updates"]))
    assert len(chunks) == len(printed_lines(capsys)) == 2


def test_a_run_without_print_mode_prints_nothing(capsys):
    two_nodes().invoke({"text": ""})
    list(two_nodes().stream({"text": ""}, stream_mode=["values", "updates"]))
    assert capsys.readouterr().out == ""


def test_debug_prints_updates_and_values(capsys):
    two_nodes().invoke({"text": ""}, debug=True)
    assert [line.split(RESET)[0] for line in printed_lines(capsys)] == [
        f"{BOLD}[values]", f"{BOLD}[updates]", f"{BOLD}[values]", f"{BOLD}[updates]", f"{BOLD}[values]"]


def test_a_subgraph_chunk_is_printed_with_its_namespace_when_streaming_subgraphs(capsys):
    inner = StateGraph(S).add_node("up", lambda s: {"text": s["text"] + "!"}).add_edge(START, "up").compile()
    outer = StateGraph(S).add_node("inner", inner).add_edge(START, "inner").compile()
    list(outer.stream({"text": ""}, print_mode="updates", subgraphs=True))
    inner_line, outer_line = printed_lines(capsys)
    assert inner_line.startswith(f"{BOLD}[updates]{RESET} {YELLOW}[graph=('inner:")
    assert inner_line.endswith(f"{RESET} {{'up': {{'text': '!'}}}}")
    assert outer_line == f"{BOLD}[updates]{RESET} {{'inner': {{'text': '!'}}}}"


def test_async_runs_print_as_sync_ones(capsys):
    async def run():
        result = await two_nodes().ainvoke({"text": ""}, print_mode="updates")
        return result, [chunk async for chunk in two_nodes().astream({"text": ""}, print_mode="updates")]

    result, chunks = asyncio.run(run())
    assert result == {"text": "ab"} and len(chunks) == 2
    assert len(printed_lines(capsys)) == 4


def test_an_entrypoint_prints_what_it_returned_not_its_internal_state(capsys):
    @entrypoint()
    def double(n: int) -> int:
        return n * 2

    assert double.invoke(3, print_mode="values") == 6
    assert printed_lines(capsys) == [f"{BOLD}[values]{RESET} 6"]


def test_an_unknown_print_mode_is_refused_by_name():
    with pytest.raises(ValueError, match="print_mode 'everything' is not supported.*'updates'"):
        two_nodes().invoke({"text": ""}, print_mode="everything")
