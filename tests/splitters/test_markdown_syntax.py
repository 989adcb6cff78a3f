"""ExperimentalMarkdownSyntaxTextSplitter: sections, code blocks and rules, as LangChain's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitters import ExperimentalMarkdownSyntaxTextSplitter

lc = pytest.importorskip("langchain_text_splitters")


def _pairs(documents):
    return [(document.page_content, document.metadata) for document in documents]


def _both(text, **kwargs):
    ours = ExperimentalMarkdownSyntaxTextSplitter(**kwargs).split_text(text)
    reference = lc.ExperimentalMarkdownSyntaxTextSplitter(**kwargs).split_text(text)
    return _pairs(ours), _pairs(reference)


README = """\
# Project

An introduction with  two spaces
   and an indented line.

## Install

Run this:

```bash
pip install project
  # indented comment
```

~~~
plain fence
~~~

---

## Usage
Text after a rule.
***
### Deep
Deep text.
#### Deeper
##### Deepest
###### Six
####### Seven is text
#not a header
# Back to one
Last line without newline"""


def test_sections_keep_exact_whitespace():
    documents = ExperimentalMarkdownSyntaxTextSplitter().split_text("# A\n  two  spaces\n\n")
    assert _pairs(documents) == [("  two  spaces\n\n", {"Header 1": "A"})]


def test_code_block_is_its_own_document_with_its_language():
    documents = ExperimentalMarkdownSyntaxTextSplitter().split_text("text\n```py\nx = 1\n```\nmore\n")
    assert _pairs(documents) == [
        ("text\n", {}),
        ("```py\nx = 1\n```\n", {"Code": "py"}),
        ("more\n", {}),
    ]


def test_horizontal_rule_splits_and_is_dropped():
    documents = ExperimentalMarkdownSyntaxTextSplitter().split_text("one\n---\ntwo\n")
    assert [d.page_content for d in documents] == ["one\n", "two\n"]


def test_deeper_header_keeps_enclosing_headers():
    documents = ExperimentalMarkdownSyntaxTextSplitter().split_text("# A\n## B\nx\n# C\ny")
    assert _pairs(documents) == [
        ("x\n", {"Header 1": "A", "Header 2": "B"}),
        ("y", {"Header 1": "C"}),
    ]


def test_kept_header_line_starts_its_section():
    splitter = ExperimentalMarkdownSyntaxTextSplitter(strip_headers=False)
    assert _pairs(splitter.split_text("# A\nx\n")) == [("# A\nx\n", {"Header 1": "A"})]


def test_return_each_line_skips_blank_lines():
    splitter = ExperimentalMarkdownSyntaxTextSplitter(return_each_line=True)
    assert _pairs(splitter.split_text("# A\nx\n\n  \ny\n")) == [
        ("x", {"Header 1": "A"}),
        ("y", {"Header 1": "A"}),
    ]


def test_unconfigured_header_level_is_plain_text():
    splitter = ExperimentalMarkdownSyntaxTextSplitter([("#", "Title")])
    assert _pairs(splitter.split_text("# A\n## B\nx\n")) == [("## B\nx\n", {"Title": "A"})]


def test_rejects_markers_that_are_not_hashes():
    """LangChain accepts any marker and silently never matches one that is not 1 to 6 '#';
    we refuse it at once (a likely mix-up with the HTML splitters' ("h1", ...) pairs)."""
    with pytest.raises(ValueError, match=r"markers '#' to '######'.*'h1'"):
        ExperimentalMarkdownSyntaxTextSplitter([("h1", "Header 1")])


def test_non_string_text_is_a_type_error():
    with pytest.raises(TypeError):
        ExperimentalMarkdownSyntaxTextSplitter().split_text(None)


def test_repeated_calls_do_not_disturb_earlier_results():
    """LangChain returns the splitter's own list and clears it on the next call, so a kept
    result empties itself; we return a new list each time."""
    splitter = ExperimentalMarkdownSyntaxTextSplitter()
    first = splitter.split_text("# A\nx\n")
    splitter.split_text("# B\ny\n")
    assert _pairs(first) == [("x\n", {"Header 1": "A"})]


def test_unclosed_code_block_runs_to_the_end_of_the_text():
    """LangChain drops everything after a fence that is never closed (it returns "" for the
    block); CommonMark says such a block runs to the end of the document, so we keep it."""
    text = "intro\n```python\nx = 1\nmore code\n"
    ours = ExperimentalMarkdownSyntaxTextSplitter().split_text(text)
    assert _pairs(ours) == [("intro\n", {}), ("```python\nx = 1\nmore code\n", {"Code": "python"})]
    reference = lc.ExperimentalMarkdownSyntaxTextSplitter().split_text(text)
    assert _pairs(reference) == [("intro\n", {})]


@pytest.mark.parametrize("strip_headers", [True, False])
@pytest.mark.parametrize("return_each_line", [True, False])
@pytest.mark.parametrize(
    "headers", [None, [("#", "H1"), ("###", "H3")], [("##", "Section"), ("######", "Six")]]
)
def test_readme_equals_langchain(strip_headers, return_each_line, headers):
    kwargs = dict(
        headers_to_split_on=headers, strip_headers=strip_headers, return_each_line=return_each_line
    )
    ours, reference = _both(README, **kwargs)
    assert ours == reference


md_lines = st.sampled_from(
    [
        "# One", "## Two", "### Three", "#### Four", "###### Six", "####### Seven", "#NoSpace",
        "# ", "#", "plain text", "  indented", "", " ", "```", "```python", "~~~", "~~~js",
        "code = 1", "---", "----", "--- ", "***", "___", "**bold**", "- item", "_x_", "\t",
    ]
)
line_ends = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\x0c", "\u2028"])


@st.composite
def markdown(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.tuples(md_lines, line_ends), max_size=30))
    # Close every fence: an unclosed one is a documented difference.
    fences = sum(1 for line, _ in lines if line.startswith(("```", "~~~")))
    text = "".join(line + end for line, end in lines)
    if fences % 2:
        text += "```\n"
    if draw(st.booleans()) and text.endswith("\n"):
        text = text[:-1]
    return text


@settings(deadline=None, max_examples=50)
@given(
    text=markdown(),
    strip_headers=st.booleans(),
    return_each_line=st.booleans(),
    headers=st.sampled_from([None, [("#", "A"), ("##", "B")], [("###", "C")]]),
)
def test_generated_markdown_equals_langchain(text, strip_headers, return_each_line, headers):
    kwargs = dict(
        headers_to_split_on=headers, strip_headers=strip_headers, return_each_line=return_each_line
    )
    ours, reference = _both(text, **kwargs)
    assert ours == reference
