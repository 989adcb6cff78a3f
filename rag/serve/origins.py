"""Which sites may talk to a server: the ``Host`` it answers to and the ``Origin`` it serves.

A server on 127.0.0.1 without an API key is reachable by any web page the user visits:
the page can POST ``text/plain`` (no CORS preflight) or use a DNS-rebinding host name that
resolves to 127.0.0.1. :class:`SitePolicy` is the rule :class:`rag.serve.security.Guard`
applies to every request:

- ``Host`` must name this machine's loopback (``127.0.0.1`` or any 127.0.0.0/8 address,
  ``localhost``, ``[::1]``), or a name in ``allowed_hosts`` (``rag serve --allowed-host``;
  ``"*"`` allows any, for a proxy that rewrites it). A rebinding name is not on the list;
- an ``Origin`` header (sent by browsers, never by SDKs or curl) must be the server's own
  (``http://`` + the ``Host`` header), or one of ``cors_origins`` (``--cors-origin``;
  ``"*"``: any page). ``Origin: null`` (sandboxed frames, ``file://``) is a cross-site one.

Pure functions of header values: no I/O, tested alone.

>>> policy = SitePolicy(cors_origins=("https://ui.example",))
>>> policy.host_allowed("127.0.0.1:8000"), policy.host_allowed("attacker.example:8000")
(True, False)
>>> policy.origin_allowed("https://ui.example", "127.0.0.1:8000", "http")
True
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Optional, Sequence

__all__ = ["SitePolicy", "host_name", "CORS_METHODS", "CORS_HEADERS"]

#: What a page from an allowed origin may send, answered in a CORS preflight.
CORS_METHODS = "GET, POST"
CORS_HEADERS = "authorization, content-type"
# Seconds a browser may cache a preflight's answer.
_PREFLIGHT_MAX_AGE = "600"


def host_name(host_header: str) -> str:
    """The host of a ``Host`` header, lower case, without its port: ``[::1]:8000`` ->
    ``::1``, ``LocalHost:80`` -> ``localhost``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    if host.count(":") > 1:
        return host  # an IPv6 address without brackets (as --host and --allowed-host take it) has no port
    name, colon, port = host.rpartition(":")
    return name if colon and port.isdigit() else host


def _is_loopback_name(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class SitePolicy:
    """The ``Host`` names and page origins a server accepts (see the module docstring).

    ``allowed_hosts``: host names (or addresses) besides loopback, without port (default
    none; ``"*"``: any); ``cors_origins``: origins of other sites' pages allowed to call,
    as ``scheme://host[:port]`` (default none; ``"*"``: any page).
    """

    allowed_hosts: Sequence[str] = ()
    cors_origins: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_hosts", tuple(host_name(h) for h in self.allowed_hosts))
        object.__setattr__(self, "cors_origins", tuple(o.strip().rstrip("/").lower() for o in self.cors_origins))

    def host_allowed(self, host_header: Optional[str]) -> bool:
        """Whether a request with this ``Host`` header (None: none sent) is for this server."""
        if "*" in self.allowed_hosts:
            return True
        if not host_header:
            return False
        name = host_name(host_header)
        return _is_loopback_name(name) or name in self.allowed_hosts

    def cross_site_allowed(self, origin: str) -> bool:
        """Whether pages from ``origin`` (another site) may call, by ``cors_origins``."""
        return "*" in self.cors_origins or origin.strip().rstrip("/").lower() in self.cors_origins

    def origin_allowed(self, origin: Optional[str], host_header: Optional[str], scheme: str) -> bool:
        """Whether a request with this ``Origin`` (None: not from a browser page) may be
        served: the server's own origin, or an allowed other one."""
        if origin is None:
            return True
        if host_header and origin.strip().lower() == f"{scheme}://{host_header.strip().lower()}":
            return True  # the playground page, served by this server
        return self.cross_site_allowed(origin)

    def cors_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        """The headers an answer to an allowed cross-site page carries."""
        return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]

    def preflight_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        """The headers of a 204 answer to an allowed origin's CORS preflight."""
        return [*self.cors_headers(origin), (b"access-control-allow-methods", CORS_METHODS.encode()),
                (b"access-control-allow-headers", CORS_HEADERS.encode()),
                (b"access-control-max-age", _PREFLIGHT_MAX_AGE.encode()), (b"content-length", b"0")]
