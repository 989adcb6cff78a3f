"""SitemapLoader: XML sitemaps, sitemap indexes and text sitemaps, without lxml."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest
from web_test_site import FakeClock, Response, Site, _web_site_server, html, site

from loaders import SitemapLoader, WebBaseLoader
from loaders._sitemap_parse import parse_sitemap
from loaders.testing import LoaderConformance
from loaders.web import FetchError
from rag.errors import ValidationError


class TestSitemapLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, site: Site) -> SitemapLoader:
        return SitemapLoader(site.url("/sitemap.xml"))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[SitemapLoader, str]:
        path = str(tmp_path / "absent.xml")
        return SitemapLoader(path, is_local=True), path


def paths(site: Site, docs: list) -> list[str]:
    return [doc.metadata["source"].removeprefix(site.origin) for doc in docs]


def test_xml_sitemap_loads_its_pages_in_order_leaving_out_other_domains(site: Site) -> None:
    docs = SitemapLoader(site.url("/sitemap.xml")).load()
    assert paths(site, docs) == ["/docs/page1.html", "/docs/page2.html"]
    assert docs[0].page_content == "Page one\n\nFirst page.\n\ndeeper"


def test_metadata_is_source_plus_the_sitemap_fields_then_the_page_title_and_language(
    site: Site,
) -> None:
    docs = SitemapLoader(site.url("/sitemap.xml")).load()
    for doc in docs:  # the page's structure, which LangChain does not give, comes last
        assert list(doc.metadata)[-2:] == ["headings", "blocks"]
        del doc.metadata["headings"], doc.metadata["blocks"]
    assert docs[0].metadata == {
        "source": site.url("/docs/page1.html"),
        "loc": site.url("/docs/page1.html"),
        "lastmod": "2024-01-02",
        "changefreq": "daily",
        "priority": "0.8",
        "title": "One",
        "language": "en",
    }
    assert docs[1].metadata == {
        "source": site.url("/docs/page2.html"),
        "loc": site.url("/docs/page2.html"),
        "title": "Two",
        "language": "en",
    }


def test_sitemap_index_is_followed_through_nested_indexes(site: Site) -> None:
    docs = SitemapLoader(site.url("/sitemap_index.xml")).load()
    assert paths(site, docs) == ["/docs/page1.html", "/docs/page3.html"]


def test_max_depth_limits_how_many_sitemap_levels_are_read(site: Site) -> None:
    docs = SitemapLoader(site.url("/sitemap_index.xml"), max_depth=2).load()
    assert paths(site, docs) == ["/docs/page1.html"]
    assert "/sitemaps/b.xml" not in site.paths()


def test_text_sitemap_lists_one_url_per_line(site: Site) -> None:
    docs = SitemapLoader(site.url("/sitemap.txt")).load()
    assert paths(site, docs) == ["/docs/page2.html", "/docs/page3.html"]


def test_gzip_compressed_sitemap_is_read(site: Site) -> None:
    xml = f"<urlset><url><loc>{site.url('/docs/page2.html')}</loc></url></urlset>".encode()
    site.add(
        "/sitemap.xml.gz",
        Response(body=gzip.compress(xml), headers={"Content-Type": "application/gzip"}),
    )
    assert paths(site, SitemapLoader(site.url("/sitemap.xml.gz")).load()) == ["/docs/page2.html"]


def test_filter_urls_keeps_only_matching_pages(site: Site) -> None:
    loader = SitemapLoader(site.url("/sitemap.xml"), filter_urls=[r".*page2\.html$"])
    assert paths(site, loader.load()) == ["/docs/page2.html"]
    assert "/docs/page1.html" not in site.paths()


def test_filter_urls_match_from_the_start_as_re_match(site: Site) -> None:
    # Nothing matches from the start: the loader says so rather than loading nothing.
    loader = SitemapLoader(site.url("/sitemap.xml"), filter_urls=[r"page2"])
    with pytest.raises(ValidationError, match="2 not matching filter_urls"):
        loader.load()


def test_restrict_to_same_domain_false_loads_other_domains_too(site: Site) -> None:
    loader = SitemapLoader(
        site.url("/sitemap.xml"),
        restrict_to_same_domain=False,
        continue_on_failure=True,
        clock=FakeClock(),
    )
    assert len(loader.load()) == 2
    assert [url for url, _ in loader.failed] == ["http://localhost:9/page.html"]


def test_nested_sitemaps_on_other_domains_are_not_fetched(site: Site) -> None:
    site.add(
        "/index-offsite.xml",
        Response(
            body=b"<sitemapindex><sitemap><loc>http://localhost:9/s.xml</loc></sitemap>"
            b"<sitemap><loc>{origin}/sitemaps/a.xml</loc></sitemap></sitemapindex>",
            headers={"Content-Type": "application/xml"},
        ),
    )
    loader = SitemapLoader(site.url("/index-offsite.xml"))
    assert paths(site, loader.load()) == ["/docs/page1.html"]
    assert loader.failed == []


def test_blocksize_and_blocknum_select_a_block_of_urls(site: Site) -> None:
    loader = SitemapLoader(site.url("/sitemap.txt"), blocksize=1, blocknum=1)
    assert paths(site, loader.load()) == ["/docs/page3.html"]


def test_blocknum_past_the_last_block_is_refused(site: Site) -> None:
    with pytest.raises(ValueError, match="blocknum=2 is past the last block: 2 URLs make 2 block"):
        SitemapLoader(site.url("/sitemap.txt"), blocksize=1, blocknum=2).load()


@pytest.mark.parametrize(
    ("argument", "value"), [("blocksize", 0), ("blocknum", -1), ("max_depth", -1)]
)
def test_out_of_range_block_settings_are_refused(argument: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"{argument} is {value}"):
        SitemapLoader("http://h/sitemap.xml", **{argument: value})


def test_invalid_filter_regex_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"Invalid filter_urls pattern '\('"):
        SitemapLoader("http://h/sitemap.xml", filter_urls=["("])


def test_malformed_sitemap_url_raises_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="'ftp://h/sitemap.xml'"):
        SitemapLoader("ftp://h/sitemap.xml")


def test_parsing_function_and_meta_function_receive_the_parsed_page(site: Site) -> None:
    loader = SitemapLoader(
        site.url("/sitemap.xml"),
        parsing_function=lambda soup: soup.find("h1").get_text(),
        meta_function=lambda entry, soup: {"source": entry["loc"], "title": soup.title.get_text()},
    )
    doc = loader.load()[0]
    assert doc.page_content == "Page one"
    assert doc.metadata == {"source": site.url("/docs/page1.html"), "title": "One"}


def test_local_sitemap_file_is_read_from_disk(site: Site, tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_text(f"<urlset><url><loc>{site.url('/docs/page3.html')}</loc></url></urlset>")
    assert paths(site, SitemapLoader(str(path), is_local=True).load()) == ["/docs/page3.html"]


def test_failed_page_raises_naming_it_by_default(site: Site) -> None:
    site.add(
        "/broken-sitemap.txt",
        Response(body=b"{origin}/docs/missing.html\n", headers={"Content-Type": "text/plain"}),
    )
    with pytest.raises(FetchError, match=r"missing\.html: HTTP 404"):
        SitemapLoader(site.url("/broken-sitemap.txt")).load()


def test_continue_on_failure_lists_failed_pages_and_keeps_metadata_aligned(site: Site) -> None:
    site.add(
        "/mixed.txt",
        Response(
            body=b"{origin}/docs/missing.html\n{origin}/docs/page2.html\n",
            headers={"Content-Type": "text/plain"},
        ),
    )
    loader = SitemapLoader(site.url("/mixed.txt"), continue_on_failure=True)
    docs = loader.load()
    assert [doc.metadata["loc"] for doc in docs] == [site.url("/docs/page2.html")]
    assert docs[0].page_content.startswith("Page two")
    assert [url for url, _ in loader.failed] == [site.url("/docs/missing.html")]


def test_a_missing_nested_sitemap_is_listed_with_continue_on_failure(site: Site) -> None:
    site.add(
        "/index-broken.xml",
        Response(
            body=b"<sitemapindex><sitemap><loc>{origin}/sitemaps/gone.xml</loc></sitemap>"
            b"<sitemap><loc>{origin}/sitemaps/a.xml</loc></sitemap></sitemapindex>",
            headers={"Content-Type": "application/xml"},
        ),
    )
    loader = SitemapLoader(site.url("/index-broken.xml"), continue_on_failure=True)
    assert paths(site, loader.load()) == ["/docs/page1.html"]
    assert [url for url, _ in loader.failed] == [site.url("/sitemaps/gone.xml")]


def test_web_loader_kwargs_are_passed_on(site: Site) -> None:
    loader = SitemapLoader(
        site.url("/sitemap.xml"), requests_per_second=5, header_template={"X-A": "1"}
    )
    loader.load()
    assert loader.requests_per_second == 5
    assert all(hit.headers.get("X-A") == "1" for hit in site.hits)


def test_sitemap_loader_is_a_web_base_loader() -> None:
    assert isinstance(SitemapLoader("http://h/sitemap.xml"), WebBaseLoader)


def test_load_works_inside_a_running_event_loop(site: Site) -> None:
    loader = SitemapLoader(site.url("/sitemap.xml"))

    async def sync_call_from_async_code() -> int:
        return len(loader.load())

    assert asyncio.run(sync_call_from_async_code()) == 2


def test_parse_handles_any_namespace_and_whitespace_in_loc() -> None:
    xml = b'<?xml version="1.0"?><s:urlset xmlns:s="urn:x"><s:url><s:loc>\n http://h/a \n</s:loc></s:url></s:urlset>'
    assert parse_sitemap(xml, source="s").urls == [{"loc": "http://h/a"}]


def test_parse_lists_the_sitemaps_of_an_index() -> None:
    xml = b"<sitemapindex><sitemap><loc>http://h/1.xml</loc></sitemap><sitemap><loc>http://h/2.xml</loc></sitemap></sitemapindex>"
    assert parse_sitemap(xml, source="s").sitemaps == ["http://h/1.xml", "http://h/2.xml"]


def test_parse_skips_url_entries_without_loc() -> None:
    assert (
        parse_sitemap(b"<urlset><url><lastmod>2024</lastmod></url></urlset>", source="s").urls == []
    )


def test_malformed_xml_raises_naming_the_sitemap() -> None:
    with pytest.raises(ValidationError, match="Malformed XML sitemap 'http://h/s.xml'"):
        parse_sitemap(b"<urlset><url>", source="http://h/s.xml")


def test_entity_declarations_are_refused_not_expanded() -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>'
    with pytest.raises(ValidationError, match="DOCTYPE or entities"):
        parse_sitemap(bomb, source="s")


def test_gzip_that_inflates_past_max_bytes_is_refused() -> None:
    with pytest.raises(ValidationError, match="max_bytes=1000"):
        parse_sitemap(gzip.compress(b"http://h/a\n" * 1000), source="s", max_bytes=1000)
