"""A real HTTP server on 127.0.0.1 (stdlib ``http.server`` in a thread) for web-loader tests.

``site`` (a pytest fixture, import it into a test module) serves a small multi-page site:
links in several forms, redirects, 404, 500-then-success, 429 with Retry-After, a slow
page, a non-HTML resource, a page over a small size cap, robots.txt disallowing a section,
XML/index/text sitemaps and a Latin-1 page. Tests add routes with ``site.add(...)``; the
request log, counters and added routes are reset for every test.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(
        default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"}
    )
    delay: float = 0.0  # seconds before answering
    drip: float = 0.0  # seconds between body bytes: a server that never quite stops sending


def html(body: str, *, title: str = "", head: str = "", lang: str = "en") -> Response:
    """A UTF-8 HTML page."""
    markup = (
        f'<!doctype html><html lang="{lang}"><head><title>{title}</title>{head}</head>'
        f"<body>{body}</body></html>"
    )
    return Response(body=markup.encode("utf-8"))


def redirect(location: str, status: int = 302) -> Response:
    return Response(status=status, headers={"Location": location, "Content-Type": "text/plain"})


Route = Response | list[Response] | Callable[[], Response]

# Another origin (localhost, not 127.0.0.1) on the discard port: refused at once, no DNS.
OFFSITE = "http://localhost:9/page.html"


def base_routes() -> dict[str, Route]:
    """The site every test starts from."""
    latin1 = (
        '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head>'
        "<body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>"
    ).encode("latin-1")
    return {
        "/docs/": html(
            "<nav>Site menu</nav><h1>Docs home</h1><p>Welcome to the docs.</p>"
            '<a href="page1.html">relative</a>'
            '<a href="page1.html#section">same page, fragment</a>'
            '<a href="#top">fragment only</a>'
            '<a href="{origin}/docs/page2.html">absolute</a>'
            '<a href="//{host}/docs/page3.html">scheme-relative</a>'
            f'<a href="{OFFSITE}">off-site</a>'
            '<a href="../outside.html">outside the start directory</a>'
            '<a href="mailto:someone@example.com">mail</a>'
            '<a href="javascript:void(0)">script</a>'
            '<a href="private/secret.html">disallowed by robots.txt</a>'
            '<a href="moved.html">redirected</a>'
            '<a href="missing.html">broken</a>'
            '<a href="report">binary</a>'
            '<a href="logo.png">image</a>',
            title="Docs",
            head='<meta name="description" content="All the docs">',
        ),
        "/docs/page1.html": html(
            '<h1>Page one</h1><p>First page.</p><a href="deep/page4.html">deeper</a>',
            title="One",
        ),
        "/docs/page2.html": html("<h1>Page two</h1><p>Second page.</p>", title="Two"),
        "/docs/page3.html": html("<h1>Page three</h1><p>Third page.</p>", title="Three"),
        "/docs/deep/page4.html": html("<h1>Page four</h1><p>Fourth page.</p>", title="Four"),
        "/docs/moved.html": redirect("/docs/landing.html"),
        "/docs/landing.html": html(
            "<h1>Landing</h1><p>Arrived after a redirect.</p>", title="Landing"
        ),
        "/docs/private/secret.html": html("<p>Secret</p>", title="Secret"),
        "/docs/report": Response(
            body=b"\x00\x01binary", headers={"Content-Type": "application/octet-stream"}
        ),
        "/docs/logo.png": Response(body=b"\x89PNG", headers={"Content-Type": "image/png"}),
        "/outside.html": html("<p>Outside</p>", title="Outside"),
        "/docs/based/": html(
            '<base href="/docs/target/"><p>Base page</p><a href="rel.html">via base</a>',
            title="Based",
        ),
        "/docs/target/rel.html": html("<p>Resolved against base</p>", title="Rel"),
        "/latin1.html": Response(body=latin1, headers={"Content-Type": "text/html"}),
        "/latin1-header.html": Response(
            body="<p>Gr\xfc\xdfe aus K\xf6ln</p>".encode("latin-1"),
            headers={"Content-Type": "text/html; charset=ISO-8859-1"},
        ),
        "/flaky": [
            Response(status=500, body=b"boom"),
            html("<p>Recovered after a 500</p>", title="Flaky"),
        ],
        "/limited": [
            Response(
                status=429,
                body=b"slow down",
                headers={"Retry-After": "2", "Content-Type": "text/plain"},
            ),
            html("<p>Served after waiting</p>", title="Limited"),
        ],
        "/always-500": Response(status=500, body=b"down"),
        "/slow": Response(body=b"<p>late</p>", delay=2.0),
        "/big": html("<p>" + "x" * 5000 + "</p>", title="Big"),
        "/text.txt": Response(body=b"line one\nline two\n", headers={"Content-Type": "text/plain"}),
        "/robots.txt": Response(
            body=b"User-agent: *\nDisallow: /docs/private/\n",
            headers={"Content-Type": "text/plain"},
        ),
        "/sitemap.xml": Response(
            body=(
                '<?xml version="1.0" encoding="UTF-8"?>'
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                "<url><loc>{origin}/docs/page1.html</loc><lastmod>2024-01-02</lastmod>"
                "<changefreq>daily</changefreq><priority>0.8</priority></url>"
                "<url><loc>\n  {origin}/docs/page2.html  \n</loc></url>"
                f"<url><loc>{OFFSITE}</loc></url>"
                "</urlset>"
            ).encode(),
            headers={"Content-Type": "application/xml"},
        ),
        "/sitemap_index.xml": Response(
            body=(
                b'<?xml version="1.0" encoding="UTF-8"?>'
                b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                b"<sitemap><loc>{origin}/sitemaps/a.xml</loc></sitemap>"
                b"<sitemap><loc>{origin}/sitemaps/nested-index.xml</loc></sitemap>"
                b"</sitemapindex>"
            ),
            headers={"Content-Type": "application/xml"},
        ),
        "/sitemaps/a.xml": Response(
            body=(
                b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                b"<url><loc>{origin}/docs/page1.html</loc></url></urlset>"
            ),
            headers={"Content-Type": "application/xml"},
        ),
        "/sitemaps/nested-index.xml": Response(
            body=(
                b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                b"<sitemap><loc>{origin}/sitemaps/b.xml</loc></sitemap></sitemapindex>"
            ),
            headers={"Content-Type": "application/xml"},
        ),
        "/sitemaps/b.xml": Response(
            body=(
                b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                b"<url><loc>{origin}/docs/page3.html</loc></url></urlset>"
            ),
            headers={"Content-Type": "application/xml"},
        ),
        "/sitemap.txt": Response(
            body=b"{origin}/docs/page2.html\n\n# not a URL\n{origin}/docs/page3.html\n",
            headers={"Content-Type": "text/plain"},
        ),
    }


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    at: float


class Site:
    """The routes, the request log and an in-flight counter of one server."""

    def __init__(self, port: int) -> None:
        self.origin = f"http://127.0.0.1:{port}"
        self.host = f"127.0.0.1:{port}"
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.routes: dict[str, Route] = base_routes()
            self.served: dict[str, int] = {}
            self.hits: list[Hit] = []
            self.in_flight = 0
            self.max_in_flight = 0

    def url(self, path: str) -> str:
        return self.origin + path

    def add(self, path: str, route: Route) -> str:
        """Serve ``route`` at ``path``; returns the full URL."""
        with self.lock:
            self.routes[path] = route
        return self.url(path)

    def paths(self) -> list[str]:
        """Requested paths, in arrival order."""
        return [hit.path for hit in self.hits]

    def respond(self, path: str) -> Response:
        with self.lock:
            route = self.routes.get(path)
            count = self.served.get(path, 0)
            self.served[path] = count + 1
        if route is None:
            return Response(status=404, body=b"<h1>Not found</h1>")
        if callable(route):
            return route()
        if isinstance(route, list):  # one response per request, the last one repeating
            return route[min(count, len(route) - 1)]
        return route


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers
        disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms ACK stalls

        def do_GET(self) -> None:
            with site.lock:
                site.hits.append(Hit(self.path, dict(self.headers), time.monotonic()))
                site.in_flight += 1
                site.max_in_flight = max(site.max_in_flight, site.in_flight)
            try:
                response = site.respond(self.path)
                if response.delay:
                    site.closing.wait(response.delay)
                body = response.body.replace(b"{origin}", site.origin.encode()).replace(
                    b"{host}", site.host.encode()
                )
                self.send_response(response.status)
                for key, value in response.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if response.drip:
                    for index in range(len(body)):
                        self.wfile.write(body[index : index + 1])
                        self.wfile.flush()
                        if site.closing.wait(response.drip):
                            break
                else:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)
            finally:
                with site.lock:
                    site.in_flight -= 1

        def log_message(self, *args: object) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def start_site() -> tuple[Site, Callable[[], None]]:
    """Start a server on a free port; returns the site and a function that stops it."""
    server = _Server(("127.0.0.1", 0), lambda *a: None)  # handler set below, once the port is known
    site = Site(server.server_address[1])
    server.RequestHandlerClass = _handler(site)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()

    def stop() -> None:
        site.closing.set()
        server.shutdown()
        server.server_close()
        thread.join(5)

    return site, stop


@pytest.fixture(scope="session")
def _web_site_server() -> Iterator[Site]:
    site, stop = start_site()
    yield site
    stop()


@pytest.fixture
def site(_web_site_server: Site) -> Site:
    """The test site, reset: base routes, empty request log."""
    _web_site_server.reset()
    return _web_site_server


class FakeClock:
    """A clock whose sleeps return at once and (with ``advance``) move its time on; it
    records every sleep. ``advance=False`` freezes time, as if every sleeper started at once."""

    def __init__(self, start: float = 1_000.0, *, advance: bool = True) -> None:
        self.now = start
        self.advance = advance
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        if self.advance:
            self.now += seconds
