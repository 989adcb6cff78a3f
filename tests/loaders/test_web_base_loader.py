"""WebBaseLoader against a real local HTTP server."""

from __future__ import annotations

import asyncio
import time

import pytest
from web_test_site import FakeClock, Response, Site, _web_site_server, html, site

from loaders import WebBaseLoader
from loaders.testing import LoaderConformance
from loaders.web import FetchError, PageNotFoundError
from rag.errors import MissingDependencyError, ValidationError


class TestWebBaseLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, site: Site) -> WebBaseLoader:
        return WebBaseLoader([site.url("/docs/page1.html"), site.url("/docs/page2.html")])

    @pytest.fixture
    def missing_loader(self, site: Site) -> tuple[WebBaseLoader, str]:
        url = site.url("/docs/absent.html")
        return WebBaseLoader(url), url


def test_one_document_per_url_in_input_order(site: Site) -> None:
    urls = [site.url(f"/docs/page{n}.html") for n in (3, 1, 2)]
    docs = WebBaseLoader(urls).load()
    assert [doc.metadata["source"] for doc in docs] == urls
    assert [doc.page_content.splitlines()[0] for doc in docs] == [
        "Page three",
        "Page one",
        "Page two",
    ]


def test_metadata_has_source_title_description_and_language(site: Site) -> None:
    doc = WebBaseLoader(site.url("/docs/")).load()[0]
    assert {key: value for key, value in doc.metadata.items() if key not in ("headings", "blocks")} == {
        "source": site.url("/docs/"),
        "title": "Docs",
        "description": "All the docs",
        "language": "en",
    }


def test_metadata_also_gives_the_pages_headings_and_blocks_as_the_file_loader_does(site: Site) -> None:
    doc = WebBaseLoader(site.url("/docs/")).load()[0]
    assert doc.metadata["headings"] == [[0, "Docs home", None]]
    assert [(doc.page_content[start:end], kind) for start, end, kind in doc.metadata["blocks"]] == [
        ("Docs home", "heading"), ("Welcome to the docs.", "paragraph")]


def test_text_from_get_text_kwargs_carries_no_structure(site: Site) -> None:
    doc = WebBaseLoader(site.url("/docs/"), bs_get_text_kwargs={"separator": " "}).load()[0]
    assert "blocks" not in doc.metadata and "headings" not in doc.metadata


def test_page_text_is_readable_content_without_navigation(site: Site) -> None:
    text = WebBaseLoader(site.url("/docs/")).load()[0].page_content
    assert text.startswith("Docs home\n\nWelcome to the docs.")
    assert "Site menu" not in text


def test_web_path_accepts_a_list_and_web_paths_keyword(site: Site) -> None:
    urls = [site.url("/docs/page1.html"), site.url("/docs/page2.html")]
    assert WebBaseLoader(urls).web_paths == urls
    assert WebBaseLoader(web_paths=urls).web_paths == urls


def test_web_path_and_web_paths_together_are_refused() -> None:
    with pytest.raises(ValueError, match="give one"):
        WebBaseLoader("http://h/a", web_paths=["http://h/b"])


def test_no_url_at_all_is_refused() -> None:
    with pytest.raises(ValueError, match="No URL given"):
        WebBaseLoader()


@pytest.mark.parametrize("bad", ["ftp://h/file", "not a url", "h/page", "http:///nohost"])
def test_malformed_or_non_http_url_raises_value_error_naming_it_at_construction(bad: str) -> None:
    with pytest.raises(ValueError) as caught:
        WebBaseLoader(["http://h/ok", bad])
    assert repr(bad) in str(caught.value)


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("requests_per_second", 0),
        ("max_retries", -1),
        ("timeout", 0),
        ("rate_limit", -2.0),
        ("max_bytes", 0),
    ],
)
def test_out_of_range_settings_are_refused_naming_the_value(argument: str, value: object) -> None:
    with pytest.raises(ValidationError, match=f"{argument} is {value!r}"):
        WebBaseLoader("http://h/", **{argument: value})


def test_a_parser_that_is_not_installed_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # lxml may well be installed (the test extra has it for reference checks): hide it.
    from bs4.builder import builder_registry

    lookup = builder_registry.lookup
    monkeypatch.setattr(
        builder_registry, "lookup", lambda *features: None if "lxml" in features else lookup(*features)
    )
    with pytest.raises(MissingDependencyError, match="pip install lxml"):
        WebBaseLoader("http://h/", default_parser="lxml")


def test_unsupported_requests_kwargs_are_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="stream"):
        WebBaseLoader("http://h/", requests_kwargs={"stream": True})


def test_web_path_property_is_the_single_url_and_refuses_several() -> None:
    assert WebBaseLoader("http://h/a").web_path == "http://h/a"
    with pytest.raises(ValueError, match="2 URLs"):
        _ = WebBaseLoader(["http://h/a", "http://h/b"]).web_path


