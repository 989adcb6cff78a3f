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


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body, encoding = {
            "/ok": (PAGE, None),
            "/gzip": (gzip.compress(PAGE), "gzip"),
            "/deflate-raw": (zlib.compress(PAGE)[2:-4], "deflate"),
            "/bomb": (BOMB, "gzip"),
            "/stacked": (gzip.compress(gzip.compress(PAGE)), "gzip, gzip"),
            "/not-gzip": (b"plain text, not gzip", "gzip"),
        }[self.path]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if encoding:
            self.send_header("Content-Encoding", encoding)
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
