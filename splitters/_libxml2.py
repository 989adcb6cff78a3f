"""The text libxml2's HTML parser and serializer leave in a page, without lxml.

LangChain's :class:`HTMLSectionSplitter` parses a page with lxml (libxml2 2.14), rewrites
it with an XSLT, serialises it as indented HTML and parses that again with BeautifulSoup.
What survives that round trip is the libxml2 tree's strings plus the newlines its
serializer inserts between block elements. This module reproduces both on top of the
standard library's tokenizer:

- :class:`_TreeBuilder` applies libxml2's legacy HTML tree construction: implied ``html``,
  ``head`` and ``body``; start tags that close open elements (``htmlStartClose``); end
  tags that close up to their element unless a "stronger" element is in between
  (``htmlEndPriority``); misplaced ``html``/``head``/``body`` tags dropped; whitespace
  before any ``body`` content kept in ``html``/``head``; ``<x/>`` closing any element;
- :func:`page_strings` walks the tree as ``htmlNodeDumpFormatOutput`` writes it (a newline
  after a non-inline element's start tag, before its end tag and after it, when the
  neighbour is not text and the parent's name does not start with ``p``), and gives each
  string as BeautifulSoup would read it back (ASCII-whitespace-only strings become
  ``"\\n"`` or ``" "`` outside ``pre``/``textarea``).

The tables are libxml2 2.14's (``HTMLparser.c``: ``html40ElementTable``, ``htmlStartClose``,
``htmlEndPriority``). Tokenizing is html.parser's, so markup the two tokenizers read
differently (``textarea``/``title`` content holding tags, broken comments, ``<![CDATA[``)
may give different text.
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

from splitters._html_lexer import lex_into
from splitters._soup import Aside, Element

__all__ = ["parse_like_libxml2", "page_strings"]

# isinline is 1 or 2 in the table (2: elements that may also be blocks); both are inline.
_INLINE = frozenset(
    "a abbr acronym applet b basefont bdo big br button cite code del dfn em embed font i "
    "iframe img input ins kbd label map object q s samp script select small span strike "
    "strong sub sup textarea tt u var xmp".split()
)
_EMPTY = frozenset("area base basefont br col frame hr img input isindex link meta param".split())
# Known elements written without an end tag when they have no children.
_SAVE_END_TAG = _EMPTY | {"li"}
_KNOWN = frozenset(
    "a abbr acronym address applet area b base basefont bdo big blockquote body br button "
    "caption center cite code col colgroup dd del dfn dir div dl dt em embed fieldset font "
    "form frame frameset h1 h2 h3 h4 h5 h6 head hr html i iframe img input ins isindex kbd "
    "label legend li link map menu meta noembed noframes noscript object ol optgroup option "
    "p param plaintext pre q s samp script select small span strike strong style sub sup "
    "table tbody td textarea tfoot th thead title tr tt u ul var xmp".split()
)
_HEADINGS_CLOSED_BY = "fieldset form li p table"
_CLOSED_BY: dict[str, str] = {
    "a": "a fieldset table td th",
    "address": "dd dl dt form li ul",
    "b": "center p td th",
    "big": "p",
    "caption": "col colgroup tbody tfoot thead tr",
    "col": "col colgroup tbody tfoot thead tr",
    "colgroup": "colgroup tbody tfoot thead tr",
    "dd": "dt",
    "dir": "dd dl dt form ul",
    "dl": "form li",
    "dt": "dd dl",
    "font": "center td th",
    "form": "form",
    **{f"h{level}": _HEADINGS_CLOSED_BY for level in range(1, 7)},
    "head": "a abbr acronym address b bdo big blockquote body br center cite code dd dfn dir "
    "div dl dt em fieldset font form frameset h1 h2 h3 h4 h5 h6 hr i iframe img kbd li "
    "listing map menu ol p pre q s samp small span strike strong sub sup table tt u ul var xmp",
    "hr": "form",
    "i": "center p td th",
    "legend": "fieldset",
    "li": "li",
    "link": "body frameset",
    "listing": "dd dl dt fieldset form li table ul",
    "menu": "dd dl dt form ul",
    "ol": "form",
    "option": "optgroup option",
    "p": "address blockquote body caption center col colgroup dd dir div dl dt fieldset form "
    "frameset h1 h2 h3 h4 h5 h6 head hr li listing menu ol p pre table tbody td tfoot th "
    "title tr ul xmp",
    "pre": "dd dl dt fieldset form li table ul",
    "s": "p",
    "script": "noscript",
    "small": "p",
    "span": "td th",
    "strike": "p",
    "style": "body frameset",
    "tbody": "tbody tfoot",
    "td": "tbody td tfoot th tr",
    "tfoot": "tbody",
    "th": "tbody td tfoot th tr",
    "thead": "tbody tfoot",
    "title": "body frameset",
    "tr": "tbody tfoot tr",
    "tt": "p",
    "u": "p td th",
    "ul": "address form menu pre",
    "xmp": "dd dl dt fieldset form li table ul",
}
_START_CLOSE = frozenset(
    (old, new) for old, news in _CLOSED_BY.items() for new in news.split()
)
_END_PRIORITY = {
    "div": 150, "td": 160, "th": 160, "tr": 170, "thead": 180, "tbody": 180, "tfoot": 180,
    "table": 190, "head": 200, "body": 200, "html": 220,
}
_HEAD_CONTENT = frozenset(("script", "style", "meta", "link", "title", "base"))
_HTML_WHITESPACE = " \t\n\x0c\r"
_IN_HEAD, _IN_BODY = 3, 10


class _TreeBuilder(HTMLParser):
    """html.parser events to the tree libxml2's legacy HTML parser builds."""

    # libxml2 reads these elements' content as raw text (title and textarea as RCDATA,
    # which html.parser cannot do).
    CDATA_CONTENT_ELEMENTS = ("script", "style", "xmp", "iframe", "noembed", "noframes")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("[document]", {})
        self._stack: list[Element] = []
        self._state = 0
        self._discarded = 0  # misplaced html/head/body start tags seen

    def _push(self, name: str, attrs: dict[str, str]) -> None:
        element = Element(name, attrs)
        (self._stack[-1] if self._stack else self.root).children.append(element)
        self._stack.append(element)
        if name == "head" and self._state < _IN_HEAD:
            self._state = _IN_HEAD
        elif name == "body" and self._state < _IN_BODY:
            self._state = _IN_BODY

    def _auto_close(self, name: str) -> None:
        stack = self._stack
        while stack and (stack[-1].name, name) in _START_CLOSE:
            stack.pop()

    def _check_implied(self, name: str) -> None:
        if name == "html":
            return
        stack = self._stack
        if not stack:
            self._push("html", {})
        if name in ("body", "head"):
            return
        if len(stack) <= 1 and name in _HEAD_CONTENT:
            if self._state < _IN_HEAD:
                self._push("head", {})
        elif name not in ("noframes", "frame", "frameset"):
            if self._state >= _IN_BODY or any(e.name in ("body", "head") for e in stack):
                return
            self._push("body", {})

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], self_closing: bool) -> None:
        self._auto_close(tag)
        self._check_implied(tag)
        stack = self._stack
        if (
            (tag == "html" and stack)
            or (tag == "head" and len(stack) != 1)
            or (tag == "body" and any(e.name == "body" for e in stack))
        ):
            self._discarded += 1
        else:
            values: dict[str, str] = {}
            for key, value in attrs:
                values.setdefault(key, "" if value is None else value)  # first one wins
            self._push(tag, values)
        # libxml2 then closes whatever element is current on "/>" or for a void element.
        if stack and (self_closing or stack[-1].name in _EMPTY):
            stack.pop()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, True)

    def handle_endtag(self, tag: str) -> None:
        if self._discarded and tag in ("html", "body", "head"):
            self._discarded -= 1
            return
        stack = self._stack
        names = [element.name for element in stack]
        if tag not in names:
            return
        priority = _END_PRIORITY.get(tag, 100)
        for name in reversed(names):
            if name == tag:
                break
            if _END_PRIORITY.get(name, 100) > priority:
                return  # a misplaced end tag may not close a stronger element
        while stack[-1].name != tag:
            stack.pop()
        stack.pop()

    def handle_data(self, data: str) -> None:
        stack = self._stack
        if not stack or stack[-1].name in ("html", "head"):
            rest = data.lstrip(_HTML_WHITESPACE)
            if len(rest) < len(data):
                self._append_text(data[: len(data) - len(rest)])
            if not rest:
                return
            data = rest
            if stack and stack[-1].name == "head":
                self._auto_close("p")
            self._check_implied("p")
        self._append_text(data)

    def _append_text(self, data: str) -> None:
        if not self._stack:
            return  # text outside any element is dropped
        children = self._stack[-1].children
        if children and type(children[-1]) is str:
            children[-1] += data  # type: ignore[operator]
        else:
            children.append(data)

    def handle_comment(self, data: str) -> None:
        (self._stack[-1] if self._stack else self.root).children.append(Aside(data, "comment"))

    def handle_pi(self, data: str) -> None:
        self.handle_comment("?" + data)  # libxml2 reads <?...> as a comment

    def unknown_decl(self, data: str) -> None:
        self.handle_comment(f"[{data}]]")

    def handle_decl(self, decl: str) -> None:
        pass  # the doctype is not part of the transformed page


