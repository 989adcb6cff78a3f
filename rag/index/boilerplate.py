"""Boilerplate by evidence: the blocks of text that repeat across the pages of one site.

A site's navigation bars, footers and "part of the ... suite" lines are the same text on
page after page; the content is not. So a block is boilerplate when its text (white space
collapsed) is on more than ``max(min_pages, min_share x pages)`` pages of its site, where
a site is the pages of one folder (files) or of one host (URLs). No site's wording is
written here: the evidence is the indexed set itself.

The blocks are those the loader recorded (``metadata["blocks"]``, see
:class:`loaders.ReadableHTMLLoader`): the outermost ones (a whole list, table or
paragraph, never a table's header cell or a list's item alone: "Description" heads a
table on a fifth of PostgreSQL's pages and is content), plus the runs of text between
them that no block holds (split at blank lines). Headings and code are never removed. A document
without recorded blocks (plain text, PDF, CSV) is never changed.

Measured by ``benchmarks/boilerplate.py`` (results in
``benchmarks/results/boilerplate.json``); the defaults are the rule chosen there.

>>> from rag import Document
>>> pages = [Document(f"Page {n} text.\\n\\nHome | Docs", {"source": f"site/{n}.html",
...          "blocks": [[0, 12, "paragraph"], [14, 25, "paragraph"]]}) for n in range(5)]
>>> [page.page_content for page in remove_boilerplate(pages)][:2]
['Page 0 text.', 'Page 1 text.']
"""

from __future__ import annotations

import hashlib
import posixpath
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from rag.documents import Document
from rag.errors import ValidationError

__all__ = ["BoilerplateRule", "site_of", "page_profile", "page_block_keys", "edge_positions", "repeated_keys",
           "find_boilerplate", "removed_keys", "strip_blocks", "remove_boilerplate"]

#: Block kinds never removed: a heading that repeats ("Description", "Options") names
#: the part of the page under it, and code that repeats (an install command shown on
#: several pages of a small site) is still the answer on each; site chrome is neither.
_KEPT_KINDS = frozenset({"heading", "code"})


@dataclass(frozen=True)
class BoilerplateRule:
    """When a repeated block is boilerplate: on more than ``min_pages`` pages (an
    integer >= 1; default 3) and more than ``min_share`` of its site's pages (a fraction
    in [0, 1); default 0.2). A site with ``min_pages`` pages or fewer has none. Blocks
    are the same when their first ``opening_characters`` characters are (white space
    collapsed; an integer >= 1, default 60): a template's fixed opening followed by a
    page's own tail (a navigation bar ending in a breadcrumb to the page) is one block.

    >>> BoilerplateRule().threshold(100)
    20.0
    """

    min_pages: int = 3
    min_share: float = 0.2
    opening_characters: int = 60

    def __post_init__(self) -> None:
        if isinstance(self.min_pages, bool) or not isinstance(self.min_pages, int) or self.min_pages < 1:
            raise ValidationError(f"min_pages must be an integer >= 1, got {self.min_pages!r}")
        if isinstance(self.min_share, bool) or not isinstance(self.min_share, (int, float)) \
                or not 0 <= self.min_share < 1:
            raise ValidationError(f"min_share must be a fraction in [0, 1), got {self.min_share!r}")
        if isinstance(self.opening_characters, bool) or not isinstance(self.opening_characters, int) \
                or self.opening_characters < 1:
            raise ValidationError(f"opening_characters must be an integer >= 1, got {self.opening_characters!r}")

    def threshold(self, pages: int) -> float:
        """A block is boilerplate on more than this many of a site's ``pages``."""
        return max(float(self.min_pages), self.min_share * pages)


def site_of(source: str) -> str:
    """The site a page belongs to: ``scheme://host`` of a URL, else the folder of a path.

    >>> site_of("https://example.com/docs/a.html"), site_of("/srv/manual/b.html")
    ('https://example.com', '/srv/manual')
    """
    parts = urlsplit(source) if "://" in source else None
    if parts is not None and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return posixpath.dirname(source.replace("\\", "/"))


#: The default of :attr:`BoilerplateRule.opening_characters`.
OPENING_CHARACTERS = 60


