"""Fit the offline answerer's feature weights on training question sets and report them,
and the sets the fit never saw, separately.

Each question is retrieved once as ``rag ask`` retrieves it (``k`` chunks with their
context), its candidate quotes and their features computed once; then each weight setting
is only a weighted sum, a selection and the checks of ``rag bench --answers`` (key phrase,
expected source cited, citation precision). The search is coordinate ascent from the
starting weights (the shipped file unless ``--start``): each weight in turn is tried at
a grid of values of the sign its feature's definition gives it (brevity a penalty, the
rest credits), a change kept when it raises training key phrases + expected sources
cited and no training set loses more than one question of either against the start;
among equal scores the setting closest to the start wins. ``min_relevance`` (when the
context answers at all) is kept from the start: no set holds a question its context
cannot answer, so they would only push it down. Held-out sets are only reported, never
looked at by the search.

Usage (the indexes as in docs/benchmarks/answers.md)::

    python benchmarks/fit_answer_weights.py \\
        --train pg:benchmarks/data/postgresql_qa.tsv --train git:benchmarks/data/git_qa.tsv \\
        --heldout pg:benchmarks/data/postgresql_qa_heldout.tsv \\
        --heldout debref:benchmarks/data/debian_reference_qa_heldout.tsv \\
        --out rag/chains/answer_weights.json --report results/answer_weights.md
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.chains.candidates import Candidates  # noqa: E402
from rag.chains.extractive import ExtractiveAnswerer, format_passages  # noqa: E402
from rag.chains.features import FEATURES  # noqa: E402
from rag.chains.weights import AnswerWeights, default_weights  # noqa: E402
from rag.evaluation.answers import QAItem, load_qa, score_answer  # noqa: E402

# Values tried for each weight, and for the score a quote needs. Each weight keeps the sign
# its feature's definition gives it: brevity is a penalty, every other feature a credit. A
# fit on a few dozen questions must not turn a penalty into a bonus.
_CREDITS = (0.0, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.55, 0.7)
_PENALTIES = tuple(-value for value in _CREDITS)
_NEGATIVE = frozenset({"brevity"})


@dataclass
class Question:
    item: QAItem
    context: list
    candidates: Candidates
    seconds: float  # building the candidates: unit reading, embedding, features


@dataclass
class QuestionSet:
    name: str
    questions: list[Question]


def load_set(spec: str, k: int) -> QuestionSet:
    """``INDEX:QA.tsv``: every question retrieved once and its candidates built."""
    from rag.index import Index
    from rag.index.answer import IndexRetriever, passages
    from rag.index.request import SearchRequest

    index_path, _, qa_path = spec.partition(":")
    if not qa_path:
        raise SystemExit(f"expected INDEX:QA.tsv, got {spec!r}")
    index = Index.open(index_path)
    defaults = inspect.signature(Index.chain).parameters  # the context rag ask reads
    retriever = IndexRetriever(index, request=SearchRequest("", k=k, search_type="hybrid"))
    sources = passages(retriever, get_by_ids=index.get_by_ids, window=defaults["window"].default,
                       openings=defaults["openings"].default, contents=defaults["contents"].default)
    answerer = ExtractiveAnswerer(embeddings=index.embeddings)
    questions = []
    for item in load_qa(qa_path):
        context = sources.invoke(item.question)
        began = time.perf_counter()
        candidates = answerer.candidates(item.question, context)
        questions.append(Question(item, context, candidates, time.perf_counter() - began))
    return QuestionSet(Path(qa_path).stem, questions)


@dataclass
class Figures:
    key: int
    cited: int
    retrieved: int
    verbatim: int
    units: int
    questions: int
    per_question: list[tuple[bool, bool]]

    def line(self) -> str:
        n = self.questions
        precision = f"{self.verbatim / self.units:.1%} ({self.verbatim}/{self.units})" if self.units else "n/a"
        return (f"{self.key / n:.1%} ({self.key}/{n}) | {self.cited / n:.1%} ({self.cited}/{n}) | "
                f"{self.retrieved / n:.1%} | {precision}")


def evaluate(question_set: QuestionSet, weights: AnswerWeights) -> Figures:
    from rag.index.answer import Answer

    answerer = ExtractiveAnswerer(weights=weights)
    key = cited = retrieved = verbatim = units = 0
    per_question = []
    for question in question_set.questions:
        text = "".join(format_passages(answerer.choose(question.candidates)))
        answer = Answer.from_result({"input": question.item.question, "context": question.context, "answer": text})
        score = score_answer(question.item, answer.answer, answer.source_texts())
        key += score.key_phrase
        cited += score.source_cited
        retrieved += score.retrieved
        verbatim += score.verbatim
        units += score.units
        per_question.append((score.key_phrase, score.source_cited))
    return Figures(key, cited, retrieved, verbatim, units, len(question_set.questions), per_question)


def _objective(sets: list[QuestionSet], weights: AnswerWeights, floor: dict[str, tuple[int, int]]) -> Optional[int]:
    """Training key phrases + sources cited; None when a set falls more than one question
    below ``floor`` (its start figures) in either."""
    total = 0
    for question_set in sets:
        figures = evaluate(question_set, weights)
        start_key, start_cited = floor[question_set.name]
        if figures.key < start_key - 1 or figures.cited < start_cited - 1:
            return None
        total += figures.key + figures.cited
    return total


def _distance(weights: AnswerWeights, start: AnswerWeights) -> float:
    return float(np.abs(weights.vector - start.vector).sum())


def fit(train: list[QuestionSet], start: AnswerWeights, rounds: int) -> tuple[AnswerWeights, int, int]:
    """Coordinate ascent from ``start`` (see the module docstring): the fitted weights, and
    the objective at the start and at the end."""
    floor = {s.name: (f.key, f.cited) for s in train for f in [evaluate(s, start)]}
    best, best_score = start, _objective(train, start, floor) or 0
    first = best_score
    for _ in range(rounds):
        improved = False
        # min_relevance is kept from the start: the sets hold no question the context cannot
        # answer, so they reward answering everything and say nothing about when to refuse.
        for name in FEATURES:
            values = _PENALTIES if name in _NEGATIVE else _CREDITS
            for value in values:
                trial = best.replace(**{name: value})
                score = _objective(train, trial, floor)
                if score is None:
                    continue
                if score > best_score or (score == best_score and _distance(trial, start) < _distance(best, start)):
                    improved = improved or score > best_score
                    best, best_score = trial, score
        if not improved:
            break
    return best, first, best_score


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", action="append", default=[], metavar="INDEX:QA.tsv", help="a training set")
    parser.add_argument("--heldout", action="append", default=[], metavar="INDEX:QA.tsv",
                        help="a set only reported, never fitted on")
    parser.add_argument("--k", type=int, default=6, help="chunks retrieved per question (default 6, as rag ask)")
    parser.add_argument("--start", type=Path, help="starting weights (default: the shipped ones)")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the weights (default 3)")
    parser.add_argument("--out", type=Path, help="write the fitted weights here (JSON)")
    parser.add_argument("--report", type=Path, help="write the report here (Markdown) as well as printing it")
    args = parser.parse_args(argv)
    if not args.train:
        parser.error("give at least one --train INDEX:QA.tsv")
    start = AnswerWeights.load(args.start) if args.start else default_weights()
    began = time.perf_counter()
    train = [load_set(spec, args.k) for spec in args.train]
    heldout = [load_set(spec, args.k) for spec in args.heldout]
    prepared = time.perf_counter() - began
    fitted, first, last = fit(train, start, args.rounds)
    names = ", ".join(s.name for s in train)
    fitted = AnswerWeights(**{**{name: getattr(fitted, name) for name in (*FEATURES, "min_relevance")},
                              "notes": f"fitted by benchmarks/fit_answer_weights.py on {names} "
                                       f"(k={args.k}; key phrases + sources cited {first} -> {last}); "
                                       f"min_relevance kept from the start, not fitted"})
    lines = ["# Answer weights: fitted on training sets, reported on held-out sets", "",
             f"Training: {names}. Held out (never fitted on): {', '.join(s.name for s in heldout) or 'none'}.",
             f"Objective (training key phrases + expected sources cited): {first} -> {last}.", "",
             "| weight | start | fitted |", "|---|---|---|"]
    lines += [f"| {name} | {getattr(start, name):g} | {getattr(fitted, name):g} |" for name in (*FEATURES, "min_relevance")]
    for title, sets in (("Training sets", train), ("Held-out sets", heldout)):
        if not sets:
            continue
        lines += ["", f"## {title}", "", "| set | weights | key phrase | expected source cited | retrieved | "
                  "citation precision |", "|---|---|---|---|---|---|"]
        for question_set in sets:
            before, after = evaluate(question_set, start), evaluate(question_set, fitted)
            lines.append(f"| {question_set.name} | start | {before.line()} |")
            lines.append(f"| {question_set.name} | fitted | {after.line()} |")
            changed = [(q.item.question, b, a) for q, b, a in zip(question_set.questions, before.per_question,
                                                                   after.per_question) if a != b]
            lines += [f"|  | {'gained' if sum(a) > sum(b) else 'lost' if sum(a) < sum(b) else 'changed'} | "
                      f"key {int(b[0])}->{int(a[0])}, cited {int(b[1])}->{int(a[1])} | {question[:60]} | | |"
                      for question, b, a in changed]
    every = [q for s in (*train, *heldout) for q in s.questions]
    answerer = ExtractiveAnswerer(weights=fitted)
    choose_began = time.perf_counter()
    for question in every:
        format_passages(answerer.choose(question.candidates))
    choosing = (time.perf_counter() - choose_began) / max(1, len(every))
    building = sum(q.seconds for q in every) / max(1, len(every))
    lines += ["", f"Answer extraction per question (mean of {len(every)}): candidates and features {building:.3f} s, "
                  f"scoring and choosing {choosing * 1000:.1f} ms; retrieval and preparation of all sets {prepared:.0f} s."]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(report, encoding="utf-8")
    if args.out:
        fitted.save(args.out)
        print(f"weights written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