def parse_like_libxml2(markup: str) -> Element:
    """The document node of ``markup`` as libxml2 2.14's HTML parser builds it."""
    # libxml2 (as HTML5 says) reads CR LF and lone CR as LF.
    markup = markup.replace("\r\n", "\n").replace("\r", "\n")
    builder = _TreeBuilder()
    if lex_into(builder, markup):
        return builder.root
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    if builder.cdata_elem and builder.rawdata:
        # An unclosed <script> (or other raw text element) runs to the end in libxml2;
        # some Python versions' html.parser keep that text back.
        builder.handle_data(builder.rawdata)
    return builder.root


def _newline_inside(element: Element) -> bool:
    """Whether the serializer writes a newline after the start tag (and before the end tag
    if the last child, like the first, is not text)."""
    return element.name in _KNOWN and element.name not in _INLINE and element.name[:1] != "p"


def page_strings(
    root: Element, on_element: Callable[[Element, int, bool], None]
) -> tuple[list[str], list[bool]]:
    """The strings BeautifulSoup reads from libxml2's indented serialisation of ``root``.

    Returns ``(strings, plain)``: ``plain[i]`` says whether ``strings[i]`` counts for
    ``get_text`` (text, not a comment nor script/style content). ``on_element(element,
    index, True)`` is called at every element's start with the index of its first string,
    and ``on_element(element, index, False)`` at its end with the index after its last.
    """
    strings: list[str] = []
    plain: list[bool] = []
    add_string, add_plain = strings.append, plain.append

    def add(string: str, is_plain: bool, preserving: bool) -> None:
        if not preserving and not string.strip(" \n\t\x0c\r"):
            string = "\n" if "\n" in string else " "
        add_string(string)
        add_plain(is_plain)

    # Frames of the enclosing elements: (element, next child position, preserving, plain).
    stack: list[tuple[Element, int, bool, bool]] = []
    children = root.children
    position = 0
    element = root
    preserving, is_plain = False, True
    while True:
        if position < len(children):
            child = children[position]
            position += 1
            if type(child) is Element:
                on_element(child, len(strings), True)  # type: ignore[arg-type]
                name = child.name  # type: ignore[union-attr]
                grandchildren = child.children  # type: ignore[union-attr]
                stack.append((element, position, preserving, is_plain))
                element, children, position = child, grandchildren, 0  # type: ignore[assignment]
                preserving = preserving or name in ("pre", "textarea")
                is_plain = is_plain and name not in ("script", "style", "template", "rt", "rp")
                if (
                    len(grandchildren) > 1
                    and type(grandchildren[0]) is not str
                    and _newline_inside(child)  # type: ignore[arg-type]
                ):
                    add("\n", is_plain, preserving)
                continue
            if type(child) is Aside:
                add(child, False, preserving)  # type: ignore[arg-type]
            else:
                add(child, is_plain, preserving)  # type: ignore[arg-type]
            continue
        if element is root:
            break
        # Leaving ``element``.
        if len(children) > 1 and type(children[-1]) is not str and _newline_inside(element):
            add("\n", is_plain, preserving)
        on_element(element, len(strings), False)
        finished = element
        element, position, preserving, is_plain = stack.pop()
        children = element.children
        if (
            position < len(children)
            and type(children[position]) is not str
            and finished.name in _KNOWN
            and finished.name not in _INLINE
            and element is not root
            and element.name[:1] != "p"
        ):
            add("\n", is_plain, preserving)
    return strings, plain
