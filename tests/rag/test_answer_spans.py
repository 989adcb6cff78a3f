"""Answer units read from the block spans a loader recorded (metadata "blocks"), with the
plain-text rules as the fallback."""

from rag.chains import NO_ANSWER, ExtractiveAnswerer
from rag.chains.spans import span_units
from rag.chains.units import text_units
from rag.documents import Document


def spans_of(*parts: tuple[str, str]) -> tuple[str, list[list]]:
    """A text laid out as the loaders do (blocks apart by a blank line) and its spans."""
    text, blocks = "", []
    for kind, part in parts:
        if text:
            text += "\n\n"
        blocks.append([len(text), len(text) + len(part), kind])
        text += part
    return text, blocks


def test_a_sentence_ending_with_a_colon_keeps_the_list_that_follows_it():
    text, blocks = spans_of(("paragraph", "Data can be stored in any of these ways:"),
                            ("list", "In a plain file on disk.\nIn a database table."), ("paragraph", "That is all."))
    units = span_units(text, blocks)
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("list", 0), ("sentence", None)]


def test_a_list_keeps_its_items_inside_it():
    text, blocks = spans_of(("paragraph", "Pick one:"), ("list", "red\ngreen"))
    blocks.append([blocks[1][0], blocks[1][0] + 3, "item"])
    assert [u.text for u in span_units(text, blocks)] == ["Pick one:", "red\ngreen"]


def test_headings_from_spans_are_never_units_and_start_a_section():
    text, blocks = spans_of(("heading", "How do I add a column?"), ("paragraph", "Use ALTER TABLE. It is quick."))
    units = span_units(text, blocks)
    assert [(u.text, u.lead) for u in units] == [("Use ALTER TABLE.", 0), ("It is quick.", 1)]


def test_a_faq_question_title_is_not_an_answer_even_as_plain_text():
    text = "How do I add a column?\n\nUse ALTER TABLE ADD COLUMN to add one."
    assert [u.text for u in text_units(text)] == ["Use ALTER TABLE ADD COLUMN to add one."]


def test_text_no_block_covers_is_read_by_the_plain_text_rules():
    text = "Loose text before any block. It counts.\n\nA paragraph."
    units = span_units(text, [[text.index("A paragraph"), len(text), "paragraph"]])
    assert [u.text for u in units] == ["Loose text before any block.", "It counts.", "A paragraph."]


def test_malformed_blocks_fall_back_to_the_text():
    text = "Run this:\n\n  make test"
    for bad in ([[0, 999, "paragraph"]], [[0, 3, "marquee"]], "blocks", [[0, "3", "paragraph"]]):
        assert span_units(text, bad) is None
    answer = ExtractiveAnswerer().invoke({"input": "How do I run make test?",
                                          "context": [Document(text, metadata={"blocks": [[0, 999, "paragraph"]]})]})
    assert "make test" in answer


def test_a_short_line_starting_with_a_navigation_word_that_reads_as_a_sentence_is_a_sentence():
    sentence = "Index scans are faster than sequential scans when few rows match."
    assert [u.text for u in text_units(sentence)] == [sentence]


def test_the_answerer_quotes_a_list_with_the_sentence_that_announces_it():
    text, blocks = spans_of(("heading", "Storage"), ("paragraph", "Backups can be stored in any of these ways:"),
                            ("list", "on a tape drive\nin an object store\non a second disk"))
    document = Document(text, metadata={"blocks": blocks, "headings": [[0, "Storage", None]]})
    answer = ExtractiveAnswerer().invoke({"input": "How can backups be stored?", "context": [document]})
    assert "any of these ways:" in answer and "in an object store" in answer


def test_a_one_word_or_punctuation_only_question_gets_an_answer_or_no_answer_never_an_error():
    context = [Document("Backups are stored on tape. Restores read the tape.")]
    for question in ("backups", "?!", "...", "", "   "):
        answer = ExtractiveAnswerer().invoke({"input": question, "context": context})
        assert answer == NO_ANSWER or "[1]" in answer
    assert ExtractiveAnswerer().invoke({"input": "?!", "context": context}) == NO_ANSWER


