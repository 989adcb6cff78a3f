"""Server-sent events: the ``data:`` payloads of an event stream, line by line."""

from __future__ import annotations

from typing import AsyncIterable, AsyncIterator, Iterable, Iterator, Optional

__all__ = ["SSEDecoder", "iter_sse_data", "aiter_sse_data"]


class SSEDecoder:
    """Feed lines one at a time; :meth:`feed` returns an event's data when a blank line ends
    it. Multi-line data joins with newlines; comments (``:``) and other fields are skipped.
    The same decoder serves sync and async streams.

    >>> d = SSEDecoder()
    >>> [d.feed(line) for line in ["data: a", "data: b", "", ": ping", ""]]
    [None, None, 'a\\nb', None, None]
    """

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> Optional[str]:
        line = line.rstrip("\r\n")
        if not line:
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return data
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None

    def flush(self) -> Optional[str]:
        """Data left when the stream ends without a final blank line."""
        return self.feed("")


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """Every event's data in a stream of lines."""
    decoder = SSEDecoder()
    for line in lines:
        data = decoder.feed(line)
        if data is not None:
            yield data
    tail = decoder.flush()
    if tail is not None:
        yield tail


async def aiter_sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Every event's data in an async stream of lines (as :func:`iter_sse_data`)."""
    decoder = SSEDecoder()
    async for line in lines:
        data = decoder.feed(line)
        if data is not None:
            yield data
    tail = decoder.flush()
    if tail is not None:
        yield tail
