"""A light tree of the shape BeautifulSoup's ``html.parser`` builder makes, without bs4's cost.

LangChain's HTML splitters parse with ``BeautifulSoup(html, "html.parser")`` and read the
tree back; most of that time is bs4's object model, not the tokenizer. :func:`parse` drives
the same standard-library tokenizer and applies bs4's tree-building rules (4.12 to 4.15):

- an end tag closes the most recent open element of its name, and everything opened after
  it; an end tag with no open element of its name is ignored;
- void elements (``br``, ``img``...) close at once; ``<x/>`` closes ``x`` at once; the first
  ``</br>`` after a ``<br>`` is ignored;
- adjacent character data is one string; a string of ASCII whitespace only becomes ``"\\n"``
  (if it held a newline) or ``" "``, except inside ``pre`` and ``textarea``;
- entity references are decoded with bs4's table (unknown ones stay as ``&name``), numeric
  ones as bs4 does (Windows-1252 for 128-159, U+FFFD for invalid);
- comments, doctypes, CDATA sections and processing instructions are strings of their own
  kinds; strings inside ``script``, ``style``, ``template``, ``rt`` and ``rp`` are of those
  kinds, which ``get_text`` of other elements skips.

Plain text is a ``str``; other strings are :class:`Aside` (a ``str`` with a ``kind``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Union

from splitters._html_lexer import lex_into

__all__ = ["Aside", "Element", "Node", "parse", "get_text", "to_beautiful_soup"]

_VOID = frozenset(
    "area base basefont bgsound br col command embed frame hr image img input isindex "
    "keygen link menuitem meta nextid param source spacer track wbr".split()
)
_PRESERVE_WHITESPACE = frozenset(("pre", "textarea"))
_STRING_CONTAINERS = frozenset(("rt", "rp", "style", "script", "template"))
_ASCII_SPACES = " \n\t\x0c\r"
_MAIN_KINDS = frozenset(("text", "cdata"))


class Aside(str):
    """A string that is not plain text: ``kind`` is comment, doctype, declaration, pi, or
    the name of the string container it sits in (script, style, template, rt, rp).
    CDATA sections are plain text to ``get_text``, so they are Asides of kind ``cdata``."""

    kind: str

    def __new__(cls, value: str, kind: str) -> Aside:
        string = super().__new__(cls, value)
        string.kind = kind
        return string


class Element:
    """An element: ``name``, ``attrs`` (values as written; valueless ones ``""``) and
    ``children`` (Elements and strings, in order)."""

    __slots__ = ("name", "attrs", "children")

    def __init__(self, name: str, attrs: dict[str, str], children: list[Node] | None = None) -> None:
        self.name = name
        self.attrs = attrs
        self.children: list[Node] = [] if children is None else children

    def get(self, key: str, default: str = "") -> str:
        return self.attrs.get(key, default)

    def element_children(self) -> list[Element]:
        return [child for child in self.children if type(child) is Element]

    def __repr__(self) -> str:
        return f"Element({self.name!r}, {self.attrs!r}, {len(self.children)} children)"


Node = Union[Element, str]


def _strings(element: Element) -> Iterator[str]:
    """Every string under ``element``, in document order (iterative: pages can be deep)."""
    stack = [iter(element.children)]
    while stack:
        for child in stack[-1]:
            if type(child) is Element:
                stack.append(iter(child.children))  # type: ignore[union-attr]
                break
            yield child  # type: ignore[misc]
        else:
            stack.pop()


def get_text(element: Element, strip: bool = False) -> str:
    """bs4's ``Tag.get_text(strip=strip)``: its plain-text (and CDATA) strings, or for a
    string container (``script``...) its own kind's strings; stripped and blank ones left
    out when ``strip``."""
    kinds = {element.name} if element.name in _STRING_CONTAINERS else _MAIN_KINDS
    pieces = []
    for string in _strings(element):
        kind = string.kind if type(string) is Aside else "text"  # type: ignore[attr-defined]
        if kind not in kinds:
            continue
        if strip:
            string = string.strip()
            if not string:
                continue
        pieces.append(string)
    return "".join(pieces)


_NUMERIC_PREFIX = {10: re.compile("^([0-9]+)(.*)"), 16: re.compile("^([0-9a-f]+)(.*)")}


def _numeric_reference(name: str) -> str:
    """bs4's decoding of ``&#name;`` (with any data html.parser left in ``name``)."""
    from bs4.dammit import UnicodeDammit

    base = 10
    if name[:1] in ("x", "X"):
        name, base = name[1:], 16
    extra = ""
    try:
        number: int | None = int(name, base)
    except ValueError:
        match = _NUMERIC_PREFIX[base].search(name)
        number = None
        if match is not None:
            number, extra = int(match.group(1), base), match.group(2)
        else:
            extra = name
    character = "" if number is None else UnicodeDammit.numeric_character_reference(number)[0]
    return character + extra