def test_load_works_inside_a_running_event_loop(site: Site) -> None:
    loader = WebBaseLoader(site.url("/docs/page1.html"))

    async def sync_call_from_async_code() -> int:
        return len(loader.load())

    assert asyncio.run(sync_call_from_async_code()) == 1


def test_aload_returns_the_documents_of_load(site: Site) -> None:
    loader = WebBaseLoader([site.url("/docs/page1.html"), site.url("/latin1.html")])
    assert asyncio.run(loader.aload()) == loader.load()


def test_alazy_load_is_native_async(site: Site) -> None:
    async def collect() -> list[str]:
        loader = WebBaseLoader([site.url("/docs/page1.html"), site.url("/docs/page2.html")])
        return [doc.metadata["title"] async for doc in loader.alazy_load()]

    assert asyncio.run(collect()) == ["One", "Two"]


def test_requests_per_second_caps_requests_in_flight(site: Site) -> None:
    for n in range(6):
        site.add(f"/slow{n}", Response(body=b"<p>x</p>", delay=0.05))
    WebBaseLoader([site.url(f"/slow{n}") for n in range(6)], requests_per_second=2).load()
    assert site.max_in_flight == 2


def test_load_fetches_concurrently(site: Site) -> None:
    for n in range(4):
        site.add(f"/slow{n}", Response(body=b"<p>x</p>", delay=0.05))
    WebBaseLoader([site.url(f"/slow{n}") for n in range(4)], requests_per_second=4).load()
    assert site.max_in_flight == 4


def test_rate_limit_spaces_request_starts(site: Site) -> None:
    clock = FakeClock()
    urls = [site.url(f"/docs/page{n}.html") for n in (1, 2, 3)]
    WebBaseLoader(urls, rate_limit=5, requests_per_second=1, clock=clock).load()
    assert clock.sleeps == [0.2, 0.2]


def test_redirect_is_followed_and_final_url_recorded(site: Site) -> None:
    doc = WebBaseLoader(site.url("/docs/moved.html")).load()[0]
    assert doc.metadata["source"] == site.url("/docs/moved.html")
    assert doc.metadata["final_url"] == site.url("/docs/landing.html")
    assert "Arrived after a redirect." in doc.page_content


def test_first_failure_raises_naming_the_url_and_the_status(site: Site) -> None:
    urls = [site.url("/docs/page1.html"), site.url("/docs/missing.html"), site.url("/always-500")]
    with pytest.raises(FetchError) as caught:
        WebBaseLoader(urls, max_retries=0).load()
    assert site.url("/docs/missing.html") in str(caught.value)
    assert "404" in str(caught.value)
    assert isinstance(caught.value, PageNotFoundError)


def test_continue_on_failure_lists_failed_urls_and_keeps_the_rest(site: Site) -> None:
    urls = [site.url("/docs/missing.html"), site.url("/docs/page1.html"), site.url("/always-500")]
    loader = WebBaseLoader(urls, continue_on_failure=True, clock=FakeClock())
    docs = loader.load()
    assert [doc.metadata["source"] for doc in docs] == [site.url("/docs/page1.html")]
    assert [url for url, _ in loader.failed] == [
        site.url("/docs/missing.html"),
        site.url("/always-500"),
    ]
    assert "HTTP 404" in loader.failed[0][1]
    assert "HTTP 500" in loader.failed[1][1] and "after 3 retries" in loader.failed[1][1]


def test_failed_list_is_reset_for_each_run(site: Site) -> None:
    loader = WebBaseLoader(site.url("/docs/missing.html"), continue_on_failure=True)
    loader.load()
    loader.load()
    assert len(loader.failed) == 1


def test_a_500_then_success_is_retried_with_exponential_backoff(site: Site) -> None:
    site.add("/twice", [Response(status=500), Response(status=502), html("<p>third time</p>")])
    clock = FakeClock()
    doc = WebBaseLoader(site.url("/twice"), clock=clock).load()[0]
    assert doc.page_content == "third time"
    assert clock.sleeps == [0.5, 1.0]
    assert site.paths() == ["/twice"] * 3


def test_a_429_waits_as_long_as_retry_after_says(site: Site) -> None:
    clock = FakeClock()
    doc = WebBaseLoader(site.url("/limited"), clock=clock).load()[0]
    assert doc.page_content == "Served after waiting"
    assert clock.sleeps == [2.0]


def test_retries_stop_after_max_retries(site: Site) -> None:
    clock = FakeClock()
    loader = WebBaseLoader(
        site.url("/always-500"), max_retries=1, clock=clock, continue_on_failure=True
    )
    assert loader.load() == []
    assert site.paths() == ["/always-500"] * 2
    assert clock.sleeps == [0.5]


def test_a_404_is_not_retried(site: Site) -> None:
    WebBaseLoader(site.url("/docs/missing.html"), continue_on_failure=True).load()
    assert site.paths() == ["/docs/missing.html"]


