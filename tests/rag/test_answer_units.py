"""Answer units: sentences, and whole code blocks, lists and tables, with the sentence
that introduces each block; never headings, navigation or a page's table of contents."""

from pathlib import Path

import pytest

from loaders import ReadableHTMLLoader
from rag.chains.units import MAX_BLOCK_LINES, is_synopsis, purpose_subject, split_sentences, text_units, unit_sections

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
    units = text_units("The general command form to restore a dump is\n\npsql -X dbname < dumpfile\n\nIt reads a file.")
    assert [u.kind for u in units] == ["sentence", "code", "sentence"] and units[1].owner == 0


def test_the_rest_of_a_sentence_after_a_code_block_is_no_unit():
    text = ("An example of this behaviour is that in the query\n\nSELECT * FROM products;\n\nthe outer SELECT would return the old prices, "
            "while in\n\nSELECT * FROM t;\n\nthe outer SELECT would return the new data. Both run once.")
    units = text_units(text)
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("code", None), ("sentence", None)]
    assert units[-1].text == "Both run once."


def test_a_chunk_opening_mid_sentence_gives_no_unit_for_that_part():
    assert kinds("and the row is locked. Updates wait for it.") == [("sentence", "Updates wait for it.")]


def test_a_sentence_opening_with_an_identifier_in_lower_case_is_a_unit():
    assert kinds("pg_dump writes a script. psql reads it.") == [
        ("sentence", "pg_dump writes a script."), ("sentence", "psql reads it.")]


def test_a_command_with_options_is_code():
    units = text_units("To remove a widget, run this command:\n\ncabinet-tool --eject widget-7\n\nIt is quick.")
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("sentence", None)]


def test_a_list_of_short_titles_no_sentence_introduces_is_navigation():
    text = "How to use bisect\nNaming commits\nCreating tags\nBrowsing revisions\n\nTags name commits."
    assert kinds(text) == [("sentence", "Tags name commits.")]


def test_a_list_of_short_items_a_sentence_introduces_is_quoted():
    text = "It needs four things:\n\nThe table name\nThe column\nThe new value\nWhich rows"
    assert [u.kind for u in text_units(text)] == ["sentence", "list"]


def test_a_manual_pages_synopsis_is_grammar_not_an_example():
    assert is_synopsis("git remote [-v | --verbose]\ngit remote add [-t <branch>] <name> <URL>\ngit remote remove <name>")
    assert is_synopsis("git commit-tree [(-p <parent>)\u2026] <tree>")
    assert not is_synopsis("$ git push ssh://yourserver.com/~you/proj.git +master")


def test_a_sentence_goes_on_after_e_g_and_i_e():
    assert split_sentences("Run it with a branch, e.g. git fetch origin master, to fetch it. Done.") == [
        "Run it with a branch, e.g. git fetch origin master, to fetch it.", "Done."]


def test_a_manual_pages_suite_footer_is_boilerplate():
    assert kinds("Part of the git(1) suite\n\nTags name commits.") == [("sentence", "Tags name commits.")]


def test_a_purpose_lines_subject_is_what_comes_before_the_dash():
    assert purpose_subject("git-fetch - Download objects and refs from another repository") == "git-fetch"
    assert purpose_subject("Tags name commits, as described below.") is None


def test_a_plural_in_brackets_is_prose_not_code():
    units = text_units("This requires three things:\n\nThe new value of the column\nWhich row(s) to update")
    assert [u.kind for u in units] == ["sentence", "list"]


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


def test_a_blocks_caption_is_its_label():
    text = "Each mode is listed.\n\nTable 13.2. Conflicting Lock Modes\n\nMode | Conflicts\n\nSHARE | ROW EXCL.\nEXCL. | ALL"
    table = text_units(text)[-1]
    assert table.kind == "table" and table.label == "Table 13.2. Conflicting Lock Modes"


def test_a_sentence_naming_a_tables_number_owns_the_table_it_does_not_introduce():
    text = ("Modes differ in what they conflict with (see Table 13.2). Two transactions cannot hold "
            "conflicting locks.\n\nTable 13.2. Conflicting Lock Modes\n\nMode | Conflicts\n\nSHARE | ROW EXCL.\nEXCL. | ALL")
    units = text_units(text)
    assert units[units[-1].owner].text == "Modes differ in what they conflict with (see Table 13.2)."


def test_a_table_is_not_owned_by_a_sentence_naming_another_number():
    text = "Modes are listed in Table 4.1. Nothing else matters here.\n\nTable 13.2. Conflicting Lock Modes\n\nMode | Conflicts\n\nSHARE | ROW EXCL.\nEXCL. | ALL"
    assert text_units(text)[-1].owner is None


