"""The one HTTP retry policy: which failures retry, how long each wait is, Retry-After."""

from __future__ import annotations

import email.utils

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag._retry import RETRY_STATUSES, RetryPolicy, retry_after_from_headers, retry_after_seconds
from rag.errors import ValidationError

seconds = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
draws = st.floats(min_value=0, max_value=1, exclude_max=True)
attempts = st.integers(min_value=1, max_value=10_000)


@st.composite
def policies(draw: st.DrawFn) -> RetryPolicy:
    return RetryPolicy(min_seconds=draw(seconds), max_seconds=draw(seconds), jitter=draw(seconds),
                       max_retry_after=draw(seconds),
                       on_long_retry_after=draw(st.sampled_from(["backoff", "give_up"])))


def test_the_backoff_doubles_from_min_seconds_and_stops_at_max_seconds():
    policy = RetryPolicy(min_seconds=0.5, max_seconds=3, jitter=0)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3, 3]


def test_jitter_adds_the_random_draw_times_jitter_seconds():
    assert RetryPolicy(min_seconds=1, max_seconds=10, jitter=0.5).delay(1, rng=lambda: 0.5) == 1.25


@settings(deadline=None, max_examples=50)
@given(policy=policies(), attempt=attempts, draw=draws)
def test_a_wait_without_retry_after_is_between_zero_and_max_seconds(policy, attempt, draw):
    assert 0 <= policy.delay(attempt, rng=lambda: draw) <= policy.max_seconds


@settings(deadline=None, max_examples=50)
@given(policy=policies(), attempt=st.integers(min_value=1, max_value=200))
def test_without_jitter_a_later_retry_never_waits_less(policy, attempt):
    steady = RetryPolicy(policy.min_seconds, policy.max_seconds, jitter=0)
    assert steady.delay(attempt) <= steady.delay(attempt + 1)


@settings(deadline=None, max_examples=50)
@given(policy=policies(), attempt=attempts, draw=draws, asked=seconds)
def test_a_retry_after_up_to_max_retry_after_is_honoured_exactly(policy, attempt, draw, asked):
    delay = policy.delay(attempt, retry_after=asked, rng=lambda: draw)
    if asked <= policy.max_retry_after:
        assert delay == asked
    else:  # too long: our own backoff instead
        assert delay == policy.delay(attempt, rng=lambda: draw) <= policy.max_seconds


@settings(deadline=None, max_examples=50)
@given(policy=policies(), attempt=st.integers(min_value=1, max_value=10), max_retries=st.integers(0, 10),
       asked=st.none() | seconds)
def test_a_wait_is_given_exactly_while_retries_remain_and_the_server_does_not_ask_too_long(
        policy, attempt, max_retries, asked):
    wait = policy.wait_before_retry(attempt, 503, max_retries=max_retries, retry_after=asked, rng=lambda: 0.0)
    too_long = asked is not None and asked > policy.max_retry_after and policy.on_long_retry_after == "give_up"
    assert (wait is None) == (attempt > max_retries or too_long)


def test_a_give_up_policy_ends_the_retries_on_a_long_retry_after():
    policy = RetryPolicy(max_retry_after=60, on_long_retry_after="give_up")
    assert policy.wait_before_retry(1, 503, max_retries=3, retry_after=3600) is None
    assert policy.wait_before_retry(1, 503, max_retries=3, retry_after=30) == 30


def test_a_backoff_policy_ignores_a_long_retry_after_for_its_own_wait():
    policy = RetryPolicy(min_seconds=0.5, jitter=0, max_retry_after=60)
    assert policy.wait_before_retry(1, 429, max_retries=3, retry_after=3600) == 0.5


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 520, 529])
def test_transient_statuses_retry(status):
    assert RetryPolicy().should_retry(status) and status in RETRY_STATUSES


@pytest.mark.parametrize("status", [200, 301, 400, 401, 403, 404, 410, 422, 501, 505])
def test_statuses_that_a_second_try_cannot_change_do_not_retry(status):
    assert not RetryPolicy().should_retry(status)


def test_a_policy_can_name_its_own_statuses():
    assert RetryPolicy(retry_statuses={418}).should_retry(418) and not RetryPolicy(retry_statuses={418}).should_retry(503)


@pytest.mark.parametrize("error", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"),
                                   httpx.RemoteProtocolError("dropped"), httpx.WriteError("reset")])
def test_transport_errors_retry(error):
    assert RetryPolicy().should_retry(error)


@pytest.mark.parametrize("error", [httpx.UnsupportedProtocol("file://"), httpx.TooManyRedirects("loop"),
                                   ValueError("a bug"), httpx.InvalidURL("bad")])
def test_errors_a_second_try_cannot_fix_do_not_retry(error):
    assert not RetryPolicy().should_retry(error)


def test_no_wait_is_given_after_an_error_that_does_not_retry():
    assert RetryPolicy().wait_before_retry(1, ValueError("bug"), max_retries=5) is None


@pytest.mark.parametrize("field, value", [("min_seconds", -1), ("max_seconds", float("nan")),
                                          ("jitter", float("inf")), ("max_retry_after", "60")])
def test_a_policy_refuses_numbers_that_are_not_seconds_naming_the_value(field, value):
    with pytest.raises(ValidationError, match=f"{field} must be .* got {value!r}"):
        RetryPolicy(**{field: value})


def test_a_policy_refuses_an_unknown_long_retry_after_mode():
    with pytest.raises(ValidationError, match="'wait'"):
        RetryPolicy(on_long_retry_after="wait")  # type: ignore[arg-type]


@settings(deadline=None, max_examples=50)
@given(asked=st.integers(min_value=0, max_value=10**9))
def test_retry_after_in_delta_seconds_reads_back(asked):
    assert retry_after_seconds(str(asked), now=0.0) == asked


@settings(deadline=None, max_examples=50)
@given(moment=st.integers(min_value=0, max_value=4_000_000_000), now=st.integers(min_value=0, max_value=4_000_000_000))
def test_retry_after_as_an_http_date_is_the_time_left_from_now_and_never_negative(moment, now):
    header = email.utils.formatdate(moment, usegmt=True)
    assert retry_after_seconds(header, now=float(now)) == max(0.0, moment - now)


@pytest.mark.parametrize("value", [None, "", "  ", "soon", "-5", "nan", "inf", "Wed, 99 Foo 2026"])
def test_an_absent_negative_or_unreadable_retry_after_is_none(value):
    assert retry_after_seconds(value, now=0.0) is None


def test_retry_after_ms_wins_over_retry_after():
    assert retry_after_from_headers(httpx.Headers({"retry-after-ms": "250", "Retry-After": "9"}), now=0.0) == 0.25


def test_an_unreadable_retry_after_ms_falls_back_to_retry_after():
    assert retry_after_from_headers(httpx.Headers({"retry-after-ms": "x", "Retry-After": "9"}), now=0.0) == 9.0
