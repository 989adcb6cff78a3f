"""The streaming scan reads plain tags (a name, double-quoted attributes) on a shortcut:
it must give exactly the events html.parser's general path gives."""

from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from loaders._page_scan import _Stream

_NAMES = st.sampled_from(["p", "A", "div", "h2", "Span", "td", "script", "style", "title", "textarea", "br", "x1"])
_ATTRIBUTE_NAMES = st.sampled_from(["href", "ID", "class", "data-x", "xml:lang", "a.b"])
_VALUES = st.text(alphabet='ab &;<>"\'/=#x', max_size=8)
_QUOTES = st.sampled_from(['"{}"', "'{}'", "{}"])


@st.composite
def _tag(draw: st.DrawFn) -> str:
    name = draw(_NAMES)
    if draw(st.booleans()):
        return f"</{name}>"
    attributes = "".join(f" {draw(_ATTRIBUTE_NAMES)}={draw(_QUOTES).format(draw(_VALUES))}"
                         for _ in range(draw(st.integers(0, 3))))
    return f"<{name}{attributes}{draw(st.sampled_from(['>', ' >', '/>']))}"


_markup = st.lists(st.one_of(_tag(), st.text(alphabet="ab <>&;", min_size=1, max_size=5)), max_size=25).map("".join)


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def start(self, tag: str, attributes: dict) -> None:
        self.events.append(("start", tag, dict(attributes)))

    def end(self, tag: str) -> None:
        self.events.append(("end", tag))

    def data(self, text: str) -> None:
        self.events.append(("data", text))


class _General(HTMLParser):
    """html.parser with no shortcut, feeding the same recorder calls."""

    def __init__(self, reader: _Recorder) -> None:
        super().__init__(convert_charrefs=True)
        self.reader = reader

    handle_starttag, handle_endtag, handle_data = _Stream.handle_starttag, _Stream.handle_endtag, _Stream.handle_data


def _events(parser_class: type, markup: str) -> list[tuple]:
    recorder = _Recorder()
    parser = parser_class(recorder)
    parser.feed(markup)
    parser.close()
    return recorder.events


@settings(deadline=None, max_examples=200)
@given(markup=_markup)
def test_the_plain_tag_shortcut_gives_html_parsers_events(markup: str) -> None:
    assert _events(_Stream, markup) == _events(_General, markup)


def test_plain_tags_with_entities_in_attributes_are_unescaped_as_html_parser_does() -> None:
    markup = '<a HREF="/x?a=1&amp;b=2" class="">t</a><script>if (a<b) {}</script></p>'
    assert _events(_Stream, markup) == _events(_General, markup)
    assert ("start", "a", {"href": "/x?a=1&b=2", "class": ""}) in _events(_Stream, markup)
