"""Splitting React (JSX), Vue and Svelte code at component tags and JavaScript statements."""

from __future__ import annotations

import copy
import re
from typing import Any

from splitters._separators import Separator
from splitters.base import TextSplitter, check_text
from splitters.character import RecursiveCharacterTextSplitter

__all__ = ["JSFrameworkTextSplitter", "JS_SEPARATORS", "component_tags"]

# LangChain's pattern for an opening tag (it also matches "< b && c >" in plain JavaScript;
# kept, since the separators it yields decide the chunks).
_OPENING_TAG = re.compile(r"<\s*([a-zA-Z0-9]+)[^>]*>")

JS_SEPARATORS: tuple[str, ...] = (
    "\nexport ", " export ",
    "\nfunction ", "\nasync function ", " async function ",
    "\nconst ", "\nlet ", "\nvar ",
    "\nclass ", " class ",
    "\nif ", " if ",
    "\nfor ", " for ",
    "\nwhile ", " while ",
    "\nswitch ", " switch ",
    "\ncase ", " case ",
    "\ndefault ", " default ",
)
"""The JavaScript statement starts tried after the caller's separators, in order."""

# Tried after the component tags: fragments, blank lines, then continued conditions.
_AFTER_TAGS = ("<>", "\n\n", "&&\n", "||\n")

# Distinct tag lists remembered (each costs a few compiled separators).
_MAX_CACHED_TAG_LISTS = 256


def component_tags(text: str) -> list[str]:
    """Names of the opening tags in ``text``, each once, in order of first appearance.

    >>> component_tags('<App><Button onClick={f}>Go</Button><br/></App>')
    ['App', 'Button', 'br']
    """
    return list(dict.fromkeys(_OPENING_TAG.findall(text)))


class JSFrameworkTextSplitter(RecursiveCharacterTextSplitter):
    """Split JS/JSX/Vue/Svelte code before component tags and statements, as LangChain does.

    For each text the separators are, in order: ``separators`` (default none), the
    JavaScript statement starts of :data:`JS_SEPARATORS`, ``"<Tag"`` for every opening tag
    found in that text (in order of first appearance, see :func:`component_tags`), then
    ``"<>"``, ``"\\n\\n"``, ``"&&\\n"`` and ``"||\\n"``. With no separator left a piece too
    long stays whole. ``chunk_size`` defaults to 2000 characters and ``chunk_overlap`` to
    0 (LangChain's defaults for this class); other arguments are
    :class:`~splitters.RecursiveCharacterTextSplitter`'s (``keep_separator`` True,
    ``is_separator_regex`` False). Chunks equal langchain-text-splitters 1.1.3's
    ``JSFrameworkTextSplitter``; ``start_index`` is exact.

    >>> code = "const A = () => (\\n  <div>\\n    <Button>Go</Button>\\n  </div>\\n);"
    >>> JSFrameworkTextSplitter(chunk_size=30).split_text(code)
    ['const A = () => (', '<div>', '<Button>Go</Button>\\n  </div>\\n);']
    """

    def __init__(
        self,
        separators: list[str] | None = None,
        chunk_size: int = 2000,
        chunk_overlap: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(chunk_size=chunk_size, chunk_overlap=chunk_overlap, **kwargs)
        # LangChain keeps the caller's separators only: the rest is built per text.
        self._separators = list(separators or [])
        regex = self._is_separator_regex
        self._fixed = tuple(Separator(s, regex) for s in self._separators + list(JS_SEPARATORS))
        self._after_tags = tuple(Separator(s, regex) for s in _AFTER_TAGS)
        self._for_tags: dict[tuple[str, ...], RecursiveCharacterTextSplitter] = {}

    def split_text(self, text: str) -> list[str]:
        return self._splitter_for(check_text(text)).split_text(text)

    def split_text_with_starts(self, text: str) -> tuple[list[str], list[int]]:
        if type(self).split_text is not JSFrameworkTextSplitter.split_text:
            # A subclass changed split_text: honour it, and locate its chunks.
            return TextSplitter.split_text_with_starts(self, text)
        return self._splitter_for(check_text(text)).split_text_with_starts(text)

    def _splitter_for(self, text: str) -> RecursiveCharacterTextSplitter:
        """A recursive splitter with this one's settings and the separators for ``text``."""
        tags = tuple(component_tags(text))
        splitter = self._for_tags.get(tags)
        if splitter is None:
            regex = self._is_separator_regex
            splitter = copy.copy(self)
            # A plain recursive splitter: its split_text must not come back here.
            splitter.__class__ = RecursiveCharacterTextSplitter
            splitter._compiled = (
                self._fixed + tuple(Separator("<" + tag, regex) for tag in tags) + self._after_tags
            )
            if len(self._for_tags) >= _MAX_CACHED_TAG_LISTS:
                self._for_tags.clear()
            self._for_tags[tags] = splitter
        return splitter
