"""Which chunks a run makes, and which it prints: LangGraph's ``stream_mode=`` and
``print_mode=`` run options.

``print_mode`` takes what ``stream_mode`` takes (a mode or a list of them, default none):
the run makes those modes' chunks too and prints each to standard output as it is made,
LangGraph's debugging print, without yielding it unless its mode is streamed as well:

- ``[mode] repr(chunk)``, the ``[mode]`` in bold (ANSI escapes, as LangGraph prints it);
- with ``subgraphs=True``, a subgraph's chunk as ``[mode] [graph=namespace] repr(chunk)``,
  the namespace (a tuple of strings) in yellow (``ESC[1;30;33m``).

``debug=True`` is LangGraph's shorthand for ``print_mode=["updates", "values"]`` (it
replaces a ``print_mode`` given with it, as LangGraph's does). ``invoke`` prints too:
``app.invoke(inputs, print_mode="updates")`` returns the final state and prints each
node's update on the way.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, Union

from rag.errors import ValidationError
from rag.graph._subgraphs import Nested

__all__ = ["STREAM_MODES", "StreamMode", "stream_modes", "print_modes", "print_chunk"]

STREAM_MODES = ("values", "updates", "messages", "custom", "checkpoints", "tasks", "debug", "tools")
StreamMode = Union[str, Sequence[str]]

#: What ``debug=True`` prints (LangGraph's).
DEBUG_PRINT_MODES = frozenset({"updates", "values"})


def _mode_list(stream_mode: StreamMode, option: str) -> list[str]:
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
    unknown = [m for m in modes if m not in STREAM_MODES]
    if unknown:
        raise ValidationError(f"{option} {unknown[0]!r} is not supported; use one of {list(STREAM_MODES)} "
                              "or a list of them")
    return modes


def stream_modes(stream_mode: StreamMode) -> tuple[frozenset[str], bool]:
    """The modes ``stream_mode`` asks for, and whether it named one (chunks then come alone,
    not as ``(mode, chunk)`` pairs). Raises ``ValueError`` naming an unknown mode, or on
    an empty list."""
    modes = _mode_list(stream_mode, "stream_mode")
    if not modes:
        raise ValidationError(f"stream_mode {stream_mode!r} is not supported; use one of {list(STREAM_MODES)} "
                              "or a list of them")
    return frozenset(modes), isinstance(stream_mode, str)


def print_modes(options: Mapping[str, Any]) -> frozenset[str]:
    """The modes a run's keyword ``options`` ask to print: ``print_mode`` (None or ``()``:
    none), or LangGraph's two with ``debug=True``. Raises ``ValueError`` naming an
    unknown mode."""
    if options.get("debug"):
        return DEBUG_PRINT_MODES
    print_mode = options.get("print_mode")
    return frozenset(_mode_list(print_mode, "print_mode")) if print_mode else frozenset()


def print_chunk(graph: Any, emit: Any, printed: frozenset[str], subgraphs: bool) -> None:
    """Print ``emit``'s chunk, as the caller of ``graph`` would get it, if its mode is one
    of ``printed`` (see the module's docstring for the format)."""
    if emit.mode not in printed:
        return
    nested = type(emit) is Nested
    chunk = emit.chunk if nested else graph._visible_chunk(emit)
    label = f"\033[1m[{emit.mode}]\033[0m"
    if subgraphs and nested and emit.ns:
        label += f" \033[1;30;33m[graph={emit.ns}]\033[0m"  # LangGraph's escape for yellow, byte for byte
    print(f"{label} {chunk!r}")
