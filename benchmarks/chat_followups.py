"""Follow-up questions in `rag chat`, offline: how often the pages that answer them are retrieved.

    python benchmarks/chat_followups.py --index /tmp/pgdoc-chat            # an index of the manual
    python benchmarks/chat_followups.py --index /tmp/pgdoc-chat --build    # build it first (minutes)
    rag index /usr/share/doc/git-doc --glob "*.html" --index /tmp/gitdoc-chat
    python benchmarks/chat_followups.py --index /tmp/gitdoc-chat --conversations benchmarks/data/git_conversations.json

The conversations (benchmarks/data/postgresql_conversations.json) are scripted over
Debian's postgresql-doc-15 HTML manual: a first question, then two follow-ups that lean on
it ("and how do I undo it?"). For each follow-up, the same index answers (hybrid search,
k=4, the extractive answerer, as `rag chat` without a model):

* as asked: the follow-up alone (what a chat without memory retrieves);
* condensed, last question: :func:`rag.index.condense_question` with ``turns=1``;
* condensed, two questions: ``turns=2``, what `rag chat` does (also run through a real
  :class:`rag.index.ChatSession` to check that it retrieves the same pages);
* condensed retrieval, answer scored against the question as asked: the alternative for the
  answer step;
* standalone, by hand: the question rewritten by a person (what a good model gives).

Reported: retrieved@4 (a page that answers it is among the sources), MRR (of the first such
page among the numbered sources), cited (the answer cites such a page).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from rag.chains import ExtractiveAnswerer  # noqa: E402
from rag.index import ChatSession, Index, condense_question  # noqa: E402
from rag.index.answer import Answer, IndexRetriever  # noqa: E402
from rag.index.passages import merge_sources  # noqa: E402
from rag.memory import InMemoryChatMessageHistory  # noqa: E402
from rag.messages import HumanMessage  # noqa: E402

MANUAL = Path("/usr/share/doc/postgresql-doc-15/html")
DATA = Path(__file__).resolve().parent / "data" / "postgresql_conversations.json"
K = 4


def pages(sources) -> list[str]:
    return [Path(source.source or "").name for source in sources]


def score(answer: Answer, expected: set[str]) -> tuple[bool, float, bool]:
    found = pages(answer.sources)
    rank = next((i for i, page in enumerate(found, start=1) if page in expected), None)
    return rank is not None, (1.0 / rank if rank else 0.0), bool(set(pages(answer.cited_sources)) & expected)


def answer_as_asked(index: Index, retrieve_with: str, question: str) -> Answer:
    documents = merge_sources(IndexRetriever(index, k=K).invoke(retrieve_with))
    text = ExtractiveAnswerer(embeddings=index.embeddings).invoke({"input": question, "context": documents})
    return Answer.from_result({"input": question, "context": documents, "answer": text})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--build", action="store_true", help=f"index {MANUAL} into --index first")
    parser.add_argument("--json", type=Path, help="write the per-question results here")
    parser.add_argument("--conversations", type=Path, default=DATA,
                        help="the scripted conversations (default: the PostgreSQL set; "
                             "benchmarks/data/git_conversations.json is a held-out set over git-doc)")
    args = parser.parse_args()
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    if args.build:
        began = time.perf_counter()
        summary = Index.open_or_create(args.index).update([str(MANUAL)])
        print(f"indexed {summary.added} pages in {time.perf_counter() - began:.0f} s")
    index = Index.open(args.index)
    conversations = json.loads(args.conversations.read_text())["conversations"]
    variants = ["as asked", "condensed, last question", "condensed, two questions (rag chat)",
                "condensed retrieval, answer scored on the question as asked", "standalone, by hand"]
    totals = {variant: [0, 0.0, 0] for variant in variants}
    rows, mismatches, followups = [], 0, 0
    for conversation in conversations:
        session = ChatSession(index, "bench", history=InMemoryChatMessageHistory(), k=K)
        session.ask(conversation[0]["question"])
        asked = [HumanMessage(conversation[0]["question"])]
        for turn in conversation[1:]:
            followups += 1
            question, expected = turn["question"], set(turn["pages"])
            condensed = condense_question(question, asked, turns=2)
            answers = {
                variants[0]: index.ask(question, k=K),
                variants[1]: index.ask(condense_question(question, asked, turns=1), k=K),
                variants[2]: index.ask(condensed, k=K),
                variants[3]: answer_as_asked(index, condensed, question),
                variants[4]: index.ask(turn["standalone"], k=K),
            }
            chat_answer = session.ask(question)
            mismatches += pages(chat_answer.sources) != pages(answers[variants[2]].sources)
            row = {"question": question, "condensed": condensed, "expected": sorted(expected)}
            for variant, answer in answers.items():
                hit, reciprocal, cited = score(answer, expected)
                totals[variant][0] += hit
                totals[variant][1] += reciprocal
                totals[variant][2] += cited
                row[variant] = {"retrieved": pages(answer.sources), "cited": pages(answer.cited_sources)}
            rows.append(row)
            asked.append(HumanMessage(question))
    print(f"{len(conversations)} conversations, {followups} follow-up questions, k={K}, "
          f"embeddings {index.info().embeddings}\n")
    print("| follow-ups answered from | retrieved@4 | MRR | cited |")
    print("| --- | ---: | ---: | ---: |")
    for variant in variants:
        hits, reciprocal, cited = totals[variant]
        print(f"| {variant} | {hits}/{followups} | {reciprocal / followups:.2f} | {cited}/{followups} |")
    print(f"\nChatSession retrieved other pages than condense+ask for {mismatches} follow-up(s)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
