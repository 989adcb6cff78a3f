"""The passages an answer cites: retrieved chunks merged into sources, and quotes located
in them.

Chunks of one document that overlap (the splitter repeats ``chunk_overlap`` characters)
are one source: their texts joined at the overlap, numbered by the best rank among them.
A quote is found in its source whatever its white space (an extractive answer joins a
sentence's hard-wrapped lines), and reported with the exact text and offsets of the
document it comes from.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional, Sequence

from rag.documents import Document
from rag.index.chunk_ids import around, chunk_position
from splitters._headings import join_blocks

__all__ = ["merge_sources", "with_context", "locate_quote", "position_at"]


# Chunks this close are neighbours too: the splitter drops the paragraph break between them.
_GAP = 2


def _start(document: Document) -> Optional[int]:
    start = document.metadata.get("start_index")
    return start if isinstance(start, int) and not isinstance(start, bool) else None


def _shifted(headings: Any, by: int) -> list[list]:
    if not isinstance(headings, list):
        return []
    return [[h[0] + by, h[1], h[2]] for h in headings if isinstance(h, (list, tuple)) and len(h) == 3
            and isinstance(h[0], int)]


def _join(group: list[tuple[int, Document]]) -> Document:
    """One document from chunks of one source sorted by offset, each overlapping the last."""
    rank, first = min(group, key=lambda pair: pair[0])
    ordered = sorted(group, key=lambda pair: _start(pair[1]))  # type: ignore[arg-type, return-value]
    base = _start(ordered[0][1]) or 0
    text = ordered[0][1].page_content
    headings = _shifted(ordered[0][1].metadata.get("headings"), 0)
    for _, chunk in ordered[1:]:
        offset = (_start(chunk) or 0) - base
        known = {h[0] for h in headings}
        headings += [h for h in _shifted(chunk.metadata.get("headings"), offset) if h[0] not in known]
        if offset > len(text):  # a dropped paragraph break: white space, kept at its length
            text += "\n" * (offset - len(text))
        text = text[:offset] + chunk.page_content if offset + len(chunk.page_content) > len(text) else text
    # The chunks' blocks on the joined text, a block cut between two chunks whole again.
    blocks = join_blocks([((_start(chunk) or 0) - base, len(chunk.page_content), chunk.metadata.get("blocks"))
                          for _, chunk in ordered])
    metadata = {key: value for key, value in ordered[0][1].metadata.items() if key not in ("headings", "blocks")}
    metadata.update(n=rank, start_index=base, chunk_ids=[chunk.id for _, chunk in ordered])
    if headings:
        metadata["headings"] = sorted(headings, key=lambda h: h[0])
    if blocks:
        metadata["blocks"] = blocks
    return Document(text, metadata, first.id if len(group) == 1 else ordered[0][1].id)


def _overlaps(previous: Document, chunk: Document) -> bool:
    """True when ``chunk`` starts within ``previous`` (or at most two characters after
    it) and their shared characters agree (a stale offset must not splice two texts)."""
    start, end = _start(previous), _start(chunk)
    if start is None or end is None:
        return False
    offset = end - start
    if not 0 <= offset <= len(previous.page_content) + _GAP:
        return False
    shared = previous.page_content[offset:]
    return chunk.page_content.startswith(shared[: len(chunk.page_content)])


def merge_sources(documents: Sequence[Document]) -> list[Document]:
    """``documents`` (retrieved chunks, best first) with overlapping (or adjacent) chunks
    of one source merged, numbered again from 1 in ``metadata["n"]`` by the best rank among each one's
    chunks. A merged document keeps its first chunk's metadata, with ``start_index`` its
    offset in the source document, ``chunk_ids`` the ids of its chunks, ``headings``
    shifted to its text and ``blocks`` joined on it (a block cut between two chunks is one
    span again). Chunks without ``start_index`` stay as they are.

    >>> a = Document("one two three", {"source": "s", "start_index": 0}, "a")
    >>> b = Document("three four", {"source": "s", "start_index": 8}, "b")
    >>> [(d.page_content, d.metadata["n"]) for d in merge_sources([b, a])]
    [('one two three four', 1)]
    """
    groups: list[list[tuple[int, Document]]] = []
    open_groups: dict[Any, list[int]] = {}  # source -> indexes of its groups
    for rank, document in enumerate(documents, start=1):
        source = document.metadata.get("source")
        placed = False
        if source is not None and _start(document) is not None:
            for index in open_groups.get(source, []):
                members = sorted(groups[index], key=lambda pair: _start(pair[1]))  # type: ignore[arg-type, return-value]
                if any(_overlaps(m, document) or _overlaps(document, m) for _, m in members):
                    groups[index].append((rank, document))
                    placed = True
                    break
            if not placed:
                open_groups.setdefault(source, []).append(len(groups))
        if not placed:
            groups.append([(rank, document)])
    merged = [_join(group) if len(group) > 1 else _single(group[0]) for group in groups]
    merged.sort(key=lambda document: document.metadata["n"])
    for number, document in enumerate(merged, start=1):
        document.metadata["n"] = number
    return merged


def with_context(chunks: Sequence[Document], get_by_ids: Callable[[list[str]], list[Document]], *,
                 window: int = 1, openings: int = 2, keep: Optional[Callable[[dict], bool]] = None,
                 question: Optional[str] = None, contents: int = 1) -> list[Document]:
    """``chunks`` (retrieved, best first, each numbered ``metadata["n"]``) followed by the
    chunks around them in their documents, fetched with ``get_by_ids``: the ``window``
    chunks before and after each one (int >= 0, default 1), and the opening chunk of each
    of the ``openings`` best-ranked documents (int >= 0, default 2) with its window. An
    added chunk takes the number of the chunk it was fetched for, so
    :func:`merge_sources` joins it to that passage.

    Why: a manual introduces an example in one chunk and shows it in the next, and a page
    defines its subject in its first lines; the best-ranked chunk often holds the question's
    words but not the answer's. ``keep``: a predicate over metadata that added chunks must
    satisfy (the search's filter). Chunks whose ids are not an index's (see
    :mod:`rag.index.chunk_ids`) get nothing added.

    With ``question``, the ``contents`` best-ranked chunks (int >= 0, default 1) that hold
    a page's table of contents with an entry sharing at least two terms with the question
    also bring the chunk where that section begins, with the ``window`` chunks after it
    (see :mod:`rag.index.toc`): a contents list is often retrieved for the words of its
    entries while the section itself is not.

    >>> from rag.index.chunk_ids import chunk_ids
    >>> ids = chunk_ids("a.txt", 4)
    >>> stored = {i: Document(f"part {n}", {"source": "a.txt"}, i) for n, i in enumerate(ids)}
    >>> hit = Document("part 2", {"source": "a.txt", "n": 1}, ids[2])
    >>> [d.page_content for d in with_context([hit], lambda w: [stored[i] for i in w if i in stored], openings=0)]
    ['part 2', 'part 1', 'part 3']
    >>> [d.page_content for d in with_context([hit], lambda w: [stored[i] for i in w if i in stored], window=0)]
    ['part 2', 'part 0']
    """
    for name, value in (("window", window), ("openings", openings), ("contents", contents)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            from rag.errors import ValidationError

            raise ValidationError(f"{name} must be an int >= 0, got {value!r}")
    # Each chunk's context goes right after it: merge_sources numbers passages by list
    # position, so context never outranks the passage it belongs to.
    sections = _sections(chunks, get_by_ids, question, contents, window, keep) if question and contents else {}
    plan: list[tuple[Document, list[str], list[str]]] = []  # (chunk, its page's opening ids, ids around it)
    openings_left = openings
    known: set[str] = set()
    for chunk in chunks:
        position = chunk_position(chunk.id)
        if position is None or chunk.id is None:  # (an index's chunk id is never None: for the type checker)
            plan.append((chunk, [], []))
            continue
        stem, n = position
        opening = around(stem, 0, window) if stem not in known and openings_left > 0 else []
        if stem not in known:
            known.add(stem)
            openings_left -= 1
        plan.append((chunk, opening, [*(around(stem, n, window) if window else []), *sections.get(chunk.id, [])]))
    seen = {chunk.id for chunk in chunks}
    wanted = list(dict.fromkeys(i for _, opening, near in plan for i in [*opening, *near] if i not in seen))
    fetched = {document.id: document for document in (get_by_ids(wanted) if wanted else [])
               if keep is None or keep(document.metadata)}
    result: list[Document] = []
    for chunk, opening, near in plan:
        number = chunk.metadata.get("n", 0)
        result.append(chunk)
        for chunk_id in [*opening, *near]:
            if chunk_id in fetched and chunk_id not in seen:
                seen.add(chunk_id)
                document = fetched[chunk_id]
                result.append(Document(document.page_content, {**document.metadata, "n": number}, chunk_id))
    return result


def _sections(chunks: Sequence[Document], get_by_ids: Callable[[list[str]], list[Document]], question: str,
              contents: int, window: int, keep: Optional[Callable[[dict], bool]]) -> dict[str, list[str]]:
    """For each of the ``contents`` best chunks holding a contents entry for ``question``,
    the ids of the chunk where that section begins and the ``window`` after it."""
    from rag.bm25.analysis import Analyzer
    from rag.index.toc import own_titles, section_start, toc_entry

    analyze = Analyzer().analyze_many
    terms = set(analyze([question])[0])
    found: dict[str, list[str]] = {}
    for chunk in chunks:
        if len(found) >= contents:
            break
        entry = toc_entry(terms, chunk.page_content, analyze, own_titles(chunk)) if chunk_position(chunk.id) else None
        start = section_start(entry, chunk, get_by_ids) if entry else None
        if start is not None and chunk.id is not None and (keep is None or keep(start.metadata)):
            stem, n = chunk_position(start.id)  # type: ignore[misc]  # section_start returns index chunks
            found[chunk.id] = [f"{stem}-{i:05d}" for i in range(n, n + window + 1)]
    return found


def _single(pair: tuple[int, Document]) -> Document:
    rank, document = pair
    return Document(document.page_content, {**document.metadata, "n": rank}, document.id)


def locate_quote(text: str, quote: str) -> Optional[tuple[int, int]]:
    """``(start, end)`` of ``quote`` in ``text``, white space matching any white space;
    None when it is not there.

    >>> locate_quote("Paris is in\\nFrance. Yes.", "is in France.")
    (6, 19)
    """
    words = quote.split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(word) for word in words), text)
    return (found.start(), found.end()) if found else None


def position_at(document: Document, offset: int) -> dict[str, Any]:
    """``section`` and ``anchor`` in force at ``offset`` of ``document``'s text: the last
    heading inside it before the offset, else the document's own (keys only when known)."""
    position = {key: document.metadata[key] for key in ("section", "anchor") if document.metadata.get(key)}
    for heading_offset, title, anchor in _shifted(document.metadata.get("headings"), 0):
        if heading_offset <= offset:
            position = {"section": title, **({"anchor": anchor} if anchor else {})}
    return position
