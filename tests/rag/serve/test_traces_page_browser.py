"""The /traces page in a real browser: Debian's Chromium driven by Playwright, as the
playground is tested. Lists runs, filters them, opens one as a tree with the keyboard, reads
at 320 px without sideways scrolling, asks for the API key, and opens from the playground's
last trace. With CI=true these tests never skip; elsewhere they skip without Chromium or
Playwright. A failing test saves a screenshot in $RAG_TEST_ARTIFACTS and names it.
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
from rag.serve.traces import traces_app  # noqa: E402

from tests.rag.serve.traces_support import record_traces  # noqa: E402

ARTIFACTS = Path(os.environ.get("RAG_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "rag-playground-screenshots")
TIMEOUT_MS = 30_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_traces(tmp_path_factory.mktemp("traces-page"))


@pytest.fixture(scope="module")
def url(recorded):
    db, _ = recorded
    with serve_in_thread(traces_app(db)) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


@contextmanager
def new_page(browser, width: int = 1000):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        yield page
    finally:
        context.close()


@contextmanager
def screenshot_on_failure(page, name: str):
    try:
        yield
    except BaseException:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"traces-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot of the failing page: {path}")
        raise


def test_the_runs_are_listed_with_latency_and_status(browser, url):
    with new_page(browser) as page, screenshot_on_failure(page, "list"):
        page.goto(url + "/traces")
        rows = page.locator("#runs li")
        expect(rows).to_have_count(3)
        expect(rows.first).to_contain_text("flaky")
        expect(rows.first).to_contain_text("failed")
        expect(rows.nth(1)).to_contain_text(re.compile(r"ask.*\d+(\.\d+)? ms.*ok"))
        expect(page.locator("#project option")).to_have_count(3)


def test_a_run_opens_with_the_keyboard_as_a_tree_with_bars_and_retrieved_sources(browser, url):
    with new_page(browser) as page, screenshot_on_failure(page, "tree"):
        page.goto(url + "/traces")
        expect(page.locator("#runs li")).to_have_count(3)
        link = page.locator("#runs li").nth(1).get_by_role("link")
        link.focus()
        page.keyboard.press("Enter")
        detail = page.locator("#detail")
        expect(detail).to_be_visible()
        expect(detail).to_be_focused()
        expect(page.locator("#detail-heading")).to_have_text("Trace: ask")
        retriever = page.locator("details[data-run-type=retriever]").first
        summary = retriever.locator(":scope > summary")
        expect(summary.locator(".bar span")).to_have_count(1)
        summary.focus()
        if retriever.get_attribute("open") is None:
            page.keyboard.press("Enter")  # a <summary> opens with the keyboard
        expect(retriever.locator(".docs li").first).to_contain_text("dogs.md")  # the dogs question
        page.keyboard.press("Enter")
        expect(retriever).not_to_have_attribute("open", "")


def test_filtering_by_status_shows_the_failed_run_and_its_error(browser, url):
    with new_page(browser) as page, screenshot_on_failure(page, "errors"):
        page.goto(url + "/traces")
        expect(page.locator("#runs li")).to_have_count(3)
        page.get_by_label("Status").select_option("error")
        page.get_by_role("button", name="Show runs").click()
        expect(page.locator("#runs li")).to_have_count(1)
        page.locator("#runs li a").click()
        expect(page.locator("#tree .failed").first).to_contain_text("RuntimeError: the model server refused 'q'")


def test_the_page_is_readable_at_320_px_without_scrolling_sideways(browser, url, recorded):
    _, ids = recorded
    with new_page(browser, width=320) as page, screenshot_on_failure(page, "narrow"):
        page.goto(url + f"/traces#run={ids[0]}")
        expect(page.locator("#runs li")).to_have_count(3)
        expect(page.locator("#detail[data-loaded=true]")).to_have_count(1)
        page.get_by_role("button", name="Expand all").click()
        page.evaluate("document.querySelectorAll('details').forEach((box) => { box.open = true; })")  # inputs too
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0


def test_with_an_api_key_the_page_asks_for_it_then_lists(browser, recorded):
    db, _ = recorded
    with serve_in_thread(traces_app(db, api_key="sesame")) as base, new_page(browser) as page, \
            screenshot_on_failure(page, "key"):
        page.goto(base + "/traces")
        expect(page.get_by_role("alert")).to_contain_text("missing or wrong API key")
        page.get_by_label("API key (sent as a Bearer token; kept in this tab only)").fill("sesame")
        page.keyboard.press("Tab")  # the change event
        expect(page.locator("#runs li")).to_have_count(3)
        expect(page.get_by_role("alert")).to_be_hidden()


def test_the_playgrounds_last_trace_links_to_the_run_on_the_traces_page(browser, tmp_path, monkeypatch):
    from rag.index import Index
    from rag.serve.index_app import index_app

    from tests.rag.serve.index_server import build_index

    db = tmp_path / "served.sqlite3"
    monkeypatch.setenv("RAG_TRACING", "1")
    monkeypatch.setenv("RAG_TRACING_DB", str(db))
    index: Index = build_index(tmp_path)
    with serve_in_thread(index_app(index)) as base, new_page(browser) as page, screenshot_on_failure(page, "link"):
        page.goto(base)
        page.get_by_label("Question").fill("Why do cats purr?")
        page.get_by_label("Question").press("Enter")
        link = page.get_by_role("link", name="Open this run in the trace browser")
        expect(link).to_be_visible()
        from rag.tracing.settings import environment_tracer

        assert environment_tracer().flush()
        link.click()
        expect(page.locator("#detail-heading")).to_have_text("Trace: ask")
        expect(page.locator("#tree")).to_contain_text("IndexRetriever")
