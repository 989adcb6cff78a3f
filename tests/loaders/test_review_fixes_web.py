"""Regressions found in review: bounded decompression, httpx errors under
continue_on_failure, multi-member gzip sitemaps."""

from __future__ import annotations

import gzip
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from loaders import WebBaseLoader
from loaders._inflate import BoundedInflater, InflateLimitExceeded, inflate
from loaders._sitemap_parse import parse_sitemap

PAGE = b"<html><head><title>T</title></head><body><h1>Hello</h1><p>World.</p></body></html>"
BOMB = gzip.compress(b"\0" * 50_000_000)  # 50 MB of zeros in about 50 KB


START = b'<html><body><h1>Start</h1><p>Go on.</p><a href="hop">hop</a></body></html>'
PAGES = {  # path -> (body, Content-Encoding)
    "/ok": (PAGE, None),
    "/docs/start": (START, None),
    "/gzip": (gzip.compress(PAGE), "gzip"),
    "/deflate-raw": (zlib.compress(PAGE)[2:-4], "deflate"),
    "/bomb": (BOMB, "gzip"),
    "/stacked": (gzip.compress(gzip.compress(PAGE)), "gzip, gzip"),
    "/not-gzip": (b"plain text, not gzip", "gzip"),
}
REDIRECTS = {"/loop": "/loop", "/docs/hop": "/private/secret"}
REQUESTED: list[str] = []


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        REQUESTED.append(self.path)
        if self.path in REDIRECTS:
            self._reply(302, b"", {"Location": REDIRECTS[self.path]})
        elif self.path in PAGES:
            body, encoding = PAGES[self.path]
            self._reply(200, body, {"Content-Type": "text/html; charset=utf-8",
                                    **({"Content-Encoding": encoding} if encoding else {})})
        else:
            self._reply(404, b"", {})

    def _reply(self, status, body, headers):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def base():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize("path", ["/gzip", "/deflate-raw"])
def test_compressed_pages_are_inflated(base, path):
    [document] = WebBaseLoader(base + path).load()
    assert "Hello" in document.page_content


def test_a_gzip_bomb_stops_at_the_size_cap(base):
    loader = WebBaseLoader([base + "/bomb", base + "/ok"], continue_on_failure=True, max_bytes=1_000_000, max_retries=0)
    documents = loader.load()
    assert len(documents) == 1 and "exceeds the size cap" in loader.failed[0][1]


@pytest.mark.parametrize("path, reason", [("/stacked", "unsupported Content-Encoding"), ("/not-gzip", "not valid gzip"),
                                          ("/loop", "TooManyRedirects")])
def test_undecodable_or_looping_pages_are_failures_not_crashes(base, path, reason):
    loader = WebBaseLoader([base + path, base + "/ok"], continue_on_failure=True, max_retries=0)
    documents = loader.load()
    assert len(documents) == 1 and reason in loader.failed[0][1]


def test_the_inflater_never_produces_more_than_one_byte_past_its_limit():
    inflater = BoundedInflater("gzip", limit=1000)
    with pytest.raises(InflateLimitExceeded):
        inflater.feed(BOMB)
    assert inflater.produced == 1001


def test_concatenated_gzip_members_are_all_read():
    assert inflate(gzip.compress(b"a") + gzip.compress(b"b"), "gzip", None) == b"ab"
    sitemap = parse_sitemap(gzip.compress(b"https://h/a\n") + gzip.compress(b"https://h/b\n"), source="s.txt.gz")
    assert [entry["loc"] for entry in sitemap.urls] == ["https://h/a", "https://h/b"]


def test_a_base_url_without_a_trailing_slash_does_not_cover_sibling_paths():
    from loaders._urls import is_within

    assert is_within("https://h/docs/a", "https://h/docs") and is_within("https://h/docs", "https://h/docs")
    assert not is_within("https://h/docs-private/a", "https://h/docs")


def test_a_glob_does_not_follow_a_symlinked_folder_out_of_the_tree(tmp_path):
    from loaders import DirectoryLoader

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours")
    tree = tmp_path / "tree"
    (tree / "real").mkdir(parents=True)
    (tree / "real" / "note.txt").write_text("mine")
    (tree / "dirlink").symlink_to(outside, target_is_directory=True)
    sources = [d.metadata["source"] for d in DirectoryLoader(str(tree), glob="*/*.txt").load()]
    assert [s.rsplit("/", 1)[-1] for s in sources] == ["note.txt"]


def test_a_crawl_never_sends_a_redirect_that_leaves_its_scope(base):
    from loaders import RecursiveUrlLoader

    REQUESTED.clear()
    loader = RecursiveUrlLoader(base + "/docs/start", max_depth=3)
    documents = loader.load()
    assert [d.metadata["source"].rsplit("/", 1)[-1] for d in documents] == ["start"]
    assert "/private/secret" not in REQUESTED and "/docs/hop" in REQUESTED
    assert any("redirected outside" in reason for _, reason in loader.skipped)
