"""URL validation, normalisation, scope and link resolution used by the web loaders."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders._links import regex_links, resolve_links
from loaders._urls import is_within, normalize_url, url_directory, validate_http_url
from rag.errors import ValidationError


@pytest.mark.parametrize(
    "bad",
    [
        "ftp://example.com/file",
        "file:///etc/passwd",
        "example.com/page",
        "http://",
        "https:///path",
        "http://exa mple.com/",
        " http://example.com/",
        "http://example.com:port/",
        "",
        "javascript:alert(1)",
    ],
)
def test_malformed_or_non_http_url_raises_value_error_naming_it(bad: str) -> None:
    with pytest.raises(ValueError) as caught:
        validate_http_url(bad)
    assert repr(bad) in str(caught.value)


def test_non_string_url_raises_naming_its_type() -> None:
    with pytest.raises(ValidationError, match="got int"):
        validate_http_url(42)


def test_validation_names_the_parameter() -> None:
    with pytest.raises(ValidationError, match="Invalid web_path 'ftp://h/x': unsupported scheme"):
        validate_http_url("ftp://h/x", name="web_path")


def test_valid_url_is_returned_unchanged() -> None:
    assert validate_http_url("HTTPS://Example.com:8443/a?b#c") == "HTTPS://Example.com:8443/a?b#c"


def test_normalize_lowercases_scheme_and_host_and_drops_default_port_and_fragment() -> None:
    assert (
        normalize_url("HTTPS://Example.COM:443/Docs/A?x=1#frag") == "https://example.com/Docs/A?x=1"
    )


def test_normalize_keeps_a_non_default_port_and_gives_an_empty_path_a_slash() -> None:
    assert normalize_url("http://h:8080") == "http://h:8080/"


@settings(deadline=None, max_examples=50)
@given(
    host=st.from_regex(r"[a-zA-Z][a-zA-Z0-9]{0,10}(\.[a-zA-Z]{2,5})?", fullmatch=True),
    path=st.from_regex(r"(/[a-zA-Z0-9._~-]{0,6}){0,4}", fullmatch=True),
    port=st.sampled_from(["", ":80", ":8080"]),
    fragment=st.sampled_from(["", "#x", "#"]),
)
def test_normalize_is_idempotent(host: str, path: str, port: str, fragment: str) -> None:
    once = normalize_url(f"http://{host}{port}{path}{fragment}")
    assert normalize_url(once) == once
    assert "#" not in once


def test_url_directory_is_the_folder_of_the_page() -> None:
    assert url_directory("http://h/docs/intro.html") == "http://h/docs/"
    assert url_directory("http://h/docs/") == "http://h/docs/"
    assert url_directory("http://h") == "http://h/"


def test_is_within_requires_same_origin_and_path_prefix() -> None:
    assert is_within("http://h/docs/a/b", "http://h/docs/")
    assert not is_within("http://h/other", "http://h/docs/")
    assert not is_within("https://h/docs/a", "http://h/docs/")
    assert not is_within("http://h.evil.org/docs/a", "http://h/")


def test_resolve_links_makes_relative_links_absolute_against_the_base() -> None:
    assert resolve_links(["a.html", "../b.html", "/c.html"], "http://h/docs/x/") == [
        "http://h/docs/x/a.html",
        "http://h/docs/b.html",
        "http://h/c.html",
    ]


def test_resolve_links_drops_fragments_and_deduplicates_keeping_first_order() -> None:
    assert resolve_links(["b#1", "a", "b#2", "a#x"], "http://h/") == ["http://h/b", "http://h/a"]


def test_resolve_links_keeps_only_http_and_https() -> None:
    hrefs = [
        "mailto:a@b",
        "javascript:void(0)",
        "data:text/plain,x",
        "ftp://h/f",
        "#top",
        "https://h2/p",
    ]
    assert resolve_links(hrefs, "http://h/") == ["https://h2/p"]


def test_resolve_links_skips_static_assets() -> None:
    assert resolve_links(["style.css", "app.js", "logo.PNG", "paper.pdf", "page"], "http://h/") == [
        "http://h/page"
    ]


def test_resolve_links_uses_the_scheme_of_the_base_for_scheme_relative_links() -> None:
    assert resolve_links(["//cdn.example/x"], "https://h/") == ["https://cdn.example/x"]


def test_resolve_links_ignores_malformed_links() -> None:
    assert resolve_links(["http://h:bad/x", "http://[::1/x", "ok"], "http://h/") == ["http://h/ok"]


def test_regex_links_takes_the_first_group() -> None:
    html = '<a href="/docs/index.html">i</a><a href="/faq.html">f</a>'
    assert regex_links(html, r'href="([^"]*index[^"]*)"') == ["/docs/index.html"]
