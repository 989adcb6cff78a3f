"""RecursiveUrlLoader: a breadth-first crawl of the local test site."""

from __future__ import annotations

import asyncio

import pytest
from web_test_site import OFFSITE, FakeClock, Response, Site, _web_site_server, html, site

from loaders import RecursiveUrlLoader
from loaders.testing import LoaderConformance
from loaders.web import FetchError


class TestRecursiveUrlLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, site: Site) -> RecursiveUrlLoader:
        return RecursiveUrlLoader(site.url("/docs/"))

    @pytest.fixture
    def missing_loader(self, site: Site) -> tuple[RecursiveUrlLoader, str]:
        url = site.url("/docs/absent/")
        return RecursiveUrlLoader(url, continue_on_failure=False), url


def sources(site: Site, loader: RecursiveUrlLoader) -> list[str]:
    return [doc.metadata["source"].removeprefix(site.origin) for doc in loader.load()]


def test_max_depth_one_loads_the_start_page_only(site: Site) -> None:
    assert sources(site, RecursiveUrlLoader(site.url("/docs/"), max_depth=1)) == ["/docs/"]


def test_depth_two_loads_linked_pages_breadth_first_in_link_order(site: Site) -> None:
    assert sources(site, RecursiveUrlLoader(site.url("/docs/"))) == [
        "/docs/",
        "/docs/page1.html",
        "/docs/page2.html",
        "/docs/page3.html",
        "/docs/moved.html",
    ]


def test_depth_three_reaches_links_of_links(site: Site) -> None:
    assert (
        sources(site, RecursiveUrlLoader(site.url("/docs/"), max_depth=3))[-1]
        == "/docs/deep/page4.html"
    )


def test_each_page_is_requested_once_despite_fragments_and_repeated_links(site: Site) -> None:
    RecursiveUrlLoader(site.url("/docs/"), max_depth=3).load()
    page_requests = [path for path in site.paths() if path != "/robots.txt"]
    assert len(page_requests) == len(set(page_requests))


def test_absolute_and_scheme_relative_links_are_followed(site: Site) -> None:
    found = sources(site, RecursiveUrlLoader(site.url("/docs/")))
    assert "/docs/page2.html" in found and "/docs/page3.html" in found


def test_off_site_and_outside_directory_links_are_not_requested(site: Site) -> None:
    RecursiveUrlLoader(site.url("/docs/"), max_depth=3).load()
    assert "/outside.html" not in site.paths()


def test_prevent_outside_false_follows_links_out_of_the_start_directory(site: Site) -> None:
    loader = RecursiveUrlLoader(
        site.url("/docs/"), prevent_outside=False, respect_robots_txt=False, clock=FakeClock()
    )
    found = sources(site, loader)
    assert "/outside.html" in found
    assert [url for url, _ in loader.failed if url == OFFSITE] == [OFFSITE]


def test_base_url_widens_the_scope(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), base_url=site.url("/"))
    assert "/outside.html" in sources(site, loader)