def _key(text: str, opening: int) -> str:
    # A short digest of the opening of the text with its white space collapsed: sites
    # keep the keys of every block of every page in memory, so not the texts themselves.
    return hashlib.blake2b(" ".join(text[:opening * 4].split())[:opening].encode("utf-8", "surrogatepass"),
                           digest_size=8).hexdigest()


def _valid_blocks(blocks: Any, length: int) -> list[tuple[int, int, str]]:
    if not isinstance(blocks, (list, tuple)):
        return []
    return sorted(((b[0], b[1], b[2]) for b in blocks
                   if isinstance(b, (list, tuple)) and len(b) == 3 and type(b[0]) is int and type(b[1]) is int
                   and isinstance(b[2], str) and 0 <= b[0] < b[1] <= length),
                  key=lambda b: (b[0], -b[1]))


def _candidates(document: Document) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` for each outermost block of ``document`` and each run of
    text between them (split at blank lines; kind ``"text"``), in order; [] without blocks."""
    text = document.page_content
    blocks = _valid_blocks(document.metadata.get("blocks"), len(text))
    if not blocks:
        return []
    spans: list[tuple[int, int, str]] = []
    reached = 0
    for start, end, kind in blocks:
        if start < reached:
            continue  # inside an outer block
        spans.extend(_loose(text, reached, start))
        spans.append((start, end, kind))
        reached = end
    spans.extend(_loose(text, reached, len(text)))
    return spans


def page_profile(document: Document, opening: int = OPENING_CHARACTERS) -> list[str | None]:
    """The page as the rule sees it, one entry per candidate in order: the key (digest of
    the white-space-collapsed text) of a removable one, ``""`` for a heading (passed
    over at the page's edges) and None for code (content: it ends an edge run)."""
    text = document.page_content
    return ["" if kind == "heading" else None if kind in _KEPT_KINDS else _key(text[start:end], opening)
            for start, end, kind in _candidates(document)]


def profile_text(profile: Sequence[str | None]) -> str:
    """``profile`` (see :func:`page_profile`) as one compact string, as records store it:
    keys are hex digests, so ``"h"`` (a heading) and ``"c"`` (code) cannot be one.

    >>> profile_text(["0123456789abcdef", "", None])
    '0123456789abcdef,h,c'
    """
    return ",".join("c" if key is None else key or "h" for key in profile)


def profile_from_text(text: str) -> list[str | None]:
    """The profile :func:`profile_text` wrote as ``text``."""
    return [None if key == "c" else "" if key == "h" else key for key in text.split(",")] if text else []


def edge_positions(profile: Sequence[str | None], keys: frozenset[str] | set[str]) -> list[int]:
    """The positions of ``profile`` (see :func:`page_profile`) that are boilerplate: a
    key in ``keys`` in the run that opens the page or the run that closes it (headings
    passed over; the first other candidate ends each run). A repeated block between two
    of the page's own ("See also", "Note", a lead-in sentence a manual's pages share) is
    content in its place; navigation, banners and footers wrap the content.

    >>> edge_positions(["nav", "", "own", "Note", "own2", "foot"], {"nav", "Note", "foot"})
    [0, 5]
    """
    found: list[int] = []
    for order in (range(len(profile)), range(len(profile) - 1, -1, -1)):
        for position in order:
            key = profile[position]
            if key == "":
                continue
            if key is None or key not in keys:
                break
            found.append(position)
    return sorted(set(found))


def _loose(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The paragraphs of ``text[start:end]`` (held by no block), trimmed of white space."""
    spans = []
    position = start
    for piece in text[start:end].split("\n\n"):
        stripped = piece.strip()
        if stripped:
            first = position + piece.index(stripped[0])
            spans.append((first, first + len(stripped), "text"))
        position += len(piece) + 2
    return spans


def page_block_keys(document: Document, opening: int = OPENING_CHARACTERS) -> set[str]:
    """The keys (digests of the white-space-collapsed text) of ``document``'s removable
    candidate blocks: outermost blocks but headings and code, and text runs held by no
    block. What repetition is counted on."""
    return {key for key in page_profile(document, opening) if key}


def find_boilerplate(documents: Iterable[Document], rule: BoilerplateRule = BoilerplateRule()
                     ) -> dict[str, frozenset[str]]:
    """For each site (:func:`site_of` of ``metadata["source"]``), the keys of the blocks
    on more than ``rule.threshold(pages)`` of its pages. A page is a distinct source with
    recorded blocks (several documents of one source count once); sites without any
    boilerplate are left out. Pure: the same documents give the same answer in any order.
    """
    pages: dict[str, set[str]] = {}
    for document in documents:
        source = str(document.metadata.get("source", ""))
        keys = page_block_keys(document, rule.opening_characters)
        if keys:  # a page whose structure is known (pages without blocks do not count)
            pages.setdefault(source, set()).update(keys)
    return repeated_keys(pages, rule)


def repeated_keys(pages: Mapping[str, Iterable[str]], rule: BoilerplateRule = BoilerplateRule()
                  ) -> dict[str, frozenset[str]]:
    """:func:`find_boilerplate` over pages already reduced to their block keys
    (``source -> keys``, as :func:`page_block_keys` gives them)."""
    by_site: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for source, keys in pages.items():
        by_site[site_of(source)][source] = set(keys)
    found: dict[str, frozenset[str]] = {}
    for site, by_source in by_site.items():
        counts: Counter[str] = Counter(key for keys in by_source.values() for key in keys)
        limit = rule.threshold(len(by_source))
        repeated = frozenset(key for key, count in counts.items() if count > limit)
        if repeated:
            found[site] = repeated
    return found


def removed_keys(document: Document, keys: frozenset[str] | set[str], opening: int = OPENING_CHARACTERS) -> set[str]:
    """The keys of the blocks :func:`strip_blocks` removes from ``document``."""
    profile = page_profile(document, opening)
    return {profile[position] or "" for position in edge_positions(profile, keys)}


def strip_blocks(document: Document, keys: frozenset[str] | set[str], opening: int = OPENING_CHARACTERS) -> Document:
    """``document`` without its boilerplate: the candidate blocks whose key is in
    ``keys`` at the page's edges (:func:`edge_positions`), each with the white space that
    follows it; its ``headings`` and ``blocks`` moved to the new offsets (those inside a
    removed block dropped). Unchanged when nothing matches or when everything would go
    (a page that is only boilerplate keeps its text)."""
    text = document.page_content
    candidates = _candidates(document)
    positions = edge_positions(page_profile(document, opening), keys) if keys else []
    removed = [candidates[position][:2] for position in positions]
    if not removed:
        return document
    cuts: list[tuple[int, int]] = []
    for start, end in removed:
        while end < len(text) and text[end] in " \t\n":
            end += 1  # the separator after it, so no blank lines pile up
        cuts.append((start, end))
    kept = []
    position = 0
    for start, end in cuts:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    new_text = "".join(kept).rstrip()
    if not new_text.strip():
        return document

    def moved(offset: int) -> int | None:
        shift = 0
        for start, end in cuts:
            if offset < start:
                break
            if offset < end:
                return None
            shift += end - start
        return min(offset - shift, len(new_text))

    metadata = dict(document.metadata)
    if isinstance(metadata.get("headings"), list):
        metadata["headings"] = [[moved(h[0]), h[1], h[2]] for h in metadata["headings"]
                                if isinstance(h, (list, tuple)) and len(h) == 3 and type(h[0]) is int
                                and moved(h[0]) is not None]
    blocks = []
    for start, end, kind in _valid_blocks(metadata.get("blocks"), len(text)):
        new_start, new_end = moved(start), moved(end - 1)
        if new_start is not None and new_end is not None and new_end + 1 > new_start:
            blocks.append([new_start, new_end + 1, kind])
    metadata["blocks"] = blocks
    return Document(new_text, metadata, document.id)


def remove_boilerplate(documents: Sequence[Document], rule: BoilerplateRule = BoilerplateRule(),
                       boilerplate: Mapping[str, frozenset[str]] | None = None) -> list[Document]:
    """``documents`` with the boilerplate of their sites removed (:func:`find_boilerplate`
    over these documents, unless ``boilerplate`` gives the keys by site already)."""
    found = find_boilerplate(documents, rule) if boilerplate is None else boilerplate
    return [strip_blocks(document, found[site], rule.opening_characters) if (site := site_of(str(document.metadata.get("source", ""))))
            in found else document for document in documents]
