"""Decompression with an output limit: a small gzip body must not inflate into gigabytes."""

from __future__ import annotations

import zlib

__all__ = ["BoundedInflater", "InflateLimitExceeded", "InflateError", "inflate"]


class InflateLimitExceeded(Exception):
    """The decompressed data would exceed the limit."""


class InflateError(Exception):
    """The data is not valid gzip/deflate."""


class BoundedInflater:
    """Incremental gzip (``"gzip"``) or zlib/raw deflate (``"deflate"``) decompression that
    never produces more than ``limit`` bytes (None: no limit). Concatenated gzip members
    are all read, as ``gzip.decompress`` does.

    >>> import gzip
    >>> inflater = BoundedInflater("gzip", limit=100)
    >>> inflater.feed(gzip.compress(b"a") + gzip.compress(b"b"))
    b'ab'
    """

    def __init__(self, encoding: str, limit: int | None) -> None:
        if encoding in ("gzip", "x-gzip"):
            self._wbits = 16 + zlib.MAX_WBITS
        elif encoding == "deflate":
            self._wbits = zlib.MAX_WBITS  # zlib-wrapped; raw deflate is tried on failure
        else:
            raise InflateError(f"unsupported encoding {encoding!r}")
        self._deflate = encoding == "deflate"
        self._decompressor = zlib.decompressobj(self._wbits)
        self._started = False
        self.limit = limit
        self.produced = 0

    def feed(self, data: bytes) -> bytes:
        """Decompress the next piece of input; raises InflateLimitExceeded past the limit."""
        out: list[bytes] = []
        while data:
            # One byte more than allowed: producing it proves the limit is exceeded, and no
            # call ever inflates more than that.
            room = 0 if self.limit is None else self.limit - self.produced + 1
            try:
                piece = self._decompressor.decompress(data, room)
            except zlib.error as exc:
                if self._deflate and not self._started and self._wbits > 0:
                    self._wbits = -zlib.MAX_WBITS  # servers often send raw deflate
                    self._decompressor = zlib.decompressobj(self._wbits)
                    continue
                raise InflateError(str(exc)) from exc
            self._started = True
            self.produced += len(piece)
            if self.limit is not None and self.produced > self.limit:
                raise InflateLimitExceeded(f"inflates past {self.limit} bytes")
            out.append(piece)
            if self._decompressor.unconsumed_tail:
                data = self._decompressor.unconsumed_tail
            elif self._decompressor.eof and self._decompressor.unused_data:
                data = self._decompressor.unused_data  # the next gzip member
                self._decompressor = zlib.decompressobj(self._wbits)
            else:
                data = b""
        return b"".join(out)


def inflate(data: bytes, encoding: str, limit: int | None) -> bytes:
    """All of ``data`` decompressed at once (see :class:`BoundedInflater`)."""
    return BoundedInflater(encoding, limit).feed(data)