def test_links_resolve_against_base_href(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/based/"), base_url=site.url("/docs/"))
    assert sources(site, loader) == ["/docs/based/", "/docs/target/rel.html"]


def test_robots_txt_disallowed_pages_are_skipped_and_listed(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"))
    loader.load()
    assert "/docs/private/secret.html" not in site.paths()
    assert (site.url("/docs/private/secret.html"), "disallowed by robots.txt") in loader.skipped


def test_robots_txt_is_fetched_once(site: Site) -> None:
    RecursiveUrlLoader(site.url("/docs/"), max_depth=3).load()
    assert site.paths().count("/robots.txt") == 1


def test_respect_robots_txt_false_ignores_it(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), respect_robots_txt=False)
    assert "/docs/private/secret.html" in sources(site, loader)
    assert "/robots.txt" not in site.paths()


def test_a_robots_txt_forbidden_with_403_disallows_everything(site: Site) -> None:
    site.add("/robots.txt", Response(status=403))
    loader = RecursiveUrlLoader(site.url("/docs/"))
    assert loader.load() == []
    assert loader.skipped == [(site.url("/docs/"), "disallowed by robots.txt")]


def test_a_missing_robots_txt_allows_everything(site: Site) -> None:
    site.add("/robots.txt", Response(status=404))
    assert "/docs/private/secret.html" in sources(site, RecursiveUrlLoader(site.url("/docs/")))


def test_broken_links_are_listed_in_failed_by_default(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"))
    loader.load()
    assert [url for url, _ in loader.failed] == [site.url("/docs/missing.html")]
    assert "HTTP 404" in loader.failed[0][1]


def test_continue_on_failure_false_raises_naming_the_url_and_status(site: Site) -> None:
    with pytest.raises(FetchError, match=r"missing\.html: HTTP 404"):
        RecursiveUrlLoader(site.url("/docs/"), continue_on_failure=False).load()


def test_non_html_resources_are_skipped_without_reading_them(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"))
    loader.load()
    assert (
        site.url("/docs/report"),
        "content type 'application/octet-stream' is not HTML",
    ) in loader.skipped


def test_links_to_static_assets_are_never_requested(site: Site) -> None:
    RecursiveUrlLoader(site.url("/docs/")).load()
    assert "/docs/logo.png" not in site.paths()


def test_redirected_page_records_final_url_and_its_target_is_not_crawled_again(site: Site) -> None:
    site.add("/docs/page3.html", html('<a href="landing.html">to landing</a><p>three</p>'))
    loader = RecursiveUrlLoader(site.url("/docs/"), max_depth=3)
    docs = loader.load()
    moved = [doc for doc in docs if doc.metadata["source"] == site.url("/docs/moved.html")]
    assert moved[0].metadata["final_url"] == site.url("/docs/landing.html")
    assert site.paths().count("/docs/landing.html") == 1


def test_a_redirect_to_outside_the_scope_is_skipped(site: Site) -> None:
    site.add("/docs/escape", Response(status=302, headers={"Location": "/outside.html"}))
    site.add("/docs/start.html", html('<a href="escape">x</a><p>start</p>'))
    loader = RecursiveUrlLoader(site.url("/docs/start.html"))
    assert sources(site, loader) == ["/docs/start.html"]
    assert loader.skipped[0][0] == site.url("/docs/escape")
    assert "redirected outside" in loader.skipped[0][1]


def test_exclude_dirs_are_not_crawled(site: Site) -> None:
    loader = RecursiveUrlLoader(
        site.url("/docs/"), max_depth=3, exclude_dirs=[site.url("/docs/deep/")]
    )
    assert "/docs/deep/page4.html" not in sources(site, loader)


def test_start_url_inside_exclude_dirs_is_refused() -> None:
    with pytest.raises(ValueError, match="exclude_dirs"):
        RecursiveUrlLoader("http://h/docs/", exclude_dirs=["http://h/docs"])


def test_link_regex_selects_which_links_are_followed(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), link_regex=r'href="([^"]*page2[^"]*)"')
    assert sources(site, loader) == ["/docs/", "/docs/page2.html"]


def test_max_pages_bounds_the_number_of_pages_requested(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), max_depth=3, max_pages=3)
    assert len(loader.load()) == 3
    assert len([path for path in site.paths() if path != "/robots.txt"]) == 3


def test_default_extractor_gives_readable_text(site: Site) -> None:
    doc = RecursiveUrlLoader(site.url("/docs/"), max_depth=1).load()[0]
    assert doc.page_content.startswith("Docs home\n\nWelcome to the docs.")


def test_identity_extractor_restores_raw_html(site: Site) -> None:
    doc = RecursiveUrlLoader(site.url("/docs/"), max_depth=1, extractor=lambda raw: raw).load()[0]
    assert doc.page_content.startswith("<!doctype html>")


def test_pages_whose_extracted_text_is_empty_are_left_out(site: Site) -> None:
    loader = RecursiveUrlLoader(
        site.url("/docs/"), extractor=lambda raw: "" if "Page two" in raw else "x"
    )
    assert "/docs/page2.html" not in sources(site, loader)


def test_default_metadata_has_source_content_type_and_page_fields(site: Site) -> None:
    doc = RecursiveUrlLoader(site.url("/docs/"), max_depth=1).load()[0]
    # Plus the page's structure, which LangChain does not give (see test_web_base_loader).
    assert {key: value for key, value in doc.metadata.items() if key not in ("headings", "blocks")} == {
        "source": site.url("/docs/"),
        "content_type": "text/html; charset=utf-8",
        "title": "Docs",
        "description": "All the docs",
        "language": "en",
    }


def test_two_argument_metadata_extractor_gets_html_and_url(site: Site) -> None:
    loader = RecursiveUrlLoader(
        site.url("/docs/"), max_depth=1, metadata_extractor=lambda raw, url: {"u": url}
    )
    assert loader.load()[0].metadata == {"u": site.url("/docs/")}


def test_three_argument_metadata_extractor_gets_the_response(site: Site) -> None:
    def extractor(raw: str, url: str, response: object) -> dict[str, object]:
        return {
            "source": url,
            "status": response.status_code,
            "type": response.headers.get("Content-Type"),
        }

    loader = RecursiveUrlLoader(site.url("/docs/"), max_depth=1, metadata_extractor=extractor)
    assert loader.load()[0].metadata["status"] == 200


def test_crawl_is_concurrent_up_to_max_concurrency(site: Site) -> None:
    links = "".join(f'<a href="s{n}">{n}</a>' for n in range(6))
    site.add("/c/", html(links))
    for n in range(6):
        site.add(f"/c/s{n}", Response(body=b"<p>x</p>", delay=0.05))
    RecursiveUrlLoader(site.url("/c/"), max_concurrency=3, respect_robots_txt=False).load()
    assert site.max_in_flight == 3


def test_documents_come_in_the_same_order_every_run(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), max_depth=3, max_concurrency=8)
    assert loader.load() == loader.load()


def test_load_works_inside_a_running_event_loop(site: Site) -> None:
    loader = RecursiveUrlLoader(site.url("/docs/"), max_depth=1)

    async def sync_call_from_async_code() -> int:
        return len(loader.load())

    assert asyncio.run(sync_call_from_async_code()) == 1


def test_rate_limit_uses_the_injected_clock(site: Site) -> None:
    clock = FakeClock()
    RecursiveUrlLoader(site.url("/docs/"), max_depth=1, rate_limit=2, clock=clock).load()
    assert clock.sleeps == [0.5]  # robots.txt, then the start page half a second later


@pytest.mark.parametrize("bad", ["ftp://h/", "h/docs", "http://"])
def test_malformed_start_url_raises_value_error_naming_it(bad: str) -> None:
    with pytest.raises(ValueError, match=repr(bad).replace("/", "/")):
        RecursiveUrlLoader(bad)


def test_max_depth_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="max_depth is 0"):
        RecursiveUrlLoader("http://h/", max_depth=0)
