"""Answer units of a passage: sentences, and whole code blocks, lists and tables.

A passage's text is read as blocks separated by blank lines, as the loaders lay pages
out (:mod:`loaders._readable`: paragraphs and ``<pre>`` blocks apart, list items and table
rows one per line, table cells joined by `` | ``; Markdown files as written). Each block is
a heading (when the passage's ``headings`` metadata says so, or a short line without
closing punctuation), navigation or boilerplate (never quoted), a table, a code block, a
list, or prose, which is cut into sentences. Adjacent code blocks are one block (a blank
line inside ``<pre>``), as are adjacent table blocks (a table's head and body).

A code block, list or table *belongs* to the sentence that introduces it: the last
sentence of the prose block just before it (a table's caption line may stand between),
when that sentence announces it (it ends with a colon or without a full stop, or it says
"the following", "for example", "Table 8.2 lists ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal, Optional, Sequence

from rag.chains.commands import is_purpose_line, is_synopsis, purpose_subject

__all__ = ["Unit", "text_units", "split_sentences", "unit_sections", "caption_number", "mentions", "is_toc_line", "is_navigation_line", "is_purpose_line", "purpose_subject",
           "MAX_BLOCK_LINES"]

UnitKind = Literal["sentence", "code", "list", "table"]

#: A code block, list or table longer than this many lines is quoted up to it.
MAX_BLOCK_LINES = 25

# A sentence ends at . ! or ? followed by white space (a closing quote or bracket may
# come between), but not after "e.g.", "i.e.", "cf." or "vs.", which sit inside one.
# Other abbreviations ("Dr. X") may split early, which costs a shorter quote, never a
# wrong citation.
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<!\bcf\.)(?<!\bvs\.)(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")  # blank lines; the next line's indentation stays
_WORD = re.compile(r"\w\w+")
_CLOSED = re.compile(r"[.!?:;)\"']$")
# Fragments this short without closing punctuation are headings or labels, not answers.
_MIN_OPEN_WORDS = 8
_CAPTION_NUMBER = re.compile(r"^(?:Table|Figure|Example|Chapter|Section|Part|Appendix)\s+[\w.-]+$", re.I)
_POINTER = re.compile(r"\b(?:follow(?:s|ing)|below|example|table|figure|listing|these|like this|as shown)\b", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+\S")
# Signs of code in a line that does not end like prose: operators, brackets, shell prompts.
_CODE_SIGN = re.compile(r"[;=<>(){}\[\]$\\|]|^\s*(?:#|--|//|>>>|\$)|\w_\w|\w\.\w+\(|^[A-Z]{3,}\s+[A-Z]{2,}")
# Command-line options ("git commit -a", "--eject") are code signs too, unless the line reads
# as a sentence about them: two or more of these words outside quotes ("When the -l option
# is used, format changes to").
_OPTION = re.compile(r"\s--?[A-Za-z]")
_PROSE_WORD = re.compile(r"\b(?:the|a|an|is|are|was|be|when|if|to|of|for|with|by|this|that|it|used)\b", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)")
_OPTION_WORD = re.compile(r"(?<!\S)--?[A-Za-z][\w-]*")  # "-a" and "--to" are no prose words
# "row(s)", "index(es)": an English plural in brackets, not a call.
_PLURAL = re.compile(r"(?<=\w)\((?:e?s)\)")
# A sentence that opens with one of these words in lower case is the rest of a sentence
# begun elsewhere: after a code block ("... while in <code> the outer SELECT would return
# ...") or before a chunk's start. Quoted alone it misleads, so it is no unit.
_CONTINUATION = re.compile(
    r"^(?:the|a|an|and|or|but|nor|which|where|whereas|while|when|whose|so|then|that|this|these|those|"
    r"it|its|is|are|was|were|as|at|in|into|of|on|for|to|with|by|if|since|because|although|though|"
    r"unless|until|than|instead|otherwise|respectively)\b")
_TOC_LINE = re.compile(r"^\s*(?:[A-Z]\.)?\d+(?:\.\d+)*\.\s+\S.{0,100}$")
_PROSE_END = re.compile(r"[.!?:][\"')\]]?$")
# Navigation lines: a line of link words ("Prev Up Home Next", "Next topic timeit") that does
# not end like a statement ("Index scans are faster ..." is a sentence), a breadcrumb trail
# ("Library \u00bb Debugging \u00bb timeit") or a legal footer. Boilerplate a site repeats on
# every page (its footer, "part of the ... suite") is found by repetition at index time.
_NAVIGATION_WORDS = re.compile(
    r"^(?:prev(?:ious)?(?: topic)?|next(?: topic)?|up|home|top|table of contents|contents|index|"
    r"this page|show source|edit on \w+|submit (?:a )?correction|report a bug)\b.{0,80}$",
    re.IGNORECASE,
)
_CHROME = re.compile(r"\u00bb|\u203a.*\u203a|^\u00a9|^copyright\b|all rights reserved|^last updated\b", re.IGNORECASE)


def is_navigation_line(line: str) -> bool:
    """Whether ``line`` reads as a page's navigation or legal footer rather than content:
    link words not ending like a statement, a breadcrumb trail, a copyright line.

    >>> is_navigation_line("Prev Up Home Next"), is_navigation_line("Index scans are fast.")
    (True, False)
    """
    line = line.strip()
    return bool(_CHROME.search(line)) or (bool(_NAVIGATION_WORDS.match(line)) and not _PROSE_END.search(line))


@dataclass(frozen=True)
class Unit:
    """One unit of a passage: ``kind``, ``start``/``end`` (character offsets in the
    passage's text, end exclusive) and ``text`` as quoted (a sentence on one line; a block
    with its lines, at most :data:`MAX_BLOCK_LINES`). ``owner``: for a block, the index in
    the unit list of the sentence that introduces it (None when none does); ``block``: the
    index of the text block it comes from; ``label``: for the sentences of a definition,
    the term they define (a definition list's ``work_mem (integer)``), which says what
    they are about although they do not name it, and for a block, its caption ("Table
    13.2. Conflicting Lock Modes"); ``lead``: for a sentence, how many sentences of its
    section come before it in the passage (0 for the first after a heading; None when the
    passage holds no heading before it)."""

    kind: UnitKind
    start: int
    end: int
    text: str
    block: int
    owner: Optional[int] = None
    label: str = ""
    lead: Optional[int] = None


def _is_sentence(part: str) -> bool:
    words = len(_WORD.findall(part))
    if _CAPTION_NUMBER.match(part):
        return False  # "Table 8.2." of a caption "Table 8.2. Numeric Types"
    return words > 0 and (bool(_CLOSED.search(part)) or words >= _MIN_OPEN_WORDS or is_purpose_line(part))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, each on one line; headings and other short fragments
    without closing punctuation (fewer than 8 words) are left out.

    >>> split_sentences("Capitals\\n\\nParis is in\\nFrance. It is big!\\n\\nRome: Italy")
    ['Paris is in France.', 'It is big!']
    """
    return [unit.text for unit in text_units(text) if unit.kind == "sentence"]


def _blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of each block: runs of text between blank lines, stripped."""
    spans: list[tuple[int, int]] = []
    position = 0
    for gap in [*_BLOCK_BREAK.finditer(text), None]:
        end = gap.start() if gap is not None else len(text)
        piece = text[position:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip("\n"))
            spans.append((position + lead, position + len(piece.rstrip())))
        position = gap.end() if gap is not None else len(text)
    return spans


def _code_line(line: str) -> bool:
    """A line that reads as code: indented (only preformatted text keeps indentation), or
    not ending like prose and dense in code signs (short, or a sign every few words)."""
    if line[:1] in (" ", "\t"):
        return True
    if _PROSE_END.search(line.rstrip()):
        return False
    words = len(_WORD.findall(line))
    # "Which row(s) to update" is prose; "print(s)" on a line of its own is a call.
    signs = len(_CODE_SIGN.findall(_PLURAL.sub("", line) if words >= 3 else line)) + _options(line)
    return signs > 0 and (words <= 12 or signs * 4 >= words)


def _options(line: str) -> int:
    """How many command-line options ``line`` holds, as code signs (0 in a sentence about them)."""
    options = len(_OPTION.findall(line))
    return options if options and len(_PROSE_WORD.findall(_OPTION_WORD.sub("", _QUOTED.sub("", line)))) < 2 else 0


def is_toc_line(line: str) -> bool:
    """Whether ``line`` reads as an entry of a page's table of contents: a numbered section
    title ("5.6.2. Removing a Column", "A.1. Release 15.1")."""
    return bool(_TOC_LINE.match(line))


def _kind(block: str) -> str:
    """``table``, ``code``, ``list``, ``navigation`` or ``prose`` for one block's text."""
    lines = [line for line in block.split("\n") if line.strip()]
    if all(is_navigation_line(line) or is_toc_line(line) for line in lines):
        return "navigation"  # also a page's own table of contents: numbered section titles
    if _FENCE.match(lines[0]):
        return "code"
    rows = sum(" | " in line or line.lstrip().startswith("|") for line in lines)
    if rows * 2 > len(lines) and (rows >= 2 or block.count(" | ") >= 2):  # one pipe is a shell's
        return "table"
    code = sum(_code_line(line) for line in lines)
    if code * 2 > len(lines) or (code and any(line[:1] in (" ", "\t") for line in lines)):
        return "code"
    open_lines = sum(not _PROSE_END.search(line.rstrip()) for line in lines)
    if len(lines) >= 2 and (all(_BULLET.match(line) for line in lines) or open_lines == len(lines)):
        return "list"
    return "prose"


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """(start, end, one-line text) of each sentence of ``text[start:end]``."""
    found: list[tuple[int, int, str]] = []
    position = start
    for gap in [*_SENTENCE_END.finditer(text, start, end), None]:
        stop = gap.start() if gap is not None else end
        part = text[position:stop]
        flat = " ".join(part.split())
        if flat and _is_sentence(flat):
            found.append((position, stop, flat))
        position = gap.end() if gap is not None else end
    return found


def _cut(text: str) -> str:
    lines = text.split("\n")
    return "\n".join(lines[:MAX_BLOCK_LINES])


def _introduces(sentence: str) -> bool:
    """Whether a sentence announces the block after it: it ends open ("is:", "is") or
    points at it ("Table 8.2 lists ...", "for example", "the following")."""
    return not sentence.endswith((".", "!", "?")) or bool(_POINTER.search(sentence))


# A book index's entry: a term, then the titles of the sections about it ("accessing, Accessing Arrays").
_INDEX_ENTRY = re.compile(r", [A-Z]")


def _is_contents(block: str) -> bool:
    """A list that no sentence introduces, of three or more short titles (at most 10 words,
    no closing punctuation, no code, most of them capitalised or numbered as titles are): a
    page's table of contents, a book's index ("accessing, Accessing Arrays") or a block of
    links ("Naming commits / Creating tags / Browsing revisions"), navigation rather than
    an answer. Lower-case values ("false / no
    / off / 0") and preformatted lines ("pick 192837 Switch ...") are content."""
    lines = [line.strip() for line in block.split("\n") if line.strip()]
    titled = sum(line[:1].isupper() or line[:1].isdigit() or bool(_INDEX_ENTRY.search(line)) for line in lines)
    return len(lines) >= 3 and titled * 2 > len(lines) and all(
        len(_WORD.findall(line)) <= 10 and not _PROSE_END.search(line) and not _CODE_SIGN.search(line)
        and not _OPTION.search(line) for line in lines)


def _is_label(block: str) -> bool:
    """A definition list's term: one or two short lines (at most 6 words each) that do not
    end like a statement (``work_mem (integer)``; ``-a`` / ``--echo-all``)."""
    lines = [line.strip() for line in block.split("\n") if line.strip()]
    return 0 < len(lines) <= 2 and all(
        len(line.split()) <= 6 and not _PROSE_END.search(line) and not line.endswith(";") for line in lines)


def _heading_offsets(headings: Any) -> set[int]:
    if not isinstance(headings, (list, tuple)):
        return set()
    return {h[0] for h in headings if isinstance(h, (list, tuple)) and h and isinstance(h[0], int)}


def text_units(text: str, headings: Optional[Sequence[Any]] = None, titles: Sequence[str] = ()) -> list[Unit]:
    """The units of ``text`` in order (see the module docstring). ``headings``: the
    passage's ``[offset, title, anchor]`` list (metadata ``headings``): blocks that begin
    there are headings, never units. ``titles``: the page's title and section (metadata
    ``title``, ``section``): a block that is one of them, or one of them followed by a dash
    and a short description (a reference page's "CREATE INDEX — define a new index"), is a
    heading too.

    >>> [(u.kind, u.text) for u in text_units("Run this:\\n\\n  make test\\n\\nIt is quick.")]
    [('sentence', 'Run this:'), ('code', '  make test'), ('sentence', 'It is quick.')]
    """
    heading_starts = _heading_offsets(headings)
    spans = _blocks(text)
    named = {" ".join(title.split()) for title in titles if isinstance(title, str) and title.strip()}
    kinds = ["heading" if start in heading_starts or _is_title(text[start:end], named) else _kind(text[start:end])
             for start, end in spans]
    # A one-line head with a single " | " is a table's when the body follows it.
    for index in range(len(kinds) - 1):
        head = text[spans[index][0]:spans[index][1]]
        if kinds[index + 1] == "table" and kinds[index] != "heading" and "\n" not in head and " | " in head:
            kinds[index] = "table"
    # Lines after a sentence ending with a colon are the items it announces ("... stored in
    # any of these ways:"), even when each reads as a sentence.
    for index in range(1, len(kinds)):
        before = text[spans[index - 1][0]:spans[index - 1][1]].rstrip()
        if (kinds[index] == "prose" and kinds[index - 1] == "prose" and before.endswith(":")
                and text[spans[index][0]:spans[index][1]].strip().count("\n") >= 1):
            kinds[index] = "list"
    # Adjacent code blocks (blank lines inside <pre>) and table blocks (head and body) join.
    merged: list[tuple[int, int, str]] = []
    for (start, end), kind in zip(spans, kinds):
        if merged and kind in ("code", "table") and merged[-1][2] == kind:
            merged[-1] = (merged[-1][0], end, kind)
        else:
            merged.append((start, end, kind))
    units: list[Unit] = []
    last_sentence: Optional[int] = None  # the sentence a following block belongs to
    label = ""  # the term the next prose block defines
    caption = ""  # a short fragment just before a block: its caption ("Table 13.2. Conflicting Lock Modes")
    lead: Optional[int] = None  # sentences since the last heading (None before the first)
    for number, (start, end, kind) in enumerate(merged):
        if kind == "heading":
            lead = 0
        block_text = text[start:end]
        following = merged[number + 1][2] if number + 1 < len(merged) else ""
        # "The general command form is" / "is:" introduce what follows; a full stop does not.
        introduced = last_sentence is not None and not units[last_sentence].text.endswith((".", "!", "?"))
        if kind in ("code", "list") and following == "prose" and not introduced and _is_label(block_text):
            label, last_sentence = " ".join(block_text.split()), None
            continue
        if kind == "prose":
            found = _sentences(text, start, end)
            kept = False
            for s_start, s_end, flat in found:
                # The rest of a sentence begun elsewhere misleads alone; a question (a FAQ's
                # title) answers nothing.
                kept = not (_CONTINUATION.match(flat) or flat.endswith("?"))
                if kept:
                    units.append(Unit("sentence", s_start, s_end, flat, number, label=label, lead=lead))
                    lead = None if lead is None else lead + 1
            label = ""
            if found:
                # What a dropped sentence introduces belongs to no quotable sentence.
                last_sentence = len(units) - 1 if kept else None
            elif len(_WORD.findall(block_text)) > _MIN_OPEN_WORDS:
                last_sentence = None  # a long fragment stands between
            else:
                # A short fragment (a table's caption, a label) keeps the introducing sentence.
                caption = " ".join(block_text.split())
                continue
        elif kind in ("code", "list", "table") and len(_WORD.findall(block_text)) >= 2:
            quoted = _cut(block_text)
            owner = last_sentence if last_sentence is not None and _introduces(units[last_sentence].text) else None
            if kind == "list" and owner is None and _is_contents(block_text):
                last_sentence, caption = None, ""
                continue
            units.append(Unit(kind, start, start + len(quoted), quoted, number, owner, label=caption))
            last_sentence = None
        else:
            last_sentence = None  # a heading or navigation ends what a sentence introduces
        caption = ""
    return _referenced_blocks(units)


# "see Table 13.2", "shown in Example 11.2": a sentence pointing at a numbered block.
_REFERENCE = re.compile(r"\b(Table|Example|Figure)\s+(\d+(?:\.\d+)*)", re.I)


def caption_number(unit: Unit) -> Optional[tuple[str, str]]:
    """``("table", "13.2")`` for a block captioned "Table 13.2. Conflicting Lock Modes";
    None for a sentence or a block without a numbered caption."""
    caption = _REFERENCE.match(unit.label) if unit.kind != "sentence" and unit.label else None
    return (caption.group(1).lower(), caption.group(2)) if caption else None


def mentions(sentence: str) -> set[tuple[str, str]]:
    """The numbered blocks a sentence names: ``{("table", "13.2")}`` for "... (see Table 13.2)"."""
    return {(m.group(1).lower(), m.group(2)) for m in _REFERENCE.finditer(sentence)}


def _referenced_blocks(units: list[Unit]) -> list[Unit]:
    """Blocks that no sentence introduces belong to an earlier sentence that names their
    caption's number ("... with which each conflicts (see Table 13.2)." owns the table
    captioned "Table 13.2. Conflicting Lock Modes")."""
    for index, unit in enumerate(units):
        wanted = caption_number(unit) if unit.owner is None else None
        if wanted is None:
            continue
        for earlier in range(index - 1, -1, -1):
            other = units[earlier]
            if other.kind == "sentence" and wanted in mentions(other.text):
                units[index] = replace(unit, owner=earlier)
                break
    return units


def _is_title(block: str, titles: set[str]) -> bool:
    """Whether ``block`` is the page's title or section, alone or followed by a dash and a
    short description on the same line."""
    flat = " ".join(block.split())
    if not titles or "\n" in block.strip():
        return False
    return flat in titles or any(flat.startswith(f"{title} \u2014 ") or flat.startswith(f"{title} - ")
                                 for title in titles)


def unit_sections(units: Sequence[Unit], metadata: dict[str, Any]) -> list[str]:
    """The title of the section each of ``units`` sits in: the last of the passage's
    ``headings`` (metadata, ``[offset, title, anchor]``) starting before it, else the
    passage's own ``section`` (the heading in force where it starts), else ''."""
    headings = metadata.get("headings")
    # Metadata is the user's: anything but a list of [offset, title, ...] names no heading.
    marks = sorted((h[0], str(h[1])) for h in (headings if isinstance(headings, (list, tuple)) else ())
                   if isinstance(h, (list, tuple)) and len(h) >= 2 and isinstance(h[0], int))
    current = str(metadata.get("section") or "")
    titles: list[str] = []
    position = 0
    for unit in units:
        while position < len(marks) and marks[position][0] <= unit.start:
            current = marks[position][1]
            position += 1
        titles.append(current)
    return titles