def test_the_page_title_and_a_reference_pages_purpose_line_are_headings():
    text = "CREATE INDEX\n\nCREATE INDEX — define a new index\n\nCREATE INDEX constructs an index on a column."
    units = text_units(text, titles=["CREATE INDEX"])
    assert [(u.kind, u.text) for u in units] == [("sentence", "CREATE INDEX constructs an index on a column.")]
    assert len(text_units(text)) > 1  # without the title, the title line reads as a statement


def test_sentences_count_their_place_after_the_last_heading():
    text = "Tablespaces\n\nTablespaces define locations. They hold files.\n\nAnother paragraph here."
    units = text_units(text, [[0, "Tablespaces", None]])
    assert [u.lead for u in units] == [0, 1, 2]
    assert [u.lead for u in text_units("No heading in sight here. None at all.")] == [None, None]


@pytest.mark.parametrize("block, synopsis", [
    ("ALTER TABLE [ IF EXISTS ] name\n    RENAME TO new_name", True),
    ("CREATE UNIQUE INDEX name ON table (column [, ...]);", True),
    ("SET { SESSION | LOCAL } name TO value", True),
    ("ALTER TABLE products RENAME TO items;", False),
    ("SELECT a[1] FROM t;\nSELECT b FROM u;", False),
])
def test_a_command_synopsis_is_told_from_an_example(block, synopsis):
    assert is_synopsis(block) is synopsis


def test_each_unit_knows_the_section_it_sits_in():
    text = "First part says this.\n\nSecond\n\nSecond part says that."
    units = text_units(text, [[22, "Second", "s2"]])
    assert unit_sections(units, {"section": "First", "headings": [[22, "Second", "s2"]]}) == ["First", "Second"]
    assert unit_sections(units, {}) == ["", ""]


@pytest.mark.parametrize("headings", [5, "Second", None, {"offset": 22}])
def test_headings_metadata_that_is_not_a_list_gives_no_sections_and_no_error(headings):
    # Metadata comes from the user's documents: the answerer must not fail on a stray value.
    units = text_units("First part says this. Then more.")
    assert unit_sections(units, {"headings": headings, "section": "Top"}) == ["Top", "Top"]


def test_a_call_with_a_one_letter_argument_is_code_not_a_plural():
    units = text_units("Build the string first:\n\ns = 'abc'\nprint(s)\n\nIt prints abc.")
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("sentence", None)]


def test_subscripts_and_lists_of_tuples_are_examples_not_synopses():
    assert not is_synopsis("pairs = [(1, 'one'), (2, 'two')]\nlast = pairs[-1]")
    assert not is_synopsis("SELECT f1[1][-2][3] AS e1, f1[1][-1][5] AS e2\n"
                           " FROM (SELECT '[1:1][-2:-1][3:5]={{{1,2,3},{4,5,6}}}'::int[] AS f1) AS ss;")
    assert not is_synopsis("lseg '[(0,0),(1,1)]' # lseg '[(1,0),(0,1)]' \u2192 (0.5,0.5)")


def test_a_list_of_lower_case_values_no_sentence_introduces_is_quoted_not_navigation():
    text = ("It accepts these strings for the true state:\n\ntrue\nyes\non\n\n"
            "and these representations for the false state:\n\nfalse\nno\noff\n0")
    assert kinds(text)[-1] == ("list", "false\nno\noff\n0")


def test_a_book_index_no_sentence_introduces_is_navigation():
    text = "accessing, Accessing Arrays\nconstant, Array Value Input\nmodifying, Modifying Arrays\n\nArrays hold values."
    assert kinds(text) == [("sentence", "Arrays hold values.")]


def test_an_open_sentence_naming_an_option_is_prose_not_code():
    text = "When the -l option is used, format changes to\n\n%(objectmode) %(objectsize:padded)%x09%(path)\n\nSizes are in bytes."
    units = text_units(text)
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("sentence", None)]


def test_a_command_whose_quoted_message_is_prose_is_code():
    units = text_units('Commit it:\n\ngit commit -a -m "Add the file to the index"\n\nIt is done.')
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("sentence", None)]


def test_options_that_spell_short_words_are_not_prose():
    units = text_units("Commit everything:\n\ngit add -A && git commit -a --to x\n\nIt is done.")
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("code", 0), ("sentence", None)]


def test_lines_after_a_sentence_ending_with_a_colon_are_the_list_it_announces():
    units = text_units("Data can be stored in any of these ways:\n\nIn a plain file on disk.\nIn a database table.")
    assert [(u.kind, u.owner) for u in units] == [("sentence", None), ("list", 0)]
