"""The playground opens a cited passage at its quote: in a real browser (Debian's Chromium
driven by Playwright, as tests/rag/serve/test_playground_browser.py), clicking a citation
shows the passage with the quote in a <mark>, scrolled into view inside the passage's own
scrolling box, however far down the passage the quote is."""

from __future__ import annotations

import pytest

from tests.rag.serve.test_playground_browser import (  # noqa: F401 (fixtures)
    CHROMIUM,
    TIMEOUT_MS,
    ask,
    browser,
    page,
    screenshot_on_failure,
)

from playwright.sync_api import expect  # noqa: E402

from rag.index import Index  # noqa: E402
from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

QUOTE = "Tomatoes need eight hours of direct sun each day."
# A long page whose answer is its last line: the passage opens far above the quote.
FILLER = "".join(f"Note {i} on compost, mulch and soil drainage in raised beds.\n\n" for i in range(60))


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quote-index")
    (folder / "docs").mkdir()
    (folder / "docs" / "garden.md").write_text(f"# Garden\n\n{FILLER}{QUOTE}\n")
    index = Index.create(folder / "index", embeddings="hashing")
    index.update([str(folder / "docs")])
    with serve_in_thread(index_app(index)) as base:
        yield base


def open_first_citation(page, url) -> None:
    page.goto(url)
    ask(page, "How many hours of sun do tomatoes need each day?")
    expect(page.locator("#answer[data-done=true]")).to_have_count(1)
    expect(page.locator("#answer")).to_contain_text(QUOTE)
    page.get_by_role("button", name="Open passage 1").first.click()


def test_a_citation_opens_its_passage_with_the_quote_highlighted(page, url):
    with screenshot_on_failure(page, "quote-highlighted"):
        open_first_citation(page, url)
        highlight = page.locator("#passage-text mark")
        expect(highlight).to_have_count(1)
        expect(highlight).to_have_text(QUOTE)
        expect(page.locator("#passage-text")).to_contain_text("Note 59 on compost")  # the passage around it too


def test_the_quote_is_scrolled_into_view_inside_the_passage_box(page, url):
    with screenshot_on_failure(page, "quote-scrolled"):
        open_first_citation(page, url)
        expect(page.locator("#passage-text mark")).to_have_count(1)
        box = page.evaluate("""() => {
            const body = document.getElementById("passage-text");
            const quote = body.querySelector("mark").getBoundingClientRect();
            const view = body.getBoundingClientRect();
            return {scrollTop: body.scrollTop, scrolls: body.scrollHeight > body.clientHeight,
                    quoteTop: quote.top, quoteBottom: quote.bottom,
                    viewTop: view.top + body.clientTop, viewBottom: view.top + body.clientTop + body.clientHeight,
                    windowHeight: window.innerHeight};
        }""")
        # The passage is taller than its box, so the quote at its end had to be scrolled to.
        assert box["scrolls"] and box["scrollTop"] > 0, box
        assert box["viewTop"] <= box["quoteTop"] and box["quoteBottom"] <= box["viewBottom"], box
        assert 0 <= box["quoteTop"] and box["quoteBottom"] <= box["windowHeight"], box
