"""HTML split at headers into chunks of at most a size, keeping chosen elements whole."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal

from rag._optional import require
from rag.documents import Document
from rag.errors import InvalidTypeError, MissingDependencyError, ValidationError
from splitters._soup import Element, get_text, parse, to_beautiful_soup
from splitters.base import check_text
from splitters.character import RecursiveCharacterTextSplitter

__all__ = ["HTMLSemanticPreservingSplitter"]

_MEDIA = (("img", "image"), ("video", "video"), ("audio", "audio"))
_PUNCTUATION = re.compile(r"[^\w\s]")


def _load_stopwords(language: str) -> frozenset[str]:
    nltk = require("nltk", feature="HTMLSemanticPreservingSplitter(stopword_removal=True)")
    try:
        return frozenset(nltk.corpus.stopwords.words(language))
    except LookupError as exc:
        raise MissingDependencyError(
            f"HTMLSemanticPreservingSplitter(stopword_removal=True) needs nltk's {language!r} "
            f"stopwords, which are not downloaded. Fetch them once with: "
            f"python -m nltk.downloader stopwords"
        ) from exc
    except OSError as exc:  # nltk names a missing language's file
        raise ValidationError(
            f"stopword_lang {language!r} is not a language of nltk's stopwords corpus: {exc}"
        ) from exc


class HTMLSemanticPreservingSplitter:
    """Split HTML at header tags into chunks of at most ``max_chunk_size`` characters.

    The page is parsed with the standard library's ``html.parser`` into the tree
    BeautifulSoup would build, then read in document order. A header tag named in
    ``headers_to_split_on`` (``(tag, metadata_key)`` pairs, e.g. ``("h1", "Header 1")``)
    closes the chunk so far and becomes the chunk metadata ``{metadata_key: header text}``
    (only the latest header: there is no hierarchy). Every other element contributes its
    text: an element without child elements gives its strings joined by spaces; one with
    child elements gives its children's text first, then its own strings. Each section's
    text has whitespace runs collapsed to one space; a section longer than
    ``max_chunk_size`` (default 1000) is cut by a :class:`RecursiveCharacterTextSplitter`
    with ``separators`` (default ``["\\n\\n", "\\n", " ", ""]``), ``chunk_overlap``
    (default 0) and ``keep_separator`` (default True).

    Options:

    - ``elements_to_preserve``: tags (e.g. ``["table", "ul"]``) whose text is never cut and
      keeps its inner whitespace; a chunk holding one may exceed ``max_chunk_size``;
    - ``preserve_links``: ``<a>`` becomes ``[text](href)``; ``preserve_images``,
      ``preserve_videos``, ``preserve_audio``: ``<img>``, ``<video>``, ``<audio>`` become
      ``![image:src](src)`` (``video:``, ``audio:``);
    - ``custom_handlers``: tag name to a function from a ``bs4.Tag`` (a copy of the element)
      to its text, used where the element's text is read as a whole;
    - ``normalize_text``: lower-case, drop punctuation, collapse whitespace;
      ``stopword_removal``: drop nltk's ``stopword_lang`` (default ``"english"``) stopwords
      (needs ``pip install nltk`` and ``python -m nltk.downloader stopwords``);
    - ``allowlist_tags``: remove every element not named (header tags are always allowed);
      ``denylist_tags``: remove the elements named (header tags are never removed);
    - ``external_metadata``: added to every chunk's metadata;
      ``preserve_parent_metadata``: :meth:`transform_documents` merges each input
      Document's metadata under its chunks'.

    Chunks equal LangChain 1.1.3's ``HTMLSemanticPreservingSplitter`` for the same arguments,
    except that empty chunks are left out (LangChain emits a Document with ``""`` content
    for a header followed only by whitespace, as in ``<section><h1>A</h1>\\n</section>``),
    and that stopwords are read from nltk's data on disk (LangChain downloads them in
    ``__init__``).

    >>> splitter = HTMLSemanticPreservingSplitter([("h1", "Header 1")], preserve_links=True)
    >>> html = "<h1>Intro</h1><p>See <a href='https://x.org'>the site</a>.</p>"
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(html)]
    [('See [the site](https://x.org) .', {'Header 1': 'Intro'})]
    """

    def __init__(
        self,
        headers_to_split_on: Sequence[tuple[str, str]],
        *,
        max_chunk_size: int = 1000,
        chunk_overlap: int = 0,
        separators: list[str] | None = None,
        elements_to_preserve: Collection[str] | None = None,
        preserve_links: bool = False,
        preserve_images: bool = False,
        preserve_videos: bool = False,
        preserve_audio: bool = False,
        custom_handlers: dict[str, Callable[[Any], str]] | None = None,
        stopword_removal: bool = False,
        stopword_lang: str = "english",
        normalize_text: bool = False,
        external_metadata: dict[str, str] | None = None,
        allowlist_tags: Collection[str] | None = None,
        denylist_tags: Collection[str] | None = None,
        preserve_parent_metadata: bool = False,
        keep_separator: bool | Literal["start", "end"] = True,
    ) -> None:
        pairs = list(headers_to_split_on)
        for pair in pairs:
            if not (
                isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
            ):
                raise ValidationError(
                    f"headers_to_split_on must be (tag, name) pairs like ('h1', 'Header 1'); "
                    f"got {pair!r}"
                )
        for handler in (custom_handlers or {}).values():
            if not callable(handler):
                raise InvalidTypeError(f"custom_handlers values must be callable, got {handler!r}")
        # Sorted as LangChain sorts them: of two pairs for one tag, the later one wins.
        self._headers_to_split_on = sorted(pairs)
        self._header_keys = dict(self._headers_to_split_on)
        self._max_chunk_size = max_chunk_size
        self._chunk_overlap = chunk_overlap
        self._separators = list(separators) if separators else None
        self._elements_to_preserve = frozenset(elements_to_preserve or ())
        self._media = {
            tag: kind
            for (tag, kind), wanted in zip(_MEDIA, (preserve_images, preserve_videos, preserve_audio))
            if wanted
        }
        self._preserve_links = preserve_links
        self._custom_handlers = dict(custom_handlers or {})
        self._normalize_text = normalize_text
        self._stopword_removal = stopword_removal
        self._stopword_lang = stopword_lang
        self._stopwords = _load_stopwords(stopword_lang) if stopword_removal else frozenset()
        self._external_metadata = dict(external_metadata or {})
        header_tags = set(self._header_keys)
        self._allowlist = frozenset(allowlist_tags) | header_tags if allowlist_tags else None
        denied = frozenset(denylist_tags or ()) - header_tags
        self._denylist = denied or None
        self._preserve_parent_metadata = preserve_parent_metadata
        self._keep_separator = keep_separator
        self._splitter = RecursiveCharacterTextSplitter(
            separators=self._separators,
            keep_separator=keep_separator,
            chunk_size=max_chunk_size,
            chunk_overlap=chunk_overlap,
        )

    def split_text(self, text: str) -> list[Document]:
        """Split an HTML string into Documents (see the class docstring)."""
        root = parse(check_text(text))
        self._rewrite(root)
        return self._documents(root)

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """Split each Document's HTML; with ``preserve_parent_metadata`` chunks also carry
        its metadata (their own keys win)."""
        transformed: list[Document] = []
        for document in documents:
            for chunk in self.split_text(document.page_content):
                if self._preserve_parent_metadata:
                    chunk = Document(chunk.page_content, {**document.metadata, **chunk.metadata})
                transformed.append(chunk)
        return transformed

    # -- the tree rewrites LangChain makes before reading: media, links, allow/deny lists

    def _rewrite(self, root: Element) -> None:
        if self._media or self._preserve_links:
            self._rewrite_media(root, self._preserve_links)
        allow, deny = self._allowlist, self._denylist
        if allow is None and deny is None:
            return
        stack = [root]
        while stack:
            element = stack.pop()
            element.children = [
                child
                for child in element.children
                if type(child) is not Element
                or (
                    (allow is None or child.name in allow)  # type: ignore[union-attr]
                    and (deny is None or child.name not in deny)  # type: ignore[union-attr]
                )
            ]
            stack.extend(element.element_children())

    def _rewrite_media(self, root: Element, links: bool) -> None:
        """Media elements to Markdown images, then (if ``links``) links to Markdown links.

        LangChain rewrites every medium before any link, so a link's text shows the media
        inside it, while a link inside a link is read as plain text."""
        media = self._media
        stack = [root]
        while stack:
            children = stack.pop().children
            for index, child in enumerate(children):
                if type(child) is not Element:
                    continue
                kind = media.get(child.name)  # type: ignore[union-attr]
                if kind is not None:
                    src = child.get("src")  # type: ignore[union-attr]
                    children[index] = Element("media-wrapper", {}, [f"![{kind}:{src}]({src})"])
                elif links and child.name == "a":  # type: ignore[union-attr]
                    if media:
                        self._rewrite_media(child, False)  # type: ignore[arg-type]
                    text = get_text(child, strip=True)  # type: ignore[arg-type]
                    children[index] = f"[{text}]({child.get('href')})"  # type: ignore[union-attr]
                else:
                    stack.append(child)  # type: ignore[arg-type]

    # -- reading the tree

    def _clean(self, text: str) -> str:
        if self._normalize_text:
            text = " ".join(_PUNCTUATION.sub("", text.lower()).split())
        if self._stopword_removal:
            text = " ".join(word for word in text.split() if word not in self._stopwords)
        return text

    def _element_text(self, element: Element) -> str:
        """An element's text as a whole: custom handler, else children's texts, stripped,
        joined by spaces."""
        handler = self._custom_handlers.get(element.name)
        if handler is not None:
            return handler(to_beautiful_soup(element))
        parts = []
        for child in element.children:
            if type(child) is Element:
                part = self._element_text(child).strip()  # type: ignore[arg-type]
            else:
                part = self._clean(child).strip()  # type: ignore[arg-type]
            if part:
                parts.append(part)
        return self._clean(" ".join(parts))

    def _documents(self, root: Element) -> list[Document]:
        documents: list[Document] = []
        headers: dict[str, str] = {}
        content: list[str] = []
        preserved: dict[str, str] = {}
        placeholders = 0
        header_keys, to_preserve = self._header_keys, self._elements_to_preserve
        # Depth first; an element with child elements adds its own strings after theirs.
        stack: list[tuple[Element, bool]] = [(e, False) for e in reversed(root.element_children())]
        while stack:
            element, children_done = stack.pop()
            if children_done:
                own = " ".join(c for c in element.children if type(c) is not Element)  # type: ignore[misc]
                if own:
                    content.append(self._clean(own))
                continue
            name = element.name
            if name in header_keys:
                if content:
                    documents.extend(self._section(headers, " ".join(content), preserved))
                    content.clear()
                    preserved.clear()
                headers = {header_keys[name]: get_text(element, strip=True)}
            elif name in to_preserve:
                placeholder = f"PRESERVED_{placeholders}"
                preserved[placeholder] = self._element_text(element)
                content.append(placeholder)
                placeholders += 1
            else:
                children = element.element_children()
                if children:
                    stack.append((element, True))
                    stack.extend((child, False) for child in reversed(children))
                else:
                    text = self._element_text(element)
                    if text:
                        content.append(text)
        if content:
            documents.extend(self._section(headers, " ".join(content), preserved))
        return documents

    def _section(self, headers: dict[str, str], content: str, preserved: dict[str, str]) -> list[Document]:
        # str.split() splits at exactly the characters re's \s matches (str.isspace).
        content = " ".join(content.split())
        metadata = {**headers, **self._external_metadata}
        if len(content) <= self._max_chunk_size:
            text = _reinsert(content, preserved)
            return [Document(text, dict(metadata))] if text else []
        documents = []
        for split in self._splitter.split_text(content):
            text = _reinsert(split, preserved).strip()
            if text:
                documents.append(Document(text, dict(metadata)))
        return documents


def _reinsert(content: str, preserved: dict[str, str]) -> str:
    """Put preserved elements' text back (last first, so PRESERVED_1 never eats PRESERVED_10)."""
    if not preserved:
        return content
    for placeholder, text in reversed(preserved.items()):
        content = content.replace(placeholder, text.strip())
    return content
