"""Kinds of text a command's manual page has, as the offline answerer reads them."""

from rag.chains.commands import is_command_term


def test_a_definition_term_that_is_a_command_line_is_told_from_a_phrase_or_a_title():
    assert [is_command_term(term) for term in ("git cherry-pick master", "pg_dump dbname > dumpfile",
                                               "git push origin :experimental")] == [True, True, True]
    assert [is_command_term(term) for term in ("Undo a commit and redo", "Reset a single file in the index",
                                               "Comparing branches", "--abort", "EXAMPLES")] == [False] * 5
