"""``rag chat``: a conversation over an index (a thin shell over :class:`rag.index.ChatSession`).

On a terminal it prompts for each question; with piped input it answers each non-blank
line in turn, echoing it as ``> question`` so the transcript reads on its own. Each answer
is followed by its numbered sources, as ``rag ask`` prints them.

With ``--memory PATH`` the conversation has a long-term memory that outlives sessions
(:class:`rag.memory.long_term.LongTermMemory` on a SQLite store): "remember that ..."
keeps a fact for ``--user``, and each question shows the facts relevant to it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, TextIO

from rag.cli.common import RagCliError, add_allow_embeddings, add_index_arguments, open_index
from rag.index.config import ANSWER_K

if TYPE_CHECKING:
    from rag.memory.long_term import LongTermMemory

__all__ = ["add_chat_parser", "run_chat"]


def add_chat_parser(commands: argparse._SubParsersAction, positive_int: Callable[[str], int]) -> None:
    chat = commands.add_parser("chat", help="a conversation over the index: follow-up questions, numbered sources, "
                               "history kept per session (in <index>/chats/ for a folder index)")
    add_index_arguments(chat)
    chat.add_argument("--session", default="default", metavar="NAME",
                      help="the conversation to continue or start (default 'default'); kept in <index>/chats/NAME.jsonl "
                           "(an index in a database: in the user's cache folder, $RAG_CACHE_DIR/chats/)")
    chat.add_argument("--k", type=positive_int, default=ANSWER_K, help=f"chunks retrieved per question (default {ANSWER_K})")
    chat.add_argument("--model", metavar="NAME", help="an OpenAI-compatible chat model (it rewrites follow-ups and "
                      "answers); without it answers are extracted offline")
    chat.add_argument("--base-url", metavar="URL", help="the model server (default: OpenAI, or $OPENAI_BASE_URL)")
    chat.add_argument("--memory", metavar="PATH", help="a SQLite file of facts kept across sessions: a line "
                      "'remember that ...' stores one, and the facts relevant to each question are shown with its answer "
                      "(and given to --model); embedded with the index's model")
    chat.add_argument("--user", metavar="NAME", help="whose facts --memory keeps and recalls (default: $USER)")
    add_allow_embeddings(chat)
    chat.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")


def _questions(stdin: TextIO, interactive: bool) -> Iterator[str]:
    if interactive:
        while True:
            try:
                line = input("> ")
            except EOFError:
                print(file=sys.stderr)
                return
            if line.strip():
                yield line.strip()
        return
    for line in stdin:
        if line.strip():
            print(f"> {line.strip()}")
            yield line.strip()


def _memory_user(args: argparse.Namespace) -> str:
    if args.user is not None:
        if not args.user or "." in args.user:
            raise RagCliError(f"--user {args.user!r}: a name without '.' is needed (letters, digits, '-', '_')")
        return args.user
    # $USER may hold a '.' (a namespace label cannot): the default only is made to fit.
    return (os.environ.get("USER") or "default").replace(".", "_")


def run_chat(args: argparse.Namespace, stdin: Optional[TextIO] = None) -> int:
    if args.base_url and not args.model:
        raise RagCliError("--base-url needs --model NAME: without a model the answer is extracted offline")
    if args.user is not None and args.memory is None:
        raise RagCliError("--user needs --memory PATH: it names whose facts the memory file keeps")
    index = open_index(args, warm_up=True)
    if args.memory is None:
        return _converse(args, index, None, stdin)
    from rag.memory.long_term import LongTermMemory

    with LongTermMemory.open(args.memory, index.embeddings, _memory_user(args)) as memory:
        return _converse(args, index, memory, stdin)


def _recalled(memory: "LongTermMemory", question: str) -> list[str]:
    facts = [item.value["text"] for item in memory.recall(question)]
    if facts:
        print("From memory:\n" + "\n".join(f"  - {fact}" for fact in facts))
    return facts


def _converse(args: argparse.Namespace, index: Any, memory: Optional["LongTermMemory"],
              stdin: Optional[TextIO]) -> int:
    from rag.cli.output import print_answer

    llm = None
    if args.model is not None:
        from rag.models import ChatOpenAI

        llm = ChatOpenAI(model=args.model, base_url=args.base_url)
    session = index.chat(args.session, llm=llm, k=args.k)
    stdin = stdin or sys.stdin
    interactive = stdin.isatty()
    if interactive:
        earlier = len(session.messages)
        print(f"rag chat: session {args.session!r}" + (f", {earlier} earlier messages" if earlier else ", new")
              + "; Ctrl-D to end", file=sys.stderr)
    for question in _questions(stdin, interactive):
        fact = memory.fact_in(question) if memory is not None else None
        if memory is not None and fact is not None:  # "remember that ...": kept for later sessions, not a question
            print(f"Remembered: {memory.remember(fact).value['text']}\n")
            continue
        facts = _recalled(memory, question) if memory is not None else []
        if facts and llm is not None:  # the model answers in the light of them (the offline answerer quotes the index)
            question += "\n\n(What you know about me: " + "; ".join(facts) + ")"
        answer = None
        streamed = False
        for piece in session.stream(question):
            if isinstance(piece, str):
                if llm is not None:  # a model's answer arrives in pieces: show them as they come
                    sys.stdout.write(piece)
                    sys.stdout.flush()
                    streamed = True
            else:
                answer = piece
        if streamed:
            sys.stdout.write("\n")
        assert answer is not None  # a session's stream ends with the whole Answer
        print_answer(answer, streamed=streamed)
        print()
    return 0
