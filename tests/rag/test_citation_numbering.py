"""Citation numbers a reader can follow: an answer cites [1], [2], ... in order of first
citation, whatever rank its passages had, and every number still names the passage it
named before (offline and model answers, whole or streamed, rag ask --json)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.chains import ExtractiveAnswerer, create_retrieval_chain
from rag.chains.citations import CitationNumbering, cited_numbers, cited_units, renumber_citations
from rag.documents import Document
from rag.index import Answer, Index
from rag.index.citation_order import in_citation_order
from rag.models import FakeListChatModel

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "wolves.md": "# Wolves\n\nWolves hunt in packs across the northern forests.\n",
    "otters.md": "# Otters\n\nOtters hold hands while they sleep on the water.\n",
    "owls.md": "# Owls\n\nOwls turn their heads almost all the way around.\n",
    "bees.md": "# Bees\n\nBees dance to tell the hive where the flowers are.\n",
}
QUESTION = "Do otters hold hands when they sleep, and how do bees tell the hive where flowers are?"


def passage(text, n):
    return Document(text, {"source": f"p{n}.md", "n": n})


CONTEXT = [passage("Wolves hunt in packs.", 1), passage("Owls turn their heads around.", 2),
           passage("Otters hold hands while they sleep.", 3), passage("Bees dance to show the flowers.", 4)]


def quotes_by_passage(answer_text, context):
    """Each quoted unit with the text of the passage it cites, by the passages' numbers."""
    by_number = {document.metadata["n"]: document.page_content for document in context}
    return [(quote, by_number[n]) for quote, numbers in cited_units(answer_text) for n in numbers]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("numbering")
    (folder / "docs").mkdir()
    for name, text in PAGES.items():
        (folder / "docs" / name).write_text(text)
    built = Index.create(folder / "index", embeddings="hashing")
    built.update([str(folder / "docs")])
    return built


def test_an_offline_answer_cites_its_passages_as_1_2_in_order_of_first_citation():
    raw = create_retrieval_chain(lambda _: CONTEXT, ExtractiveAnswerer()).invoke({"input": QUESTION})
    assert cited_numbers(raw["answer"]) not in ([1], [1, 2])  # the passages cited are not the first retrieved
    answer = Answer.from_result(raw)
    assert cited_numbers(answer.answer) == list(range(1, len(cited_numbers(raw["answer"])) + 1))


def test_each_renumbered_citation_names_the_passage_it_named_before():
    raw = create_retrieval_chain(lambda _: CONTEXT, ExtractiveAnswerer()).invoke({"input": QUESTION})
    answer = Answer.from_result(raw)
    assert quotes_by_passage(answer.answer, answer.context) == quotes_by_passage(raw["answer"], raw["context"])
    assert [c.text for c in answer.citations] == [quote for quote, _ in quotes_by_passage(raw["answer"], CONTEXT)]


def test_sources_are_listed_cited_first_in_citation_order_then_the_others_in_retrieval_order():
    raw = {"input": "q", "context": CONTEXT, "answer": "Otters hold hands while they sleep. [3] Wolves hunt in packs. [1]"}
    answer = Answer.from_result(raw)
    assert [(s.n, s.cited, s.source) for s in answer.sources] == [
        (1, True, "p3.md"), (2, True, "p1.md"), (3, False, "p2.md"), (4, False, "p4.md")]
    assert [d.metadata["n"] for d in answer.context] == [2, 3, 1, 4]  # the context keeps its retrieval order


def test_the_passages_given_are_left_unchanged():
    Answer.from_result({"input": "q", "context": CONTEXT, "answer": "Owls turn their heads around. [2]"})
    assert [d.metadata["n"] for d in CONTEXT] == [1, 2, 3, 4]


def test_a_models_answer_is_renumbered_and_its_citation_to_a_missing_passage_removed(index):
    llm = FakeListChatModel(responses=["Bees dance [3]. Otters hold hands [2][9]. Again bees [3]."])
    answer = index.ask("What do bees and otters do?", k=4, llm=llm)
    assert answer.answer == "Bees dance [1]. Otters hold hands [2]. Again bees [1]." and answer.invalid_citations == [9]


def test_an_index_answer_numbers_its_citations_consecutively_and_each_names_its_passage(index):
    answer = index.ask(QUESTION, k=4)
    numbers = cited_numbers(answer.answer)
    assert len(numbers) >= 2 and numbers == list(range(1, len(numbers) + 1))
    texts = {d.metadata["n"]: d.page_content for d in answer.context}
    assert all(" ".join(c.text.split()) in " ".join(texts[c.n].split()) for c in answer.citations)
    assert [s.n for s in answer.sources] == list(range(1, len(answer.context) + 1))


