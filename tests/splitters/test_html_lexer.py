"""The fast HTML lexer calls a builder's handlers exactly as html.parser does, or refuses."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitters._html_lexer import lex_into


class Recorder(HTMLParser):
    """Records handler calls, merging adjacent data (callers join it anyway)."""

    CDATA_CONTENT_ELEMENTS = ("script", "style", "xmp")

    def __init__(self, convert_charrefs: bool) -> None:
        super().__init__(convert_charrefs=convert_charrefs)
        self.events: list[tuple] = []

    def _add(self, *event: object) -> None:
        if event[0] == "data" and self.events and self.events[-1][0] == "data":
            self.events[-1] = ("data", self.events[-1][1] + event[1])
        else:
            self.events.append(event)

    def handle_starttag(self, tag, attrs):
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._add("startend", tag, attrs)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("data", data)

    def handle_charref(self, name):
        self._add("charref", name)

    def handle_entityref(self, name):
        self._add("entityref", name)

    def handle_comment(self, data):
        self._add("comment", data)

    def handle_decl(self, decl):
        self._add("decl", decl)

    def handle_pi(self, data):
        self._add("pi", data)

    def unknown_decl(self, data):
        self._add("unknown", data)


def _events(markup, convert, fast):
    recorder = Recorder(convert)
    if fast:
        if not lex_into(recorder, markup):
            return None
    else:
        recorder.feed(markup)
        recorder.close()
    return recorder.events


pieces = st.sampled_from(
    [
        "<p>", "</p>", "<div class=\"a b\">", "<a href=/x/y>", "<a href=x/>", "<br/>", "<br />",
        "<img src='i.png' alt=\"&amp;&quot;\">", "<input disabled>", "<P CLASS=Up>", "</DIV >",
        "<script>if (a < b && c) {}</script>", "<style>p > a {}</STYLE>", "<xmp><b>x</b></xmp>",
        "<!-- note -->", "<!---->", "<!--->", "<!-- a -- b -->", "<!DOCTYPE html>", "<?xml v?>",
        "<![CDATA[x]]>", "text", " ", "\n", "&amp;", "&amp", "&copy 2", "R&D", "a & b", "&#65;",
        "&#x263a;", "&#12ab;", "&#;", "&nosuch;", "&", "<", "< p", "</ p>", "<a b=c=d>",
        "<o:p>", "<p\xa0x>", "é", "<td nowrap width=10%>", "<a title='x\"y'>",
    ]
)


@settings(deadline=None, max_examples=50)
@given(parts=st.lists(pieces, max_size=12), convert=st.booleans())
def test_fast_lexer_gives_html_parser_events_or_refuses(parts, convert):
    markup = "".join(parts)
    fast = _events(markup, convert, True)
    if fast is not None:
        assert fast == _events(markup, convert, False)


@pytest.mark.parametrize(
    "markup",
    ["<html><body><h1 id=t>T</h1><p>a &amp; b</p><!-- c --></body></html>", "plain & simple", ""],
)
def test_fast_lexer_accepts_well_formed_pages(markup):
    assert _events(markup, False, True) == _events(markup, False, False)
    assert _events(markup, True, True) == _events(markup, True, False)


def test_fast_lexer_refuses_an_unclosed_script():
    assert _events("<script>x = 1", True, True) is None
