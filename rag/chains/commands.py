"""Three kinds of text a command's manual page has: its purpose line ("git-fetch - Download
objects and refs from another repository"), its synopsis (the command's grammar,
``ALTER TABLE [ IF EXISTS ] name``), which is not an example one could run, and its
examples written as a definition list, each term a command line ("git push origin
:experimental") defined by what it does."""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["is_purpose_line", "purpose_subject", "is_synopsis", "is_command_term"]

# A manual page's purpose line: its subject (one to three words), a dash, what it does
# ("git-revert - Revert some existing commits", a man page's NAME section).
_PURPOSE = re.compile(r"^([\w.:+-]+(?: [\w.:+-]+){0,2}) [-\u2013\u2014] \w[^.!?]{8,}$")


def is_purpose_line(sentence: str) -> bool:
    """Whether ``sentence`` (on one line) is a manual page's purpose line: a subject of one
    to three words, a dash and a description without a full stop ("git-fetch - Download
    objects and refs from another repository")."""
    return bool(_PURPOSE.match(sentence))


def purpose_subject(sentence: str) -> Optional[str]:
    """The subject of a purpose line ("git-fetch" of "git-fetch - Download objects ..."),
    None for any other sentence."""
    found = _PURPOSE.match(sentence)
    return found.group(1) if found else None


# Grammar notation of a command synopsis: optional parts in brackets, choices in braces,
# repetition marks ("[ , ... ]", "[ WITH ] ( option [, ...] )", "{ SESSION | LOCAL }").
# A manual page's synopsis marks optional options and repetition without spaces:
# "git remote [-v | --verbose]", "[--[no-]tags]", "[(-p <parent>)…]".
# An option's bracket opens after a space or another bracket, and a group holds an option:
# "a[-1]", "f1[1][-2]" (subscripts) and "[(1, 'one')]" (a list of pairs) are code.
_GRAMMAR = re.compile(r"\[\s*,?\s*\.\.\.\s*\]|\[ [^\]]*\]|\{[^}]*\|[^}]*\}"
                      r"|(?<![\w)\]])\[-{1,2}[\w\[]|\[\(-|(?:\u2026|\.\.\.)\]|\[[^\]]*\s\|\s[^\]]*\]")


def is_synopsis(block: str) -> bool:
    """Whether a code block is a command's synopsis (its grammar: ``ALTER TABLE [ IF EXISTS ]
    name RENAME TO new_name``) rather than an example one could run: a third of its lines
    or more use bracket or brace notation."""
    lines = [line for line in block.split("\n") if line.strip()]
    return bool(lines) and sum(bool(_GRAMMAR.search(line)) for line in lines) * 3 >= len(lines)


# Words of English prose; a term holding one is a phrase ("Undo a commit and redo"), not a command.
_PROSE_WORD = re.compile(r"\b(?:the|a|an|is|are|be|to|of|for|with|by|in|on|and|or|your|you|this|that|it|how|when)\b",
                         re.IGNORECASE)
_TERM_WORD = re.compile(r"\S+")


def is_command_term(term: str) -> bool:
    """Whether a definition list's term reads as a command line one could run (``git
    cherry-pick master``, ``pg_dump dbname > dumpfile``): two to twelve words, no word of
    English prose, a lower-case first letter (a command, not a title) and no closing
    punctuation."""
    words = _TERM_WORD.findall(term)
    return (2 <= len(words) <= 12 and term[:1].islower() and not _PROSE_WORD.search(term)
            and not term.rstrip().endswith((".", "!", "?", ":")))