def test_the_chain_and_its_stream_give_the_numbered_answer_with_the_context_after_it(index):
    chain = index.chain(k=4)
    whole = chain.invoke({"input": QUESTION})
    chunks = list(chain.stream({"input": QUESTION}))
    keys = [key for chunk in chunks for key in chunk]
    assert keys[-1] == "context" and "answer" in keys[:-1]
    assert "".join(chunk.get("answer", "") for chunk in chunks) == whole["answer"] == index.ask(QUESTION, k=4).answer
    assert cited_numbers(whole["answer"])[:1] == [1]


def test_rag_ask_json_numbers_citations_and_sources_in_citation_order(index):
    out = subprocess.run([sys.executable, "-m", "rag", "ask", QUESTION, "--index", str(index.path), "--k", "4", "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    cited = list(dict.fromkeys(c["n"] for c in data["citations"]))
    assert len(cited) >= 2 and cited == list(range(1, len(cited) + 1))
    assert [s["n"] for s in data["sources"] + data["also_retrieved"]] == list(range(1, len(data["sources"])
                                                                                     + len(data["also_retrieved"]) + 1))
    pages = {s["n"]: s["source"] for s in data["sources"]}
    for citation in data["citations"]:
        assert " ".join(citation["text"].split()) in " ".join(Path(pages[citation["n"]]).read_text().split())
        assert data["answer"][citation["mark_start"]:citation["mark_end"]] == f"[{citation['n']}]"


def test_numbers_already_in_order_are_left_as_they_are():
    text = "Yes [1]. No [2, 1].\n\nCode\n[3]"
    assert renumber_citations(text, {1, 2, 3}) == (text, {1: 1, 2: 2, 3: 3}, [])


def test_a_numbering_refuses_a_valid_number_that_is_not_an_int():
    with pytest.raises(TypeError, match="'2'"):
        CitationNumbering({1, "2"})


# Answers made of quoted units, citation marks in their forms ([n], [n][m], [n, m], on a
# line of their own) and brackets that are no citation ("[4,8] and").
def _units(numbers):
    return st.lists(st.tuples(
        st.sampled_from(["Alpha beta.", "x[1] and y", "A range [4,8] and (3,9).", "Code:\nrun it", "Done", "a  b\t"]),
        st.lists(numbers, min_size=0, max_size=3),
        st.sampled_from([" ", "", "\n", ", "]),
        st.sampled_from([" ", "\n\n", ". ", ""])), max_size=6)


def _answer(units):
    pieces = []
    for text, numbers, join, after in units:
        marks = f"[{', '.join(map(str, numbers))}]" if join == ", " and numbers else \
            join.join(f"[{n}]" for n in numbers)
        pieces.append(text + (" " if marks and not marks.startswith("\n") else "") + marks + after)
    return "".join(pieces)


@settings(deadline=None, max_examples=200)
@given(_units(st.integers(0, 7)), st.data())
def test_a_streamed_answer_is_numbered_as_the_whole_answer_however_it_is_cut(units, data):
    text = _answer(units)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    numbering = CitationNumbering({1, 2, 3, 4, 5})
    streamed = "".join(numbering.feed(piece) for piece in pieces) + numbering.finish()
    assert streamed == renumber_citations(text, {1, 2, 3, 4, 5})[0]


@settings(deadline=None, max_examples=200)
@given(_units(st.integers(1, 5)))
def test_renumbered_citations_are_consecutive_and_name_the_same_passages(units):
    text = _answer(units)
    renumbered, numbers, invalid = renumber_citations(text, {1, 2, 3, 4, 5})
    assert cited_numbers(renumbered) == list(range(1, len(numbers) + 1)) and invalid == []
    old_of = {new: old for old, new in numbers.items()}
    assert [(quote, tuple(old_of[n] for n in cited)) for quote, cited in cited_units(renumbered)] == cited_units(text)
    assert renumber_citations(renumbered, set(range(1, 6))) == (renumbered, {n: n for n in numbers.values()}, [])


@settings(deadline=None, max_examples=200)
@given(_units(st.integers(0, 7)))
def test_citations_to_missing_passages_are_removed_and_the_rest_numbered_consecutively(units):
    text = _answer(units)
    renumbered, numbers, invalid = renumber_citations(text, {1, 2, 3, 4, 5})
    assert cited_numbers(renumbered) == list(range(1, len(numbers) + 1))
    assert invalid == [n for n in cited_numbers(text) if n not in {1, 2, 3, 4, 5}]
