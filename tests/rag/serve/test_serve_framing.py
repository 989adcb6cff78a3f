"""The server's stream framing: SSE events and stream_log's JSON patches round trip
(property-based)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rag.runnables.log import apply_ops, diff_ops
from rag.serve.sse import format_event, iter_sse

# Any JSON value (the codec's tests keep "type" out of dict keys; framing does not read them).
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=30),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=4),
                           max_leaves=12)


@settings(deadline=None, max_examples=60)
@given(json_values, json_values)
def test_diff_ops_turn_any_json_value_into_any_other(old, new):
    import copy

    assert apply_ops(copy.deepcopy(old), diff_ops(old, new)) == new


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(st.sampled_from(["data", "metadata", "error", "end"]), json_values), max_size=5))
def test_sse_events_parse_back_as_written(events):
    wire = b"".join(format_event(name, json.dumps(value)) for name, value in events).decode()
    lines = wire.splitlines(keepends=True)
    assert [(e["event"], json.loads(e["data"])) for e in iter_sse(lines)] == events
