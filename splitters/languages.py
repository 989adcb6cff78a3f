"""Programming and markup languages, and the separators the recursive splitter tries for each.

The presets are plain data: a mapping from :class:`Language` to an ordered tuple of regular
expressions, tried left to right (coarsest structure first, single characters last). They are
the same separators langchain-text-splitters 1.1.3 uses, so ``from_language`` gives the same
chunks as LangChain's.
"""

from __future__ import annotations

from enum import Enum
from types import MappingProxyType
from typing import Mapping

from rag.errors import ValidationError

__all__ = ["Language", "LANGUAGE_SEPARATORS", "get_separators_for_language"]


class Language(str, Enum):
    """Languages with (or, for PERL, reserved for) a separator preset; values as LangChain's.

    >>> Language("python") is Language.PYTHON
    True
    """

    CPP = "cpp"
    GO = "go"
    JAVA = "java"
    KOTLIN = "kotlin"
    JS = "js"
    TS = "ts"
    PHP = "php"
    PROTO = "proto"
    PYTHON = "python"
    R = "r"
    RST = "rst"
    RUBY = "ruby"
    RUST = "rust"
    SCALA = "scala"
    SWIFT = "swift"
    MARKDOWN = "markdown"
    LATEX = "latex"
    HTML = "html"
    SOL = "sol"
    CSHARP = "csharp"
    COBOL = "cobol"
    C = "c"
    LUA = "lua"
    PERL = "perl"
    HASKELL = "haskell"
    ELIXIR = "elixir"
    POWERSHELL = "powershell"
    VISUALBASIC6 = "visualbasic6"


# Every code preset ends by falling back to blank lines, lines, words, characters.
_LINES = ("\n\n", "\n", " ", "")


def _starting_lines(*keywords: str) -> tuple[str, ...]:
    """Separators that split before a line starting with each keyword, then the fallbacks."""
    return tuple("\n" + keyword for keyword in keywords) + _LINES


_C_FAMILY = _starting_lines(
    "class ", "void ", "int ", "float ", "double ", "if ", "for ", "while ", "switch ", "case "
)

# VB6 definitions may carry a visibility keyword; "End Sub" etc. close blocks and must not
# start a new chunk, hence the negative lookahead.
_VB_VISIBILITY = r"(?:Public|Private|Friend|Global|Static)\s+"
_VB6 = (
    rf"\n(?!End\s){_VB_VISIBILITY}?Sub\s+",
    rf"\n(?!End\s){_VB_VISIBILITY}?Function\s+",
    rf"\n(?!End\s){_VB_VISIBILITY}?Property\s+(?:Get|Let|Set)\s+",
    rf"\n(?!End\s){_VB_VISIBILITY}?Type\s+",
    rf"\n(?!End\s){_VB_VISIBILITY}?Enum\s+",
    r"\n(?!End\s)If\s+",
    r"\nElseIf\s+",
    r"\nElse\s+",
    r"\nSelect\s+Case\s+",
    r"\nCase\s+",
    r"\nFor\s+",
    r"\nDo\s+",
    r"\nWhile\s+",
    r"\nWith\s+",
    r"\n\n",
    r"\n",
    " ",
    "",
)

