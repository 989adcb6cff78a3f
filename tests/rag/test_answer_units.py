"""Answer units: sentences, and whole code blocks, lists and tables, with the sentence
that introduces each block; never headings, navigation or a page's table of contents."""

from pathlib import Path

from loaders import ReadableHTMLLoader
from rag.chains.units import MAX_BLOCK_LINES, text_units

PGDOC = Path(__file__).parent / "data" / "pgdoc"


def kinds(text, headings=None):
    return [(unit.kind, unit.text) for unit in text_units(text, headings)]


def test_a_code_block_belongs_to_the_sentence_that_introduces_it():
    page = ReadableHTMLLoader(PGDOC / "indexes-intro.html").load()[0]
    units = text_units(page.page_content, page.metadata["headings"])
    code = next(u for u in units if u.text == "CREATE INDEX test1_id_index ON test1 (id);")
    assert code.kind == "code"
    assert units[code.owner].text == "The following command can be used to create an index on the id column, as discussed:"


def test_a_tables_head_and_body_are_one_unit_introduced_across_its_caption():
    text = ("Table 8.2 lists the available types.\n\nTable 8.2. Numeric Types\n\nName | Size\n\n"
            "smallint | 2 bytes\ninteger | 4 bytes")
    units = text_units(text)
    table = units[-1]
    assert table.kind == "table" and table.text == "Name | Size\n\nsmallint | 2 bytes\ninteger | 4 bytes"
    assert units[table.owner].text == "Table 8.2 lists the available types."


def test_headings_listed_in_metadata_are_never_units():
    text = "Creating a Database Quickly\n\nRun createdb to make one."
    assert kinds(text, [[0, "Creating a Database Quickly", None]]) == [("sentence", "Run createdb to make one.")]


def test_navigation_and_a_pages_table_of_contents_are_never_units():
    text = ("26.1.1. Restoring the Dump\n26.1.2. Using pg_dumpall\n\nPrev Up Home Next\n\n"
            "Next topic timeit\n\nThe Python Standard Library » Debugging and Profiling » timeit\n\nDumps are text.")
    assert kinds(text) == [("sentence", "Dumps are text.")]


def test_a_definition_terms_sentences_carry_it_as_their_label():
    text = "work_mem (integer)\n\nSets the base maximum amount of memory. The default is four megabytes."
    units = text_units(text)
    assert [(u.kind, u.label) for u in units] == [("sentence", "work_mem (integer)")] * 2


def test_a_command_after_an_unfinished_sentence_is_code_not_a_label():
    units = text_units("The general command form to restore a dump is\n\npsql -X dbname < dumpfile\n\nwhere dumpfile is a file.")
    assert [u.kind for u in units] == ["sentence", "code", "sentence"] and units[1].owner == 0


def test_indented_lines_and_markdown_fences_are_code():
    assert kinds("Try:\n\n    make test\n    make lint")[1] == ("code", "    make test\n    make lint")
    assert kinds("Try:\n\n```\nmake test\n```")[1][0] == "code"


def test_a_long_block_is_quoted_up_to_its_line_limit():
    rows = "\n".join(f"row{n} | value {n}" for n in range(40))
    table = text_units("Values:\n\n" + rows)[-1]
    assert table.kind == "table" and table.text.count("\n") == MAX_BLOCK_LINES - 1


def test_each_units_offsets_point_at_its_text():
    page = ReadableHTMLLoader(PGDOC / "ddl-alter.html").load()[0]
    text = page.page_content
    for unit in text_units(text, page.metadata["headings"]):
        assert " ".join(text[unit.start:unit.end].split()) == " ".join(unit.text.split())
