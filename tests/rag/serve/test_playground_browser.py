"""The playground page in a real browser: Debian's Chromium driven by Playwright.

Asks a question on a small index, waits for the streamed answer, clicks a citation and
checks the passage. With CI=true these tests run and never skip (a missing browser is a
failure); elsewhere they skip without Chromium or Playwright. A failing test saves a
screenshot in $RAG_TEST_ARTIFACTS (default: <tmp>/rag-playground-screenshots) and names it.
"""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() == "true"

if not IN_CI:
    pytest.importorskip("playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from rag.serve import serve_in_thread  # noqa: E402
from rag.serve.index_app import index_app  # noqa: E402

from tests.rag.serve.index_server import build_index  # noqa: E402

ARTIFACTS = Path(os.environ.get("RAG_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "rag-playground-screenshots")
TIMEOUT_MS = 30_000  # a loaded CI machine; a healthy answer takes milliseconds
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return build_index(tmp_path_factory.mktemp("playground-index"))


@pytest.fixture(scope="module")
def url(index):
    with serve_in_thread(index_app(index)) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()


@contextmanager
def screenshot_on_failure(page, name: str):
    try:
        yield
    except BaseException:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot of the failing page: {path}")
        raise


def ask(page, question: str) -> None:
    page.get_by_label("Question").fill(question)
    page.get_by_label("Question").press("Enter")  # the keyboard, as a user without a mouse would


def test_a_question_streams_an_answer_and_a_citation_opens_its_passage(page, url):
    page.goto(url)
    with screenshot_on_failure(page, "citation"):
        ask(page, "Why do cats purr?")
        expect(page.locator("#answer[data-done=true]")).to_have_count(1)
        expect(page.locator("#answer")).to_contain_text("Cats purr when they are content.")
        citation = page.get_by_role("button", name="Open passage 1")
        citation.click()
        passage = page.locator("#passage")
        expect(passage).to_be_visible()
        expect(page.locator("#passage-text")).to_contain_text("A cat sleeps for sixteen hours a day.")
        expect(page.locator("#passage-title")).to_have_text("Cats")
        expect(page.locator("#passage-source")).to_contain_text("cats.md")
        expect(page.locator("#passage-position")).to_have_text(re.compile(r"\(characters 0–\d+\)"))
        expect(passage).to_be_focused()


def test_search_results_show_scores_and_the_trace_shows_timed_steps(page, url):
    page.goto(url)
    with screenshot_on_failure(page, "results-trace"):
        ask(page, "Why do cats purr?")
        expect(page.locator("#answer[data-done=true]")).to_have_count(1)
        expect(page.locator("#results li").first).to_contain_text("cats.md")
        expect(page.locator("#results li .score").first).to_contain_text("score 0.")
        expect(page.locator("#trace > li").first).to_contain_text("ask (chain)")
        expect(page.locator("#trace").get_by_text(re.compile(r"^IndexRetriever \(retriever\) [\d.]+ ms$"))).to_be_visible()


def test_a_citation_is_reachable_with_the_keyboard(page, url):
    page.goto(url)
    with screenshot_on_failure(page, "keyboard"):
        ask(page, "Why do cats purr?")
        expect(page.locator("#answer[data-done=true]")).to_have_count(1)
        page.get_by_role("button", name="Open passage 1").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#passage-text")).to_contain_text("Cats purr")


def test_an_error_from_the_server_is_shown_in_the_page(browser, index):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        with serve_in_thread(index_app(index, api_key="the-key")) as keyed:
            page.goto(keyed)
            with screenshot_on_failure(page, "error"):
                ask(page, "Why do cats purr?")
                expect(page.get_by_role("alert")).to_contain_text("missing or wrong API key")
                page.get_by_label("API key (sent as a Bearer token; kept in this tab only)").fill("the-key")
                ask(page, "Why do cats purr?")
                expect(page.locator("#answer[data-done=true]")).to_have_count(1)
                expect(page.get_by_role("alert")).to_be_hidden()
    finally:
        context.close()


def test_the_page_is_readable_at_a_narrow_width(browser, url):
    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(url)
        with screenshot_on_failure(page, "narrow"):
            ask(page, "Why do cats purr?")
            expect(page.locator("#answer[data-done=true]")).to_have_count(1)
            page.get_by_role("button", name="Open passage 1").click()
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"the page scrolls sideways by {overflow} px at 320 px wide"
    finally:
        context.close()
