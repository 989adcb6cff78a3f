"""Pages a question names: a reference manual has one page per command, named after it
(``git-push.html`` for ``git push``), and a question that names the command wants that
page even when other pages share more of its words.

A page's *name* is the last part of its path or URL without its extensions, cut into
lower-case words at ``-``, ``_``, ``.``, ``/`` and spaces (``git-push.html`` -> ``git
push``; ``pg_dump.html`` -> ``pg dump``). Only names of two words or more count (one
word, such as ``index`` or ``intro``, names too much), and a name two pages share names
neither. A question names a page when the page's words appear in it in a row, as whole
words; of names found one inside another (``git push`` in ``git push certificate``), only
the longest counts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional
from urllib.parse import urlsplit

from rag.documents import Document

if TYPE_CHECKING:
    from rag.index.answer import IndexRetriever

__all__ = ["page_name", "named_pages", "with_named_pages"]

_WORDS = re.compile(r"[^\W_]+")
# Extensions dropped from a file name: ".html", ".en.html", ".txt.gz", ".1.gz"; at most three.
_EXTENSION = re.compile(r"(?:\.(?:[A-Za-z][A-Za-z0-9]{0,4}|\d[a-z]?)){1,3}$")  # also a man page's ".1.gz"
_MIN_WORDS = 2
_MAX_WORDS = 6


def page_name(source: str) -> Optional[tuple[str, ...]]:
    """The words of ``source``'s name (see the module docstring), or None when it has fewer
    than two or more than six.

    >>> page_name("/usr/share/doc/git-doc/git-push.html"), page_name("https://example.org/docs/pg_dump/")
    (('git', 'push'), ('pg', 'dump'))
    >>> page_name("docs/index.html") is None
    True
    """
    path = urlsplit(source).path if "://" in source else source
    last = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    stem = _EXTENSION.sub("", last) or last
    words = tuple(word.lower() for word in _WORDS.findall(stem))
    return words if _MIN_WORDS <= len(words) <= _MAX_WORDS else None


def named_pages(question: str, sources: Iterable[str], limit: int = 1) -> list[str]:
    """The sources among ``sources`` that ``question`` names, longest name first (ties in
    the order of the question), at most ``limit`` (int >= 0).

    >>> named_pages("How do I delete a remote branch with git push?", ["a/git-push.html", "a/git-pull.html"])
    ['a/git-push.html']
    """
    asked = [word.lower() for word in _WORDS.findall(question)]
    if limit <= 0 or len(asked) < _MIN_WORDS:
        return []
    by_name: dict[tuple[str, ...], Optional[str]] = {}
    for source in sources:
        name = page_name(source)
        if name is not None:
            by_name[name] = None if name in by_name else source  # a shared name names no page
    found: list[tuple[int, int, tuple[str, ...]]] = []  # (-length, position, name)
    for size in range(_MAX_WORDS, _MIN_WORDS - 1, -1):
        for position in range(len(asked) - size + 1):
            name = tuple(asked[position:position + size])
            overlaps = any(position < other + -negative and other < position + size for negative, other, _ in found)
            if by_name.get(name) and not overlaps:
                found.append((-size, position, name))
    found.sort()
    named = dict.fromkeys(page for _, _, name in found if (page := by_name[name]) is not None)
    return list(named)[:limit]  # a page named twice counts once


def with_named_pages(question: str, chunks: list[Document], retriever: "IndexRetriever", limit: int = 1,
                     keep: Optional[Callable[[dict[str, Any]], bool]] = None) -> list[Document]:
    """``chunks`` (retrieved for ``question``, numbered ``metadata["n"]``) followed by the
    best chunk for ``question`` of each page the question names (:func:`named_pages`, at
    most ``limit``) that none of them comes from, numbered after them. ``keep``: a
    predicate over metadata (the search's filter) the added chunks must satisfy."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        from rag.errors import ValidationError

        raise ValidationError(f"named must be an int >= 0, got {limit!r}")
    if limit == 0:
        return chunks
    have = {chunk.metadata.get("source") for chunk in chunks}
    added: list[Document] = []
    for source in named_pages(question, retriever.index.sources(), limit):
        if source in have:
            continue
        # The page's best chunk among those the search's own filter lets through.
        only = {"source": source} if retriever.filter is None else {"$and": [retriever.filter, {"source": source}]}
        for best in retriever.invoke(question, k=1, filter=only):
            if keep is None or keep(best.metadata):
                best.metadata["n"] = len(chunks) + len(added) + 1
                added.append(best)
                have.add(source)
    return [*chunks, *added]
