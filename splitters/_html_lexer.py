"""A fast path for html.parser: the same handler calls for well-formed markup, or a refusal.

The standard library's ``HTMLParser`` spends most of its time in per-token bookkeeping
(position and line tracking, several regex probes per tag). :func:`lex_into` reads the
common, unambiguous subset of HTML with one regular expression per token and calls the
builder's ``handle_*`` methods exactly as ``HTMLParser.goahead`` would for that input:

- start tags with ASCII names and attributes (quoted, unquoted or valueless values),
  optionally self-closing; end tags; ``<!--comments-->`` holding no ``--``; doctypes;
  ``<?processing instructions>``;
- text, with character references decoded as html.parser does in the builder's
  ``convert_charrefs`` mode;
- the raw text of the builder's ``CDATA_CONTENT_ELEMENTS`` up to their end tag.

Anything else (a ``<`` that starts none of these, ``<![CDATA[``, a stray ``&#`` form, an
unclosed ``<script>``) makes it return False, and the caller parses the page with
``HTMLParser`` on a fresh builder. Both paths give the same events on the subset (tested
against ``HTMLParser`` on generated markup).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import unescape
from html.parser import HTMLParser

__all__ = ["lex_into"]

_SPACE = "[ \t\n\r\f]"
_TOKEN = re.compile(
    rf"""<(?:
        (?P<start>[a-zA-Z][a-zA-Z0-9-]*)
        (?P<attrs>(?:{_SPACE}+[a-zA-Z_:][-.:a-zA-Z0-9_]*
            (?:{_SPACE}*={_SPACE}*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)
        {_SPACE}*(?P<close>/?)>
      | /(?P<end>[a-zA-Z][-.a-zA-Z0-9:_]*){_SPACE}*>
      | !--(?P<comment>(?!-?>)(?:(?!--).)*)-->
      | !(?P<decl>[dD][oO][cC][tT][yY][pP][eE][^>]*)>
      | \?(?P<pi>[^>]*)>
    )""",
    re.X | re.S,
)
_ATTRIBUTE = re.compile(
    rf"""{_SPACE}+([a-zA-Z_:][-.:a-zA-Z0-9_]*)(?:{_SPACE}*={_SPACE}*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?"""
)
# html.parser's own patterns for references in text (convert_charrefs=False).
_ENTITYREF = re.compile("&([a-zA-Z][-.a-zA-Z0-9]*)[^a-zA-Z0-9]")
_CHARREF = re.compile("&#(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F]")
_AMPERSAND_SAFE = re.compile("&(?![a-zA-Z#])")


def _attributes(text: str) -> list[tuple[str, str | None]]:
    attrs: list[tuple[str, str | None]] = []
    for name, value in _ATTRIBUTE.findall(text):
        if not value:
            attrs.append((name.lower(), None))
            continue
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        attrs.append((name.lower(), unescape(value) if value else value))
    return attrs


def _text(builder: HTMLParser, markup: str, start: int, end: int) -> bool:
    """Send ``markup[start:end]`` as html.parser does with convert_charrefs=False."""
    position = start
    while True:
        ampersand = markup.find("&", position, end)
        if ampersand < 0:
            if position < end:
                builder.handle_data(markup[position:end])
            return True
        if position < ampersand:
            builder.handle_data(markup[position:ampersand])
        match = _CHARREF.match(markup, ampersand) if markup.startswith("&#", ampersand) else None
        if match is not None:
            builder.handle_charref(match.group()[2:-1])
        else:
            match = _ENTITYREF.match(markup, ampersand)
            if match is not None:
                builder.handle_entityref(match.group(1))
            elif _AMPERSAND_SAFE.match(markup, ampersand) and ampersand + 1 < len(markup):
                builder.handle_data("&")
                position = ampersand + 1
                continue
            else:
                return False  # an incomplete reference: html.parser's rules there are subtle
        position = match.end()
        if markup[position - 1] != ";":
            position -= 1
        if position > end:
            return False


@lru_cache(maxsize=None)
def _raw_text_end(name: str) -> re.Pattern[str]:
    """html.parser's end of a raw text element (``set_cdata_mode``)."""
    return re.compile(rf"</\s*{name}\s*>", re.I)


def lex_into(builder: HTMLParser, markup: str) -> bool:
    """Feed ``markup`` to ``builder``'s handlers as ``builder.feed(markup); builder.close()``
    would; False if ``markup`` leaves the fast subset (the builder is then half fed)."""
    convert = builder.convert_charrefs
    raw_elements = builder.CDATA_CONTENT_ELEMENTS
    handle_data = builder.handle_data
    handle_starttag, handle_endtag = builder.handle_starttag, builder.handle_endtag
    match_token = _TOKEN.match
    find = markup.find
    position, length = 0, len(markup)
    while position < length:
        bracket = find("<", position)
        if bracket < 0:
            bracket = length
        if position < bracket:
            if convert:
                data = markup[position:bracket]
                handle_data(unescape(data) if "&" in data else data)
            elif not _text(builder, markup, position, bracket):
                return False
        if bracket == length:
            return True
        token = match_token(markup, bracket)
        if token is None:
            return False
        position = token.end()
        kind = token.lastgroup  # "close" for a start tag: its last group always matches
        if kind == "close":
            name, attributes, close = token.group("start", "attrs", "close")
            name = name.lower()
            attrs = _attributes(attributes) if attributes else []
            if close:
                builder.handle_startendtag(name, attrs)
                continue
            handle_starttag(name, attrs)
            if name in raw_elements:
                closing = _raw_text_end(name).search(markup, position)
                if closing is None:
                    return False
                if position < closing.start():
                    handle_data(markup[position : closing.start()])
                handle_endtag(name)
                position = closing.end()
        elif kind == "end":
            handle_endtag(token.group("end").lower())
        elif kind == "comment":
            builder.handle_comment(token.group("comment"))
        elif kind == "decl":
            builder.handle_decl(token.group("decl"))
        else:
            builder.handle_pi(token.group("pi"))
    return True
