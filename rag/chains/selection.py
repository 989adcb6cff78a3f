"""Choosing the quoted units under the answer's length budget: a pure function of the
candidates' scores, kinds and texts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

__all__ = ["Selected", "select_candidates", "fit_block"]


@dataclass(frozen=True)
class Selected:
    """A chosen candidate: its ``index`` in the candidates given, and the ``texts`` quoted
    for its units (a block may be cut at a line to fit)."""

    index: int
    texts: tuple[str, ...]


def fit_block(block: str, room: int) -> str:
    """``block`` cut after its last whole line that fits in ``room`` characters ('' if none)."""
    if len(block) <= room:
        return block
    cut = block.rfind("\n", 0, room + 1)
    return block[:cut].rstrip() if cut > 0 else ""


def select_candidates(scores: np.ndarray, candidates: Sequence[Sequence[tuple[str, str]]], *,
                      max_units: int, max_chars: int, min_score: float,
                      relevance: Optional[np.ndarray] = None) -> list[Selected]:
    """The candidates to quote, best score first (ties keep the given order): each a list
    of ``(kind, text)`` units (a sentence and the blocks it introduces, or one block). A
    candidate is taken whole or not at all, when its ``relevance`` (default: its score) is
    at least ``min_score``, its
    units fit in what is left of ``max_units`` (int >= 1) and of ``max_chars`` characters
    (a block, never a sentence, may be cut at a line to fit); at most ``max_units`` units
    in all.

    >>> [s.index for s in select_candidates(np.array([0.3, 0.9, 0.1]), [[("sentence", "A.")],
    ...     [("sentence", "B.")], [("sentence", "C.")]], max_units=4, max_chars=100, min_score=0.2)]
    [1, 0]
    """
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    gate = np.asarray(scores if relevance is None else relevance, dtype=np.float64)
    chosen: list[Selected] = []
    units = chars = 0
    for index in order:
        if units >= max_units:
            break
        units_here = candidates[index]
        if gate[index] < min_score or units + len(units_here) > max_units:
            continue
        texts: list[str] = []
        room = max_chars - chars
        for kind, text in units_here:
            quoted = text if kind == "sentence" else fit_block(text, room)
            if not quoted or len(quoted) > room:
                break  # a sentence without the block it introduces is no answer
            texts.append(quoted)
            room -= len(quoted)
        if len(texts) < len(units_here):
            continue
        chosen.append(Selected(int(index), tuple(texts)))
        units += len(texts)
        chars += sum(map(len, texts))
    return chosen
