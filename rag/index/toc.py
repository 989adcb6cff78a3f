"""The section a page's own table of contents points a question to.

Manual pages that open a chapter or a long section list their sections first ("5.6.1.
Adding a Column / 5.6.2. Removing a Column / ..."). That list is dense in the words of
questions, so its chunk is often retrieved while the section it names, whose text is
longer and more diluted, is not ("How do I remove a column from a table?" retrieves
``ddl-alter.html``'s contents list, not ``5.6.2. Removing a Column``). Reading the list as
a reader would, the answer path follows the entry that best matches the question to the
chunk where that section begins.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Optional

from rag.documents import Document
from rag.index.chunk_ids import chunk_position

__all__ = ["toc_entry", "own_titles", "section_start", "MIN_SHARED_TERMS", "REACH"]

#: An entry is followed when it shares at least this many terms (stemmed, stop words
#: left out) with the question: one shared word ("Introduction") says too little.
MIN_SHARED_TERMS = 2
#: How many chunks after the contents list are searched for the section's start.
REACH = 64


def toc_entry(question_terms: set[str], text: str, analyze: Callable[[list[str]], list[list[str]]],
              skip: Collection[str] = ()) -> Optional[str]:
    """The entry of the table of contents in ``text`` (at least two numbered section
    titles, one per line, as :func:`rag.chains.units.is_toc_line` says) sharing the most
    of ``question_terms`` (at least :data:`MIN_SHARED_TERMS`; the first of equals), on
    one line with its white space collapsed; None when there is no such entry.
    ``analyze`` turns texts into terms as ``question_terms`` were made; titles in
    ``skip`` (the chunk's own headings: the page title, a section begun in it) are no
    entries to follow."""
    from rag.chains.units import is_toc_line

    lines = [" ".join(line.split()) for line in text.split("\n") if is_toc_line(line)]
    if len(lines) < 2:
        return None
    entries = [line for line in lines if line not in skip]
    if not entries:
        return None
    shared = [len(question_terms.intersection(terms)) for terms in analyze(entries)]
    best = max(range(len(entries)), key=lambda i: (shared[i], -i))
    return entries[best] if shared[best] >= MIN_SHARED_TERMS else None


def own_titles(chunk: Document) -> set[str]:
    """The titles of the headings ``chunk`` holds or begins under (its ``title``,
    ``section`` and ``headings`` metadata), white space collapsed."""
    metadata = chunk.metadata
    headings: Any = metadata.get("headings")
    titles = [str(h[1]) for h in headings if isinstance(h, (list, tuple)) and len(h) >= 2] \
        if isinstance(headings, list) else []
    titles += [str(metadata[key]) for key in ("title", "section") if metadata.get(key)]
    return {" ".join(title.split()) for title in titles}


def section_start(title: str, chunk: Document, get_by_ids: Callable[[list[str]], list[Document]],
                  reach: int = REACH) -> Optional[Document]:
    """The chunk of ``chunk``'s document, among the ``reach`` after it, where the section
    titled ``title`` begins (a heading of that title in its ``headings`` metadata, or its
    ``section`` when it opens the chunk); None when there is none or ``chunk`` has no
    index id (see :mod:`rag.index.chunk_ids`)."""
    position = chunk_position(chunk.id)
    if position is None:
        return None
    stem, n = position
    following = get_by_ids([f"{stem}-{i:05d}" for i in range(n + 1, n + 1 + reach)])
    for candidate in sorted(following, key=lambda document: chunk_position(document.id) or ("", 0)):
        if title in own_titles(candidate) - {" ".join(str(candidate.metadata.get("title") or "").split())}:
            return candidate
    return None

