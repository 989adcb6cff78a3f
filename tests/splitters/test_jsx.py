"""JSFrameworkTextSplitter: LangChain's chunks for React, Vue and Svelte code; true offsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitters import JSFrameworkTextSplitter
from splitters.jsx import component_tags

lc = pytest.importorskip("langchain_text_splitters")

FRAGMENTS = [
    "<div>", "</div>", "<Button onClick={go}>", "</Button>", "<App/>", "< span class='x'>",
    "<>", "</>", "<template>", "<script>", "{#if ok}", "\nexport ", " export ", "\nfunction ",
    "\nasync function ", "\nconst ", "\nlet ", "\nclass ", " if ", "\nfor ", " while ",
    "\nswitch ", " case ", "\ndefault ", "&&\n", "||\n", "\n\n", "\n", " ", "x = 1;",
    "a < b && c > d", "return (", ");", "words here",
]
code = st.lists(st.sampled_from(FRAGMENTS), max_size=50).map("".join)
KEEP_MODES = [True, False, "start", "end"]

SAMPLE = """import React from 'react';

export const Card = ({ title, body }) => {
  const [open, setOpen] = useState(false);
  if (!title) return null;
  return (
    <div className="card">
      <Header title={title} onToggle={() => setOpen(!open)} />
      {open && <Body text={body} />}
    </div>
  );
};

export default function App() {
  return <>
    <Card title="One" body="First" />
    <Card title="Two" body="Second" />
  </>;
}
"""


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    chunk_size = draw(st.integers(1, 80))
    return chunk_size, draw(st.integers(0, chunk_size))


@settings(deadline=None, max_examples=50)
@given(text=code, size=sizes(), keep=st.sampled_from(KEEP_MODES))
def test_jsx_chunks_equal_langchain(text, size, keep):
    kwargs = dict(chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep)
    ours = JSFrameworkTextSplitter(**kwargs).split_text(text)
    assert ours == lc.JSFrameworkTextSplitter(**kwargs).split_text(text)


@settings(deadline=None, max_examples=30)
@given(
    text=code,
    size=sizes(),
    separators=st.lists(st.sampled_from(["\n\n", "<div", "x", ";", "\n"]), max_size=3),
    regex=st.booleans(),
)
def test_jsx_chunks_with_own_separators_equal_langchain(text, size, separators, regex):
    kwargs = dict(
        separators=separators, chunk_size=size[0], chunk_overlap=size[1], is_separator_regex=regex
    )
    ours = JSFrameworkTextSplitter(**kwargs).split_text(text)
    assert ours == lc.JSFrameworkTextSplitter(**kwargs).split_text(text)


@pytest.mark.parametrize("size", [(2000, 0), (120, 0), (60, 20), (25, 5)])
def test_react_component_chunks_equal_langchain(size):
    kwargs = dict(chunk_size=size[0], chunk_overlap=size[1])
    ours = JSFrameworkTextSplitter(**kwargs).split_text(SAMPLE)
    assert ours == lc.JSFrameworkTextSplitter(**kwargs).split_text(SAMPLE)


@settings(deadline=None, max_examples=50)
@given(text=code, size=sizes(), keep=st.sampled_from([True, "start", "end"]))
def test_jsx_start_index_points_at_the_chunk_in_the_source(text, size, keep):
    splitter = JSFrameworkTextSplitter(
        chunk_size=size[0], chunk_overlap=size[1], keep_separator=keep, add_start_index=True
    )
    for document in splitter.create_documents([text]):
        start = document.metadata["start_index"]
        assert text[start : start + len(document.page_content)] == document.page_content


def test_defaults_are_langchains():
    splitter = JSFrameworkTextSplitter()
    assert (splitter._chunk_size, splitter._chunk_overlap, splitter._separators) == (2000, 0, [])


def test_component_tags_are_listed_once_in_order_of_appearance():
    assert component_tags("<App><Card/><Card x={1}></Card><br/></App>") == ["App", "Card", "br"]


def test_each_text_gets_only_its_own_tags_as_separators():
    splitter = JSFrameworkTextSplitter(chunk_size=12, chunk_overlap=0)
    first = splitter.split_text("<Alpha>one</Alpha><Beta>two</Beta>")
    splitter.split_text("<Gamma>three</Gamma>")
    assert splitter.split_text("<Alpha>one</Alpha><Beta>two</Beta>") == first
    assert splitter._separators == []


def test_a_subclass_overriding_split_text_is_honoured_with_start_index():
    class Upper(JSFrameworkTextSplitter):
        def split_text(self, text):
            return [chunk.upper() for chunk in super().split_text(text)]

    documents = Upper(chunk_size=10, add_start_index=True).create_documents(["<a>x</a>"])
    assert [d.page_content for d in documents] == ["<A>X</A>"]
