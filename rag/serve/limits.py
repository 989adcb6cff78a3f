"""How much work one request may ask of a server: :class:`RequestLimits`.

The body cap (:class:`rag.serve.security.Guard`) bounds the bytes; these bound what the
bytes ask for: a 2,000-input ``/batch`` cost 23 s of CPU and an 800 KB query 3 s, each well
under 1 MiB. ``rag serve`` applies them to every route (``--max-batch``,
``--max-query-chars``); :func:`rag.serve.add_routes` takes them as ``limits=`` (default: the
app's ``app.state.request_limits`` when :func:`rag.serve.index_app.index_app` built it,
else none, as in LangServe).

>>> RequestLimits(max_batch_size=8).max_batch_size
8
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rag.errors import ValidationError

__all__ = ["RequestLimits", "DEFAULT_LIMITS"]


@dataclass(frozen=True)
class RequestLimits:
    """Caps on one request, each None for no cap.

    ``max_batch_size``: inputs in one ``/batch`` call (default 100; more get 413);
    ``max_query_chars``: characters in a query or question, and in any text of a served
    runnable's input (default 10,000, about 2,500 words; longer gets 422 naming the field).
    """

    max_batch_size: Optional[int] = 100
    max_query_chars: Optional[int] = 10_000

    def __post_init__(self) -> None:
        for name in ("max_batch_size", "max_query_chars"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValidationError(f"{name} must be an int >= 1 or None, got {value!r}")

    def batch_refusal(self, size: int) -> Optional[str]:
        """Why a batch of ``size`` inputs is refused, or None."""
        if self.max_batch_size is not None and size > self.max_batch_size:
            return (f"a batch of {size} inputs is over this server's limit of {self.max_batch_size} "
                    "(max_batch_size; rag serve --max-batch); split it into smaller batches")
        return None

    def text_refusal(self, length: int) -> Optional[str]:
        """Why a text of ``length`` characters is refused, or None."""
        if self.max_query_chars is not None and length > self.max_query_chars:
            return (f"the text is {length} characters, over this server's limit of {self.max_query_chars} "
                    "(max_query_chars; rag serve --max-query-chars)")
        return None


#: What ``rag serve`` applies when not told otherwise.
DEFAULT_LIMITS = RequestLimits()
