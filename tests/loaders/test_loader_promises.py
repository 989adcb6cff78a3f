"""The web loaders keep their promises on every path (issue 35, item 5), on a real server.

Redirects are checked by one guard for the crawler and the sitemap loader alike (scope and
robots.txt, on every hop); a page that drips bytes fails at its deadline, named; a sitemap
is refused for a DOCTYPE whatever its encoding; a sitemap that yields nothing says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from web_test_site import Response, Site, _web_site_server, html, redirect, site  # noqa: F401

from loaders import RecursiveUrlLoader, SitemapLoader, WebBaseLoader
from loaders._sitemap_parse import parse_sitemap
from rag.errors import FetchError, ValidationError


def other_host(site: Site, path: str) -> str:
    """The same server under another host name: a different origin, requests still logged."""
    return site.origin.replace("127.0.0.1", "localhost") + path


def xml_sitemap(*locs: str) -> Response:
    entries = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    body = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    return Response(body=body.encode(), headers={"Content-Type": "application/xml"})


def hosts_asked(site: Site) -> set[str]:
    return {hit.headers.get("Host", "").split(":")[0] for hit in site.hits}


# -- one redirect guard ---------------------------------------------------------------------


def test_a_sitemap_page_redirecting_to_another_host_is_never_fetched(site: Site) -> None:
    site.add("/docs/hop.html", redirect(other_host(site, "/docs/page2.html")))
    url = site.add("/hop-sitemap.xml", xml_sitemap("{origin}/docs/page1.html", "{origin}/docs/hop.html"))
    loader = SitemapLoader(url)
    docs = loader.load()
    assert [doc.metadata["source"] for doc in docs] == [site.url("/docs/page1.html")]
    assert loader.skipped == [(site.url("/docs/hop.html"),
                               f"redirected outside {site.origin}/: {other_host(site, '/docs/page2.html')}")]
    assert hosts_asked(site) == {"127.0.0.1"}


def test_a_nested_sitemap_redirecting_to_another_host_is_never_fetched(site: Site) -> None:
    site.add("/sitemaps/away.xml", redirect(other_host(site, "/sitemaps/a.xml")))
    body = ('<sitemapindex><sitemap><loc>{origin}/sitemaps/away.xml</loc></sitemap>'
            '<sitemap><loc>{origin}/sitemaps/b.xml</loc></sitemap></sitemapindex>')
    url = site.add("/away-index.xml", Response(body=body.encode(), headers={"Content-Type": "application/xml"}))
    loader = SitemapLoader(url, continue_on_failure=True)
    assert [doc.metadata["source"] for doc in loader.load()] == [site.url("/docs/page3.html")]
    assert [source for source, _ in loader.failed] == [site.url("/sitemaps/away.xml")]
    assert "redirected outside" in loader.failed[0][1]
    assert hosts_asked(site) == {"127.0.0.1"}


def test_restrict_to_same_domain_false_lets_a_sitemap_page_redirect_elsewhere(site: Site) -> None:
    site.add("/docs/hop.html", redirect(other_host(site, "/docs/page2.html")))
    url = site.add("/hop-sitemap.xml", xml_sitemap("{origin}/docs/hop.html"))
    docs = SitemapLoader(url, restrict_to_same_domain=False).load()
    assert docs[0].metadata["final_url"] == other_host(site, "/docs/page2.html")


def test_a_sitemap_reads_robots_txt_and_leaves_out_disallowed_pages(site: Site) -> None:
    secret = "{origin}/docs/private/secret.html"
    url = site.add("/robots-sitemap.xml", xml_sitemap("{origin}/docs/page1.html", secret))
    loader = SitemapLoader(url)
    assert [doc.metadata["source"] for doc in loader.load()] == [site.url("/docs/page1.html")]
    assert loader.skipped == [(site.url("/docs/private/secret.html"), "disallowed by robots.txt")]
    assert "/robots.txt" in site.paths() and "/docs/private/secret.html" not in site.paths()


def test_respect_robots_txt_false_loads_what_robots_txt_disallows(site: Site) -> None:
    url = site.add("/robots-sitemap.xml", xml_sitemap("{origin}/docs/private/secret.html"))
    docs = SitemapLoader(url, respect_robots_txt=False).load()
    assert len(docs) == 1 and "/robots.txt" not in site.paths()


def test_a_sitemap_page_redirecting_into_a_disallowed_path_is_not_followed(site: Site) -> None:
    site.add("/docs/jump.html", redirect("/docs/private/secret.html"))
    url = site.add("/jump-sitemap.xml", xml_sitemap("{origin}/docs/page1.html", "{origin}/docs/jump.html"))
    loader = SitemapLoader(url)
    loader.load()
    assert loader.skipped == [(site.url("/docs/jump.html"),
                               f"disallowed by robots.txt: {site.url('/docs/private/secret.html')}")]
    assert "/docs/private/secret.html" not in site.paths()


def test_a_crawl_does_not_follow_a_redirect_into_a_robots_disallowed_path(site: Site) -> None:
    site.add("/docs/jump.html", redirect("/docs/private/secret.html"))
    url = site.add("/docs/start.html", html('<p>Start</p><a href="jump.html">jump</a>'))
    loader = RecursiveUrlLoader(url, max_depth=2)
    sources = [doc.metadata["source"] for doc in loader.load()]
    assert sources == [url]
    assert (site.url("/docs/jump.html"),
            f"disallowed by robots.txt: {site.url('/docs/private/secret.html')}") in loader.skipped
    assert "/docs/private/secret.html" not in site.paths()


def test_a_crawl_with_a_robots_txt_on_one_slot_does_not_wait_for_itself(site: Site) -> None:
    # The robots.txt of a redirect's new origin is read while the page holds the only slot.
    site.add("/docs/hop.html", redirect(other_host(site, "/docs/page2.html")))
    url = site.add("/docs/start.html", html('<p>Start</p><a href="hop.html">hop</a>'))
    loader = RecursiveUrlLoader(url, max_depth=2, prevent_outside=False, max_concurrency=1)
    sources = [doc.metadata["source"] for doc in loader.load()]
    assert sources == [url, site.url("/docs/hop.html")]


# -- a total deadline per page ----------------------------------------------------------------


def drip_page(site: Site) -> str:
    return site.add("/drip.html", Response(body=b"<p>" + b"x" * 200 + b"</p>", drip=0.5))


def test_a_page_that_drips_bytes_fails_at_its_deadline_naming_it(site: Site) -> None:
    loader = WebBaseLoader([drip_page(site), site.url("/docs/page1.html")], continue_on_failure=True,
                           page_deadline=0.3, timeout=5)
    docs = loader.load()
    assert [doc.metadata["source"] for doc in docs] == [site.url("/docs/page1.html")]
    assert loader.failed[0][0] == site.url("/drip.html")
    assert "page_deadline=0.3 s" in loader.failed[0][1]


def test_a_dripping_page_is_not_retried(site: Site) -> None:
    with pytest.raises(FetchError, match="page_deadline=0.2 s"):
        WebBaseLoader(drip_page(site), page_deadline=0.2, timeout=5, max_retries=3).load()
    assert site.paths().count("/drip.html") == 1


def test_a_crawl_reports_a_dripping_page_as_failed_and_goes_on(site: Site) -> None:
    drip_page(site)
    url = site.add("/start.html", html('<a href="drip.html">slow</a><a href="docs/page1.html">one</a>'))
    loader = RecursiveUrlLoader(url, max_depth=2, page_deadline=0.3, timeout=5)
    sources = [doc.metadata["source"] for doc in loader.load()]
    assert site.url("/docs/page1.html") in sources
    assert [(source, "page_deadline=0.3 s" in message) for source, message in loader.failed] == [
        (site.url("/drip.html"), True)
    ]


def test_a_sitemap_page_that_drips_fails_at_the_deadline_given(site: Site) -> None:
    drip_page(site)
    url = site.add("/drip-sitemap.xml", xml_sitemap("{origin}/drip.html", "{origin}/docs/page1.html"))
    loader = SitemapLoader(url, continue_on_failure=True, page_deadline=0.3, timeout=5)
    assert len(loader.load()) == 1 and "page_deadline=0.3 s" in loader.failed[0][1]


@pytest.mark.parametrize("bad", [0, -1, "10", True])
def test_a_page_deadline_that_is_not_a_positive_number_is_refused(bad: object) -> None:
    with pytest.raises(ValidationError, match="page_deadline"):
        WebBaseLoader("https://example.com/", page_deadline=bad)  # type: ignore[arg-type]


# -- DOCTYPE refused in any encoding ------------------------------------------------------------

LAUGHS = ('<?xml version="1.0" encoding="{enc}"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          '<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><urlset><url><loc>https://h/&lol2;</loc></url></urlset>')
ENCODINGS = ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "utf-7", "latin-1"]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_doctype_is_refused_whatever_the_encoding(encoding: str) -> None:
    content = LAUGHS.format(enc=encoding).encode(encoding)
    with pytest.raises(ValidationError, match="declares a DOCTYPE or entities"):
        parse_sitemap(content, source="s")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_sitemap_in_any_encoding_lists_its_urls(encoding: str) -> None:
    content = ('<?xml version="1.0" encoding="{enc}"?><urlset><url><loc>https://h/caf\u00e9</loc></url></urlset>'
               .format(enc=encoding).encode(encoding))
    assert parse_sitemap(content, source="s").urls == [{"loc": "https://h/caf\u00e9"}]


@pytest.mark.parametrize("content", [
    b'<?xml version="1.0" encoding="no-such-codec"?><urlset/>',
    b'<?xml version="1.0" encoding="base64"?><urlset/>',
    b'<?xml version="1.0" encoding="utf-8"?><urlset>\xff\xfe</urlset>',
    b"\xff\xfe<\x00?\x00\x00\xd8",  # UTF-16 with a lone surrogate
])
def test_a_sitemap_whose_bytes_do_not_decode_is_refused_naming_it(content: bytes) -> None:
    with pytest.raises(ValidationError, match="Sitemap 's'"):
        parse_sitemap(content, source="s")


def test_a_utf16_sitemap_with_a_doctype_served_over_http_is_refused(site: Site) -> None:
    url = site.add("/utf16.xml", Response(body=LAUGHS.format(enc="utf-16").encode("utf-16"),
                                          headers={"Content-Type": "application/xml"}))
    with pytest.raises(ValidationError, match="declares a DOCTYPE"):
        SitemapLoader(url).load()


# -- a sitemap that yields nothing says so ------------------------------------------------------


@pytest.mark.parametrize("body, reason", [
    (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>', "lists no page URLs"),
    (b"# only a comment\n", "lists no page URLs"),
    (b"<urlset><url><loc>http://localhost:9/x</loc></url></urlset>", "1 on another host"),
    (b"<urlset><url><loc>{origin}/docs/private/a</loc></url></urlset>", "1 disallowed by robots.txt"),
])
def test_a_sitemap_that_yields_no_page_says_why(site: Site, body: bytes, reason: str) -> None:
    url = site.add("/empty.xml", Response(body=body, headers={"Content-Type": "application/xml"}))
    with pytest.raises(ValidationError, match=reason):
        SitemapLoader(url).load()
    loader = SitemapLoader(url, continue_on_failure=True)
    assert loader.load() == [] and loader.failed[0][0] == url and reason in loader.failed[0][1]


def test_rag_index_of_an_empty_sitemap_exits_1_and_keeps_what_it_held(site: Site, tmp_path: Path) -> None:
    url = site.add("/site.xml", xml_sitemap("{origin}/docs/page1.html"))
    index = str(tmp_path / "ix")

    def rag_index() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rag", "index", url, "--sitemap", "--index", index,
                               "--embeddings", "hashing"], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ))

    assert rag_index().returncode == 0
    site.add("/site.xml", xml_sitemap())
    result = rag_index()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "lists no page URLs" in result.stdout + result.stderr
    info = subprocess.run([sys.executable, "-m", "rag", "info", "--index", index, "--json"],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(info.stdout)["sources"] == 1  # the failed sitemap deleted nothing
