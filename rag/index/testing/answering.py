"""Conformance: answers with numbered sources (``ask``, ``chain``) and conversations (``chat``)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from rag.index.testing._support import write_files

__all__ = ["AnswerTests", "ChatTests"]

#: Three pages of a database manual: "it" in a follow-up names the topic of the question before.
MANUAL = {
    "indexes.md": "# Indexes\n\nCREATE INDEX builds an index on a column so that lookups are faster.\n\n"
                  "DROP INDEX deletes an index; the table keeps its rows.\n",
    "tables.md": "# Tables\n\nCREATE TABLE makes a table. To remove a table, run DROP TABLE.\n",
    "backups.md": "# Backups\n\nBack up a database with pg_dump; restore the dump with psql.\n",
}

#: One HTML page: a chapter's opening, its contents list, then three sections, the last on
#: removing a widget, ending with the command that does it.
CABINET_QUESTION = "How do I remove a widget from a cabinet?"
CABINET_PAGE = (
    "<html><head><title>Cabinets</title></head><body><h1>3. Cabinets and widgets</h1>"
    "<p>This chapter explains widgets in a cabinet: how a widget sits in a cabinet, how to remove a "
    "widget from a cabinet and how a cabinet holds widgets.</p>"
    "<div class='toc'><p>3.1. Installing a Cabinet<br>3.2. Painting a Cabinet<br>3.3. Removing a Widget"
    "</p></div>"
    + "".join(f"<h2 id='s{n}'>3.{n}. {title}</h2><p>{body}</p>" for n, (title, body) in enumerate([
        ("Installing a Cabinet", "Cabinets arrive flat. " * 30),
        ("Painting a Cabinet", "Paint dries slowly in winter. " * 30),
        ("Removing a Widget", "Unscrew the panel first. To remove a widget, run this command:"),
    ], start=1))
    + "<pre>cabinet-tool --eject widget-7</pre></body></html>")


def _first_source(answer) -> str:
    return Path(answer.sources[0].source).name


class AnswerTests:
    """``ask(question)``: an answer citing ``[n]``, and the numbered sources it drew from."""

    def test_an_answer_cites_the_file_that_holds_it(self, indexed):
        answer = indexed.ask("Where do goldfish swim?")
        assert "ponds" in answer.answer and re.search(r"\[\d+\]", answer.answer)
        assert "fish.md" in [Path(source.source).name for source in answer.cited_sources]

    def test_every_citation_names_one_of_the_answers_sources(self, indexed):
        answer = indexed.ask("Where do goldfish swim?")
        numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
        assert numbers and numbers <= {source.n for source in answer.sources}
        assert answer.invalid_citations == []

    def test_k_bounds_the_passages_an_answer_draws_from(self, indexed):
        answer = indexed.ask("Where do goldfish swim?", k=1, window=0, openings=0, contents=0, named=0)
        assert [Path(source.source).name for source in answer.sources] == ["fish.md"]

    def test_a_chat_model_answers_from_the_retrieved_passages(self, indexed):
        from rag.models.fake import FakeListChatModel

        answer = indexed.ask("Where do goldfish swim?", llm=FakeListChatModel(responses=["In ponds [1]."]))
        assert answer.answer == "In ponds [1]."
        assert [Path(source.source).name for source in answer.cited_sources] == ["fish.md"]

    def test_the_chain_maps_an_input_to_its_context_and_answer(self, indexed):
        result = indexed.chain(k=2).invoke({"input": "Where do goldfish swim?"})
        assert result["input"] == "Where do goldfish swim?" and "ponds" in result["answer"]
        assert "fish.md" in [Path(d.metadata["source"]).name for d in result["context"]]

    def test_an_answer_follows_a_retrieved_contents_list_to_its_section(self, make_index, tmp_path):
        index = make_index(chunk_size=400, chunk_overlap=0)
        index.update([str(write_files(tmp_path / "docs", {"cabinets.html": CABINET_PAGE}))])
        assert index.search(CABINET_QUESTION, k=1)[0][0].id.endswith("-00000")  # the contents list
        assert "cabinet-tool --eject widget-7" in index.ask(CABINET_QUESTION, k=1, openings=0).answer
        assert "cabinet-tool" not in index.ask(CABINET_QUESTION, k=1, openings=0, contents=0).answer


class ChatTests:
    """``chat(session)``: a conversation whose follow-up questions are answered offline from
    the context of the turns before."""

    @pytest.fixture
    def manual(self, index, tmp_path):
        index.update([str(write_files(tmp_path / "manual", MANUAL))])
        return index

    @pytest.fixture
    def session(self):
        return f"s-{uuid.uuid4().hex[:8]}"

    def test_a_follow_up_is_answered_from_the_conversations_context(self, manual, session):
        chat = manual.chat(session)
        assert _first_source(chat.ask("How do I create an index?")) == "indexes.md"
        follow_up = chat.ask("and how do I remove it?")
        assert _first_source(follow_up) == "indexes.md"
        assert follow_up.question == "and how do I remove it?" and follow_up.cited_sources[0].n == 1

    def test_the_same_question_alone_is_answered_without_that_context(self, manual, session):
        assert _first_source(manual.ask("and how do I remove it?")) == "tables.md"
        assert _first_source(manual.chat(session).ask("and how do I remove it?")) == "tables.md"

    def test_a_session_remembers_its_turns(self, manual, session):
        chat = manual.chat(session)
        chat.ask("How do I create an index?")
        chat.ask("and how do I remove it?")
        messages = manual.chat(session).messages
        assert [m.type for m in messages] == ["human", "ai", "human", "ai"]
        assert messages[2].text == "and how do I remove it?"