def test_the_html_loaders_blocks_give_a_pages_list_to_the_sentence_announcing_it():
    from pathlib import Path

    from loaders import ReadableHTMLLoader
    from rag.chains.candidates import document_units

    page = ReadableHTMLLoader(Path(__file__).parent / "data" / "pgdoc" / "ddl-alter.html").load()[0]
    assert page.metadata.get("blocks")
    units = document_units(page)
    listed = next(u for u in units if u.kind == "list" and "Add columns" in u.text)
    assert units[listed.owner].text == "You can:"
    assert all(u.text != page.metadata["title"] for u in units)


def test_a_caption_labels_the_table_after_it_and_is_not_quoted():
    text, blocks = spans_of(("paragraph", "The lock modes conflict as follows:"), ("paragraph", "Table 13.2. Lock Modes"),
                            ("table", "Mode | Conflicts\nSHARE | ROW EXCLUSIVE"))
    units = span_units(text, blocks)
    assert [(u.kind, u.owner, u.label) for u in units] == [("sentence", None, ""), ("table", 0, "Table 13.2. Lock Modes")]


def test_the_pages_title_line_with_its_description_is_a_heading_not_a_quote():
    text, blocks = spans_of(("paragraph", "pg_dump \u2014 extract a database into a script file"),
                            ("paragraph", "pg_dump is a utility for backing up a database."))
    units = span_units(text, blocks, titles=["pg_dump"])
    assert [(u.text, u.lead) for u in units] == [("pg_dump is a utility for backing up a database.", 0)]


def definition_list(*entries: tuple[str, str]) -> tuple[str, list[list]]:
    """A definition list laid out as the HTML loader does: each term on its own line, its
    definition's paragraph on the next; only the list and the paragraphs are spans."""
    text, blocks = "", []
    for term, definition in entries:
        text += ("\n\n" if text else "") + term + "\n"
        blocks.append([len(text), len(text) + len(definition), "paragraph"])
        text += definition
    return text, [[0, len(text), "definitions"], *blocks]


def test_a_definitions_first_sentence_is_quoted_with_its_term_and_labels_the_rest():
    text, blocks = definition_list(("git cherry-pick master", "Apply the change at the tip of master. It makes a commit."),
                                   ("--abort", "Cancel the operation."))
    units = span_units(text, blocks)
    assert [(u.text, u.label) for u in units] == [
        ("git cherry-pick master Apply the change at the tip of master.", "git cherry-pick master"),
        ("It makes a commit.", "git cherry-pick master"),
        ("--abort Cancel the operation.", "--abort")]
    assert " ".join(text[units[0].start:units[0].end].split()) == units[0].text  # quoted verbatim


def test_an_example_right_after_its_term_is_labelled_by_it():
    text = "Undo a commit and redo\n$ git reset --soft HEAD^\n$ git commit -c ORIG_HEAD"
    code = text.index("$")
    units = span_units(text, [[0, len(text), "definitions"], [code, len(text), "code"]])
    assert [(u.kind, u.label) for u in units] == [("code", "Undo a commit and redo")]


def test_a_definition_list_split_across_joined_chunks_keeps_its_terms():
    first, first_blocks = definition_list(("--soft", "Keeps the changes staged."))
    second, second_blocks = definition_list(("--hard", "Discards the changes."))
    text = first + "\n\n" + second
    shift = len(first) + 2
    blocks = first_blocks + [[start + shift, end + shift, kind] for start, end, kind in second_blocks]
    assert [u.text for u in span_units(text, blocks)] == ["--soft Keeps the changes staged.",
                                                          "--hard Discards the changes."]


def test_a_list_of_statements_no_sentence_announces_is_read_as_sentences():
    items = "Changes in the working tree not yet staged.\nChanges between the index and the last commit."
    text, blocks = spans_of(("code", "$ git diff\n$ git diff --cached"), ("list", items))
    units = span_units(text, blocks)
    assert [u.kind for u in units] == ["code", "sentence", "sentence"]


def test_a_list_of_values_stays_one_unit():
    text, blocks = spans_of(("list", "on\noff\nauto"))
    assert [u.kind for u in span_units(text, blocks)] == ["list"]


def test_for_how_do_i_a_definition_headed_by_a_command_line_counts_as_an_example():
    from rag.chains.candidates import build_candidates
    from rag.chains.features import FEATURES
    from rag.embeddings import HashingEmbeddings

    text, blocks = definition_list(("git push origin :topic", "Find the ref topic in origin and delete it."),
                                   ("Deleting by hand", "Find the ref topic in origin and delete it with care."))
    candidates = build_candidates("How do I delete a remote branch?", [Document(text, metadata={"blocks": blocks})],
                                  HashingEmbeddings())
    fit = candidates.features[:, FEATURES.index("block_fit")]
    assert fit.tolist() == [1.0, 0.0]


