"""LangGraph's store tests (checkpoint/test_store.py, checkpoint_sqlite/test_store.py,
test_async_store.py, test_ttl.py) that cannot pass here, each a strict xfail with its reason.
Written by hand for the folders the store import added (the conftest merges this file)."""

_ASYNC_FIXTURE = ("the test's own fixture is an async generator (pytest-asyncio's auto mode); the peer runner "
                  "runs async tests on a new loop but not async fixtures, so it fails on setup")

DEVIATIONS = {
    **{f"checkpoint_sqlite/test_async_store.py::{name}": _ASYNC_FIXTURE for name in (
        "test_no_running_loop", "test_large_batches_async", "test_abatch_order", "test_batch_get_ops",
        "test_batch_put_ops", "test_batch_search_ops", "test_batch_list_namespaces_ops",
        "test_async_namespace_segment_boundary", "test_abatch_rejects_invalid_namespace_labels",
        "test_invalid_namespace_only_fails_its_own_call", "test_sync_methods_reject_invalid_namespace_labels")},
}
