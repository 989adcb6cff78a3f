"""Recursive splitters with a fixed separator preset: Markdown, Python and LaTeX.

Each is :class:`~splitters.RecursiveCharacterTextSplitter` with the separators of its
:class:`~splitters.Language` (see :mod:`splitters.languages`), as LangChain's
``MarkdownTextSplitter``, ``PythonCodeTextSplitter`` and ``LatexTextSplitter`` are.

As in LangChain, the presets are matched as *literal strings* unless
``is_separator_regex=True`` is passed: the Python preset is literal anyway, but the Markdown
heading and rule patterns (``"\\n#{1,6} "``, ``"\\n---+\\n"``...) and the LaTeX commands
(``"\\n\\\\\\\\section{"``) are regular expressions, so by default these two splitters cut at
code fences, blank lines, lines and words only. That is LangChain 1.1.3's behaviour, kept
so the chunks are the same; pass ``is_separator_regex=True`` (or use
``RecursiveCharacterTextSplitter.from_language``) to cut at headings and sections too.
"""

from __future__ import annotations

from typing import Any

from splitters.character import RecursiveCharacterTextSplitter
from splitters.languages import Language, get_separators_for_language

__all__ = ["MarkdownTextSplitter", "PythonCodeTextSplitter", "LatexTextSplitter"]


class MarkdownTextSplitter(RecursiveCharacterTextSplitter):
    """Split Markdown along fences, rules, blank lines, lines and words (LangChain's preset).

    Takes :class:`~splitters.RecursiveCharacterTextSplitter`'s arguments except
    ``separators`` (``chunk_size`` default 4000 characters, ``chunk_overlap`` 200,
    ``keep_separator`` True, ``add_start_index`` exact). The preset's heading and rule
    patterns only act as patterns with ``is_separator_regex=True``, as in LangChain (see
    :mod:`splitters.presets`). Chunks equal langchain-text-splitters 1.1.3's.

    >>> MarkdownTextSplitter(chunk_size=20, chunk_overlap=0).split_text(
    ...     "# Title\\n\\nFirst paragraph.\\n\\nSecond one.")
    ['# Title', 'First paragraph.', 'Second one.']
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.MARKDOWN), **kwargs)


class PythonCodeTextSplitter(RecursiveCharacterTextSplitter):
    """Split Python source before ``class``/``def`` lines, then blank lines, lines, words.

    Takes :class:`~splitters.RecursiveCharacterTextSplitter`'s arguments except
    ``separators`` (``chunk_size`` default 4000 characters, ``chunk_overlap`` 200). Chunks
    equal langchain-text-splitters 1.1.3's ``PythonCodeTextSplitter``.

    >>> PythonCodeTextSplitter(chunk_size=30, chunk_overlap=0).split_text(
    ...     "def a():\\n    return 1\\n\\ndef b():\\n    return 2\\n")
    ['def a():\\n    return 1', 'def b():\\n    return 2']
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.PYTHON), **kwargs)


class LatexTextSplitter(RecursiveCharacterTextSplitter):
    """Split LaTeX along LangChain's LaTeX preset (sections and environments, ``$$``, words).

    Takes :class:`~splitters.RecursiveCharacterTextSplitter`'s arguments except
    ``separators`` (``chunk_size`` default 4000 characters, ``chunk_overlap`` 200). The
    section and environment separators are written as regular expressions; as in LangChain
    they are matched literally (so never in real LaTeX) unless ``is_separator_regex=True``
    (see :mod:`splitters.presets`). Chunks equal langchain-text-splitters 1.1.3's.

    >>> LatexTextSplitter(chunk_size=12, chunk_overlap=0).split_text("Energy is $$E=mc^2$$ here")
    ['Energy is', '$$E=mc^2', '$$ here']
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(separators=get_separators_for_language(Language.LATEX), **kwargs)
