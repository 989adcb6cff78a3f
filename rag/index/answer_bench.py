"""Answer quality of an index: every question of a QA set asked as ``rag ask`` would ask it
(offline, or with a chat model), each answer checked by :mod:`rag.evaluation.answers`."""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

from rag.evaluation.answers import AnswerScore, AnswerTotals, QAItem, load_qa, score_answer, summarize_scores
from rag.errors import UsageError
from rag.index.config import ANSWER_K, check_k

if TYPE_CHECKING:
    from rag.index.core import Index
    from rag.runnables import Runnable, RunnableConfig

__all__ = ["AnswerBenchResult", "bench_answers"]


@dataclass
class AnswerBenchResult:
    """Per question: its :class:`~rag.evaluation.answers.AnswerScore` and the answer text;
    overall: :class:`~rag.evaluation.answers.AnswerTotals`. ``model``: "offline" or the
    chat model's name. ``run_ids``: each question's run id, when a ``config`` was given
    (its tracer's runs, to store feedback beside)."""

    qa: str
    model: str
    scores: list[AnswerScore]
    answers: list[str]
    totals: AnswerTotals
    run_ids: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "qa": self.qa, "model": self.model, "overall": self.totals.to_json(),
            "questions": [{"question": s.question, "key_phrase": s.key_phrase, "source_cited": s.source_cited,
                           "units": s.units, "verbatim": s.verbatim, "invalid_citations": s.invalid,
                           "source_retrieved": s.retrieved, "cited_sources": s.cited_sources, "answer": answer}
                          for s, answer in zip(self.scores, self.answers)],
        }


def bench_answers(index: Index, qa: Union[str, os.PathLike, list[QAItem]], *, k: int = ANSWER_K,
                  llm: Optional[Runnable] = None, config: Optional[RunnableConfig] = None) -> AnswerBenchResult:
    """Ask each question of ``qa`` (a QA.tsv path, or items) of ``index`` as ``rag ask``
    does (``k`` chunks, default 6, with their context), offline or with ``llm``, and check
    each answer. ``config`` (callbacks, tags, metadata) goes with every question, each run
    under an id of its own (in ``run_ids``) with its question's number in ``metadata``.
    Raises :class:`~rag.errors.UsageError` for an index that holds no chunks."""
    check_k(k)
    items = load_qa(qa) if not isinstance(qa, list) else qa
    if len(index) == 0:
        # Every answer would be "no answer" and every score 0: a wrong index, not a result.
        raise UsageError(f"the index {index.where} holds no chunks, so there is nothing to answer from: "
                         f"add sources first (rag index SOURCE --index ...)")
    chain = index.chain(k=k, llm=llm)
    from rag.index.answer import Answer

    scores: list[AnswerScore] = []
    answers: list[str] = []
    began = time.perf_counter()
    run_ids: list[str] = []
    for number, item in enumerate(items, start=1):
        asked: Optional[RunnableConfig] = None
        if config is not None:
            run_id = uuid.uuid4()
            run_ids.append(str(run_id))
            asked = {**config, "run_id": run_id, "metadata": {**config.get("metadata", {}), "question": number}}
        answer = Answer.from_result(chain.invoke({"input": item.question}, asked))
        score = score_answer(item, answer.answer, answer.source_texts())
        # The answer's citations to missing sources were removed from its text: count them.
        score.invalid = sorted(set(score.invalid) | set(answer.invalid_citations))
        scores.append(score)
        answers.append(answer.answer)
    seconds = time.perf_counter() - began
    model = "offline" if llm is None else str(getattr(llm, "model_name", None) or getattr(llm, "model", "model"))
    return AnswerBenchResult(str(qa) if not isinstance(qa, list) else "(items)", model, scores, answers,
                             summarize_scores(scores, seconds), run_ids)