class _TreeBuilder(HTMLParser):
    """html.parser events to an Element tree, with bs4's rules (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        from bs4.dammit import EntitySubstitution

        self._entities = EntitySubstitution.HTML_ENTITY_TO_CHARACTER
        self.root = Element("[document]", {})
        self._stack = [self.root]
        self._open: dict[str, int] = {}
        self._data: list[str] = []
        self._preserving = 0  # open pre/textarea elements
        self._containers: list[str] = []  # open string containers, innermost last
        self._closed_voids: list[str] = []

    def _flush(self, kind: str | None = None) -> None:
        if not self._data:
            return
        data = "".join(self._data)
        self._data = []
        if not self._preserving and not data.strip(_ASCII_SPACES):
            data = "\n" if "\n" in data else " "
        if kind is None and self._containers:
            kind = self._containers[-1]
        self._stack[-1].children.append(data if kind is None else Aside(data, kind))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)
        if tag in _VOID:
            self._pop_to(tag)
            self._closed_voids.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)
        self._pop_to(tag)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._flush()
        element = Element(tag, {key: "" if value is None else value for key, value in attrs})
        self._stack[-1].children.append(element)
        self._stack.append(element)
        self._open[tag] = self._open.get(tag, 0) + 1
        if tag in _PRESERVE_WHITESPACE:
            self._preserving += 1
        if tag in _STRING_CONTAINERS:
            self._containers.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._closed_voids:
            self._closed_voids.remove(tag)
            return
        self._pop_to(tag)

    def _pop_to(self, tag: str) -> None:
        self._flush()
        if not self._open.get(tag):
            return
        while len(self._stack) > 1:
            name = self._pop().name
            if name == tag:
                return

    def _pop(self) -> Element:
        element = self._stack.pop()
        self._open[element.name] -= 1
        if element.name in _PRESERVE_WHITESPACE:
            self._preserving -= 1
        if self._containers and element.name == self._containers[-1]:
            self._containers.pop()
        return element

    def handle_data(self, data: str) -> None:
        self._data.append(data)

    def handle_charref(self, name: str) -> None:
        self._data.append(_numeric_reference(name))

    def handle_entityref(self, name: str) -> None:
        character = self._entities.get(name)
        self._data.append(character if character is not None else "&" + name)

    def _special(self, data: str, kind: str) -> None:
        self._flush()
        self._data.append(data)
        self._flush(kind)

    def handle_comment(self, data: str) -> None:
        self._special(data, "comment")

    def handle_decl(self, decl: str) -> None:
        self._special(decl[len("DOCTYPE ") :], "doctype")

    def unknown_decl(self, data: str) -> None:
        if data.upper().startswith("CDATA["):
            self._special(data[len("CDATA[") :], "cdata")
        else:
            self._special(data, "declaration")

    def handle_pi(self, data: str) -> None:
        self._special(data, "pi")


def parse(markup: str) -> Element:
    """The document node (named ``[document]``) of ``markup``, as bs4's html.parser builds it."""
    builder = _TreeBuilder()
    if not lex_into(builder, markup):
        builder = _TreeBuilder()
        builder.feed(markup)
        builder.close()
    builder._flush()
    return builder.root


def _serialize(node: Node, out: list[str], raw: bool = False) -> None:
    if type(node) is not Element:
        kind = node.kind if type(node) is Aside else "text"  # type: ignore[union-attr]
        if kind == "comment":
            out.append(f"<!--{node}-->")
        elif kind == "doctype":
            out.append(f"<!DOCTYPE {node}>")
        elif kind == "cdata":
            out.append(f"<![CDATA[{node}]]>")
        elif kind == "declaration":
            out.append(f"<!{node}>")
        elif kind == "pi":
            out.append(f"<?{node}>")
        else:
            out.append(node if raw else html.escape(node, quote=False))  # type: ignore[arg-type]
        return
    attrs = "".join(f' {key}="{html.escape(value)}"' for key, value in node.attrs.items())  # type: ignore[union-attr]
    out.append(f"<{node.name}{attrs}>")  # type: ignore[union-attr]
    if node.name in _VOID:  # type: ignore[union-attr]
        return
    for child in node.children:  # type: ignore[union-attr]
        _serialize(child, out, node.name in ("script", "style"))  # type: ignore[union-attr]
    out.append(f"</{node.name}>")  # type: ignore[union-attr]


def to_beautiful_soup(element: Element):  # type: ignore[no-untyped-def]
    """A ``bs4.Tag`` holding a copy of ``element`` (for callbacks written against bs4)."""
    from bs4 import BeautifulSoup

    out: list[str] = []
    _serialize(element, out)
    return BeautifulSoup("".join(out), "html.parser").find(element.name)