def test_a_page_slower_than_the_timeout_fails_quickly(site: Site) -> None:
    loader = WebBaseLoader(site.url("/slow"), timeout=0.1, max_retries=0, continue_on_failure=True)
    started = time.monotonic()
    assert loader.load() == []
    assert time.monotonic() - started < 1.5  # the page would take 2 s
    assert "timed out after 0.1 s" in loader.failed[0][1]


def test_timeouts_are_retried(site: Site) -> None:
    clock = FakeClock()
    loader = WebBaseLoader(
        site.url("/slow"), timeout=0.05, max_retries=1, clock=clock, continue_on_failure=True
    )
    loader.load()
    assert site.paths() == ["/slow", "/slow"]
    assert clock.sleeps == [0.5]


def test_a_page_over_max_bytes_is_a_failure_naming_the_cap(site: Site) -> None:
    loader = WebBaseLoader(site.url("/big"), max_bytes=1000, continue_on_failure=True)
    assert loader.load() == []
    assert "max_bytes=1000" in loader.failed[0][1]


def test_a_non_html_resource_is_a_failure_naming_its_content_type(site: Site) -> None:
    loader = WebBaseLoader(site.url("/docs/report"), continue_on_failure=True)
    assert loader.load() == []
    assert "application/octet-stream" in loader.failed[0][1]


def test_plain_text_keeps_its_lines(site: Site) -> None:
    assert WebBaseLoader(site.url("/text.txt")).load()[0].page_content == "line one\nline two"


def test_meta_charset_page_is_decoded(site: Site) -> None:
    doc = WebBaseLoader(site.url("/latin1.html")).load()[0]
    assert doc.page_content == "Crème brûlée"
    assert doc.metadata["title"] == "Café"


def test_http_charset_page_is_decoded(site: Site) -> None:
    assert WebBaseLoader(site.url("/latin1-header.html")).load()[0].page_content == "Grüße aus Köln"


def test_encoding_forces_the_codec(site: Site) -> None:
    site.add(
        "/greek",
        Response(body="<p>Ωmega</p>".encode("cp1253"), headers={"Content-Type": "text/html"}),
    )
    assert WebBaseLoader(site.url("/greek"), encoding="cp1253").load()[0].page_content == "Ωmega"


def test_default_headers_send_a_toolkit_user_agent(site: Site) -> None:
    WebBaseLoader(site.url("/docs/page1.html")).load()
    assert site.hits[0].headers["User-Agent"].startswith("ragpath/")


def test_header_template_replaces_the_headers_but_keeps_a_user_agent(site: Site) -> None:
    WebBaseLoader(site.url("/docs/page1.html"), header_template={"X-Team": "docs"}).load()
    headers = site.hits[0].headers
    assert headers["X-Team"] == "docs"
    assert headers["User-Agent"].startswith("ragpath/")


def test_requests_kwargs_headers_and_params_are_sent(site: Site) -> None:
    site.add("/docs/page1.html?lang=en", html("<p>with query</p>"))
    loader = WebBaseLoader(
        site.url("/docs/page1.html"),
        requests_kwargs={"headers": {"User-Agent": "custom/1.0"}, "params": {"lang": "en"}},
    )
    assert loader.load()[0].page_content == "with query"
    assert site.hits[0].headers["User-Agent"] == "custom/1.0"


def test_bs_get_text_kwargs_switch_to_get_text_without_scripts(site: Site) -> None:
    site.add("/mixed", html("<nav>menu</nav><h1>A</h1><script>x()</script><p>B</p>"))
    doc = WebBaseLoader(
        site.url("/mixed"), bs_get_text_kwargs={"separator": "|", "strip": True}
    ).load()[0]
    assert doc.page_content == "A|B"


def test_drop_chrome_false_keeps_navigation(site: Site) -> None:
    text = WebBaseLoader(site.url("/docs/"), drop_chrome=False).load()[0].page_content
    assert text.startswith("Site menu")


def test_raise_for_status_false_still_reports_error_pages_as_failures(site: Site) -> None:
    loader = WebBaseLoader(
        site.url("/docs/missing.html"), raise_for_status=False, continue_on_failure=True
    )
    assert loader.load() == []
    assert loader.failed


def test_scrape_returns_the_parsed_page(site: Site) -> None:
    soup = WebBaseLoader(site.url("/docs/page2.html")).scrape()
    assert soup.find("h1").get_text() == "Page two"


def test_scrape_all_returns_soups_in_order(site: Site) -> None:
    urls = [site.url("/docs/page2.html"), site.url("/docs/page1.html")]
    soups = WebBaseLoader(urls).scrape_all(urls)
    assert [soup.title.get_text() for soup in soups] == ["Two", "One"]


def test_lazy_load_fetches_nothing_until_iterated(site: Site) -> None:
    documents = WebBaseLoader(site.url("/docs/page1.html")).lazy_load()
    time.sleep(0.02)
    assert site.hits == []
    assert next(documents).metadata["title"] == "One"
