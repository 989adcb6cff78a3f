"""One HTTP retry policy: which failures retry, how long to wait, when a server's wait is too long.

The web loaders (``loaders._http``), ``ChatOpenAI`` (``rag.models._http``) and
``OpenAIEmbeddings`` all decide with a :class:`RetryPolicy`. Every decision is a pure
function of its arguments (randomness comes in as ``rng``, the time as ``now``), so each
client's loop, sync or async, on its own clock, only sleeps and maps errors::

    policy = RetryPolicy()
    attempt = 1                                   # the retry about to happen, 1-based
    wait = policy.wait_before_retry(attempt, 503, max_retries=2,
                                    retry_after=retry_after_from_headers(headers, now=time.time()))
    if wait is None: raise ...                    # final: not retryable, used up, or asked too long
    sleep(wait)

What retries (:meth:`RetryPolicy.should_retry`): the statuses in ``retry_statuses`` (408
Request Timeout, 409 Conflict, 429 Too Many Requests and every 5xx except 501 Not
Implemented and 505 HTTP Version Not Supported, which will not change on a second try),
and httpx transport errors (connect/read/write errors and timeouts, a dropped connection)
except ``UnsupportedProtocol`` (a URL or redirect to another scheme stays one).
"""

from __future__ import annotations

import datetime
import email.utils
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Literal, Optional, Union

import httpx

from rag.errors import ValidationError

__all__ = ["RetryPolicy", "RETRY_STATUSES", "retry_after_seconds", "retry_after_from_headers"]

#: Statuses worth another try: the server may answer differently in a moment.
RETRY_STATUSES: frozenset[int] = frozenset({408, 409, 429}) | (frozenset(range(500, 600)) - {501, 505})

#: What to do when a server's Retry-After is longer than ``max_retry_after``.
LongRetryAfter = Literal["backoff", "give_up"]

# Beyond 2**64 every sane cap is reached; the exponent is clamped so no float overflows.
_MAX_EXPONENT = 64


def _non_negative(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValidationError(f"{name} must be a finite number of seconds >= 0, got {value!r}")


@dataclass(frozen=True)
class RetryPolicy:
    """How to retry an HTTP request; how many times is the client's own ``max_retries``.

    Without a server's word, retry number n (1-based) waits ``min_seconds * 2**(n-1)``
    seconds plus a uniform ``jitter * rng()`` (so that clients that failed together do not
    retry together), at most ``max_seconds`` in all. A server's ``Retry-After`` (seconds or
    an HTTP date; ``retry-after-ms`` too) replaces that wait when it is at most
    ``max_retry_after`` seconds; a longer one is, per ``on_long_retry_after``, either
    ignored for our own backoff (``"backoff"``, as the ``openai`` SDK does) or the end of
    the retries (``"give_up"``: a site down for an hour is not helped by asking again now).

    Defaults: 0.5 s first wait, 8 s cap, 0.25 s jitter, Retry-After honoured up to 60 s,
    ``"backoff"``, :data:`RETRY_STATUSES`. Every number is in seconds, finite and >= 0.

    >>> policy = RetryPolicy(min_seconds=0.5, max_seconds=3, jitter=0)
    >>> [policy.delay(n) for n in (1, 2, 3, 4)]
    [0.5, 1.0, 2.0, 3]
    >>> policy.delay(1, retry_after=2.5)
    2.5
    """

    min_seconds: float = 0.5
    max_seconds: float = 8.0
    jitter: float = 0.25
    max_retry_after: float = 60.0
    on_long_retry_after: LongRetryAfter = "backoff"
    retry_statuses: frozenset[int] = RETRY_STATUSES

    def __post_init__(self) -> None:
        for name in ("min_seconds", "max_seconds", "jitter", "max_retry_after"):
            _non_negative(name, getattr(self, name))
        if self.on_long_retry_after not in ("backoff", "give_up"):
            raise ValidationError(
                f"on_long_retry_after must be 'backoff' or 'give_up', got {self.on_long_retry_after!r}"
            )
        if not isinstance(self.retry_statuses, frozenset):
            object.__setattr__(self, "retry_statuses", frozenset(self.retry_statuses))

    def should_retry(self, outcome: Union[int, BaseException]) -> bool:
        """Whether an HTTP status, or an exception raised instead of a response, is worth another try."""
        if isinstance(outcome, BaseException):
            return isinstance(outcome, httpx.TransportError) and not isinstance(outcome, httpx.UnsupportedProtocol)
        return outcome in self.retry_statuses

    def delay(self, attempt: int, retry_after: Optional[float] = None,
              rng: Callable[[], float] = random.random) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based).

        ``retry_after`` (seconds, as :func:`retry_after_seconds` reads it) is returned as
        it is when within [0, ``max_retry_after``]; otherwise the exponential backoff, in
        [0, ``max_seconds``]. ``rng()`` returns a number in [0, 1).
        """
        if retry_after is not None and 0 <= retry_after <= self.max_retry_after:
            return retry_after
        exponent = min(max(attempt, 1) - 1, _MAX_EXPONENT)
        return min(self.max_seconds, self.min_seconds * 2.0**exponent + self.jitter * rng())

    def wait_before_retry(self, attempt: int, outcome: Union[int, BaseException], *, max_retries: int,
                          retry_after: Optional[float] = None,
                          rng: Callable[[], float] = random.random) -> Optional[float]:
        """Seconds to wait before retry number ``attempt`` (1-based) after ``outcome`` (a
        status or an exception), or None when the failure is final: ``outcome`` is not
        retryable, ``max_retries`` are used up, or the server asked for longer than
        ``max_retry_after`` and the policy gives up then."""
        if attempt > max_retries or not self.should_retry(outcome):
            return None
        if self.gives_up_on(retry_after):
            return None
        return self.delay(attempt, retry_after, rng)

    def gives_up_on(self, retry_after: Optional[float]) -> bool:
        """True when a server's ``retry_after`` (seconds) ends the retries under this policy."""
        return (retry_after is not None and retry_after > self.max_retry_after
                and self.on_long_retry_after == "give_up")


def retry_after_seconds(value: Optional[str], *, now: float) -> Optional[float]:
    """Seconds asked for by a ``Retry-After`` header: delta seconds (``"120"``, ``"1.5"``)
    or an HTTP date, measured from ``now`` (epoch seconds). None when absent, negative or
    unreadable; a date in the past is 0.

    >>> retry_after_seconds("3", now=0.0)
    3.0
    >>> retry_after_seconds("Thu, 01 Jan 1970 00:00:10 GMT", now=4.0)
    6.0
    """
    if value is None or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None  # unreadable: the caller falls back to its own backoff
    if moment is None:
        return None
    if moment.tzinfo is None:  # HTTP dates are GMT; a naive one would be read as local time
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, moment.timestamp() - now)


def retry_after_from_headers(headers: Mapping[str, str], *, now: float) -> Optional[float]:
    """Seconds a response asks to wait: ``retry-after-ms`` (OpenAI's, in milliseconds)
    when readable, else ``Retry-After`` (see :func:`retry_after_seconds`). ``headers``
    should be case-insensitive, as ``httpx.Headers`` is."""
    try:
        milliseconds = float(headers.get("retry-after-ms") or "nan")
    except ValueError:
        milliseconds = math.nan
    if math.isfinite(milliseconds) and milliseconds >= 0:
        return milliseconds / 1000
    return retry_after_seconds(headers.get("retry-after"), now=now)