_PRESETS: dict[Language, tuple[str, ...]] = {
    Language.C: _C_FAMILY,
    Language.CPP: _C_FAMILY,
    Language.GO: _starting_lines(
        "func ", "var ", "const ", "type ", "if ", "for ", "switch ", "case "
    ),
    Language.JAVA: _starting_lines(
        "class ", "public ", "protected ", "private ", "static ",
        "if ", "for ", "while ", "switch ", "case ",
    ),
    Language.KOTLIN: _starting_lines(
        "class ", "public ", "protected ", "private ", "internal ", "companion ", "fun ",
        "val ", "var ", "if ", "for ", "while ", "when ", "else ",
    ),
    Language.JS: _starting_lines(
        "function ", "const ", "let ", "var ", "class ",
        "if ", "for ", "while ", "switch ", "case ", "default ",
    ),
    Language.TS: _starting_lines(
        "enum ", "interface ", "namespace ", "type ", "class ", "function ", "const ", "let ",
        "var ", "if ", "for ", "while ", "switch ", "case ", "default ",
    ),
    Language.PHP: _starting_lines(
        "function ", "class ", "if ", "foreach ", "while ", "do ", "switch ", "case "
    ),
    Language.PROTO: _starting_lines(
        "message ", "service ", "enum ", "option ", "import ", "syntax "
    ),
    Language.PYTHON: _starting_lines("class ", "def ", "\tdef "),
    # R's calls are written with an escaped parenthesis: presets are regular expressions.
    Language.R: _starting_lines(
        "function ", "setClass\\(", "setMethod\\(", "setGeneric\\(", "if ", "else ", "for ",
        "while ", "repeat ", "library\\(", "require\\(",
    ),
    Language.RST: ("\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n") + _LINES,
    Language.RUBY: _starting_lines(
        "def ", "class ", "if ", "unless ", "while ", "for ", "do ", "begin ", "rescue "
    ),
    Language.ELIXIR: _starting_lines(
        "def ", "defp ", "defmodule ", "defprotocol ", "defmacro ", "defmacrop ",
        "if ", "unless ", "case ", "cond ", "with ", "for ", "do ",
    ),
    Language.RUST: _starting_lines(
        "fn ", "const ", "let ", "if ", "while ", "for ", "loop ", "match "
    ),
    Language.SCALA: _starting_lines(
        "class ", "object ", "def ", "val ", "var ", "if ", "for ", "while ", "match ", "case "
    ),
    Language.SWIFT: _starting_lines(
        "func ", "class ", "struct ", "enum ", "if ", "for ", "while ", "do ", "switch ", "case "
    ),
    Language.MARKDOWN: (
        "\n#{1,6} ",
        "```\n",
        "\n\\*\\*\\*+\n",
        "\n---+\n",
        "\n___+\n",
    ) + _LINES,
    Language.LATEX: (
        "\n\\\\chapter{",
        "\n\\\\section{",
        "\n\\\\subsection{",
        "\n\\\\subsubsection{",
        "\n\\\\begin{enumerate}",
        "\n\\\\begin{itemize}",
        "\n\\\\begin{description}",
        "\n\\\\begin{list}",
        "\n\\\\begin{quote}",
        "\n\\\\begin{quotation}",
        "\n\\\\begin{verse}",
        "\n\\\\begin{verbatim}",
        "\n\\\\begin{align}",
        "$$",
        "$",
        " ",
        "",
    ),
    Language.HTML: tuple(
        "<" + tag
        for tag in (
            "body", "div", "p", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "span",
            "table", "tr", "td", "th", "ul", "ol", "header", "footer", "nav",
            "head", "style", "script", "meta", "title",
        )
    ) + ("",),
    Language.CSHARP: _starting_lines(
        "interface ", "enum ", "delegate ", "event ", "class ", "abstract ", "public ",
        "protected ", "private ", "static ", "return ", "if ", "continue ", "for ",
        "foreach ", "while ", "switch ", "break ", "case ", "else ", "try ", "throw ",
        "finally ", "catch ",
    ),
    Language.SOL: _starting_lines(
        "pragma ", "using ", "contract ", "interface ", "library ", "constructor ", "type ",
        "function ", "event ", "modifier ", "error ", "struct ", "enum ", "if ", "for ",
        "while ", "do while ", "assembly ",
    ),
    # COBOL has no blank-line fallback: paragraphs are not separated by blank lines there.
    Language.COBOL: tuple(
        "\n" + keyword
        for keyword in (
            "IDENTIFICATION DIVISION.", "ENVIRONMENT DIVISION.", "DATA DIVISION.",
            "PROCEDURE DIVISION.", "WORKING-STORAGE SECTION.", "LINKAGE SECTION.",
            "FILE SECTION.", "INPUT-OUTPUT SECTION.", "OPEN ", "CLOSE ", "READ ", "WRITE ",
            "IF ", "ELSE ", "MOVE ", "PERFORM ", "UNTIL ", "VARYING ", "ACCEPT ", "DISPLAY ",
            "STOP RUN.",
        )
    ) + ("\n", " ", ""),
    Language.LUA: _starting_lines("local ", "function ", "if ", "for ", "while ", "repeat "),
    Language.HASKELL: _starting_lines(
        "main :: ", "main = ", "let ", "in ", "do ", "where ", ":: ", "= ", "data ",
        "newtype ", "type ", "module ", "import ", "qualified ", "import qualified ",
        "class ", "instance ", "case ", "| ", "= {", ", ",
    ),
    Language.POWERSHELL: _starting_lines(
        "function ", "param ", "if ", "foreach ", "for ", "while ", "switch ", "class ",
        "try ", "catch ", "finally ",
    ),
    Language.VISUALBASIC6: _VB6,
}

LANGUAGE_SEPARATORS: Mapping[Language, tuple[str, ...]] = MappingProxyType(_PRESETS)
"""Read-only map from :class:`Language` to its separators (regular expressions)."""


def get_separators_for_language(language: Language | str) -> list[str]:
    """The separators (regular expressions, coarsest first) for ``language``, as a new list.

    Accepts a :class:`Language` or its value (``"python"``). Raises ValueError for a name
    that is not a language, or a language without a preset (``Language.PERL``, as LangChain).

    >>> get_separators_for_language(Language.PYTHON)[:2]
    ['\\nclass ', '\\ndef ']
    """
    try:
        member = Language(language)
    except ValueError:
        known = ", ".join(member.value for member in Language)
        raise ValidationError(
            f"Language {language!r} is not supported; choose one of: {known}"
        ) from None
    separators = _PRESETS.get(member)
    if separators is None:
        with_presets = ", ".join(member.value for member in _PRESETS)
        raise ValidationError(
            f"Language {member.value!r} has no separator preset yet; "
            f"languages with presets: {with_presets}"
        )
    return list(separators)