def test_a_term_at_the_end_of_a_definition_list_does_not_reach_the_paragraph_after_it():
    contents = "26.1.1. Restoring the Dump\n26.1.2. Using pg_dumpall"
    text = f"{contents}\n\nThe idea behind this dump method is simple."
    units = span_units(text, [[0, len(contents), "definitions"], [len(contents) + 2, len(text), "paragraph"]])
    assert [(u.text, u.label) for u in units] == [("The idea behind this dump method is simple.", "")]
    assert text[units[0].start:units[0].end] == units[0].text


def test_a_definition_written_as_a_fragment_is_quoted_with_its_term():
    text, blocks = definition_list(("require", "only try an encrypted connection"),
                                   ("prefer", "Try an encrypted connection first. Fall back to plain."))
    units = span_units(text, blocks)
    assert [u.text for u in units] == ["require only try an encrypted connection",
                                       "prefer Try an encrypted connection first.", "Fall back to plain."]
    assert all(" ".join(text[u.start:u.end].split()) == u.text for u in units)


from hypothesis import given, settings, strategies as st  # noqa: E402

_WORDS = st.sampled_from(["the", "index", "git", "push", "origin", "table", "runs", "--abort", "work_mem", "(integer)"])
_FRAGMENT = st.lists(_WORDS, min_size=1, max_size=9).map(" ".join)
_SENTENCES = st.lists(_FRAGMENT.map(lambda words: words.capitalize() + "."), min_size=1, max_size=3).map(" ".join)


@st.composite
def laid_out_pages(draw):
    """A page as the HTML loader lays it out: headings, paragraphs (sentences or fragments),
    code, lists, and definition lists whose terms no block covers."""
    text, blocks = "", []

    def add(part, kind=None):
        nonlocal text
        text += ("\n\n" if text else "")
        if kind:
            blocks.append([len(text), len(text) + len(part), kind])
        text += part

    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["heading", "paragraph", "code", "list", "definitions"]))
        if kind == "definitions":
            start = len(text) + (2 if text else 0)
            entries = draw(st.lists(st.tuples(_FRAGMENT, st.one_of(_SENTENCES, _FRAGMENT)), min_size=1, max_size=3))
            inner, spans = "", []
            for term, definition in entries:
                inner += ("\n\n" if inner else "") + term + "\n"
                spans.append([start + len(inner), start + len(inner) + len(definition), "paragraph"])
                inner += definition
            add(inner, "definitions")
            blocks.extend(spans)
        elif kind == "paragraph":
            add(draw(st.one_of(_SENTENCES, _FRAGMENT)), kind)
        elif kind in ("code", "list"):
            add("\n".join(draw(st.lists(_FRAGMENT, min_size=1, max_size=3))), kind)
        else:
            add(draw(_FRAGMENT), kind)
    return text, blocks


@settings(deadline=None, max_examples=200)
@given(laid_out_pages())
def test_every_sentence_read_from_spans_is_the_text_at_its_offsets(page):
    text, blocks = page
    for unit in span_units(text, blocks):
        if unit.kind == "sentence":  # quoted on one line, its white space collapsed
            assert " ".join(text[unit.start:unit.end].split()) == unit.text
        else:  # a block is quoted as it stands
            assert text[unit.start:unit.end] == unit.text


def test_a_term_does_not_reach_past_a_skipped_block_or_a_dropped_opening():
    after_code = "work_mem\n\non\n\nSets the base maximum amount of memory."
    numbered = "work_mem\n\n1. Sets the memory used by sorts."
    for text, blocks in ((after_code, [[0, len(after_code), "definitions"], [10, 12, "code"],
                                       [14, len(after_code), "paragraph"]]),
                         (numbered, [[0, len(numbered), "definitions"], [10, len(numbered), "paragraph"]])):
        for unit in span_units(text, blocks):
            assert " ".join(text[unit.start:unit.end].split()) == unit.text


def test_a_block_kind_that_is_not_a_string_falls_back_to_the_text():
    assert span_units("Run this now.", [[0, 13, ["paragraph"]]]) is None
