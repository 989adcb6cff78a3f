"""Answer quality of an index: every question of a QA set asked as ``rag ask`` would ask it
(offline, or with a chat model), each answer checked by :mod:`rag.evaluation.answers`."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from rag.evaluation.answers import AnswerScore, AnswerTotals, QAItem, load_qa, score_answer, summarize_scores
from rag.index.config import ANSWER_K, check_k

if TYPE_CHECKING:
    from rag.index.core import Index
    from rag.runnables import Runnable

__all__ = ["AnswerBenchResult", "bench_answers"]


@dataclass
class AnswerBenchResult:
    """Per question: its :class:`~rag.evaluation.answers.AnswerScore` and the answer text;
    overall: :class:`~rag.evaluation.answers.AnswerTotals`. ``model``: "offline" or the
    chat model's name."""

    qa: str
    model: str
    scores: list[AnswerScore]
    answers: list[str]
    totals: AnswerTotals

    def to_json(self) -> dict[str, Any]:
        return {
            "qa": self.qa, "model": self.model, "overall": self.totals.to_json(),
            "questions": [{"question": s.question, "key_phrase": s.key_phrase, "source_cited": s.source_cited,
                           "units": s.units, "verbatim": s.verbatim, "invalid_citations": s.invalid,
                           "source_retrieved": s.retrieved, "cited_sources": s.cited_sources, "answer": answer}
                          for s, answer in zip(self.scores, self.answers)],
        }


def bench_answers(index: Index, qa: Union[str, os.PathLike, list[QAItem]], *, k: int = ANSWER_K,
                  llm: Optional[Runnable] = None) -> AnswerBenchResult:
    """Ask each question of ``qa`` (a QA.tsv path, or items) of ``index`` as ``rag ask``
    does (``k`` chunks, default 6, with their context), offline or with ``llm``, and check
    each answer."""
    check_k(k)
    items = load_qa(qa) if not isinstance(qa, list) else qa
    chain = index.chain(k=k, llm=llm)
    from rag.index.answer import Answer

    scores: list[AnswerScore] = []
    answers: list[str] = []
    began = time.perf_counter()
    for item in items:
        answer = Answer.from_result(chain.invoke({"input": item.question}))
        score = score_answer(item, answer.answer, answer.source_texts())
        # The answer's citations to missing sources were removed from its text: count them.
        score.invalid = sorted(set(score.invalid) | set(answer.invalid_citations))
        scores.append(score)
        answers.append(answer.answer)
    seconds = time.perf_counter() - began
    model = "offline" if llm is None else str(getattr(llm, "model_name", None) or getattr(llm, "model", "model"))
    return AnswerBenchResult(str(qa) if not isinstance(qa, list) else "(items)", model, scores, answers,
                             summarize_scores(scores, seconds))
