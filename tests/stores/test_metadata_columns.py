"""Columnar filter evaluation agrees with the reference predicate, through adds and removes."""

import numpy as np
from hypothesis import given, settings, strategies as st

from stores._metadata_columns import MetadataColumns
from stores.filters import compile_filter, parse_filter
from stores.testing.filter_semantics import FILTERS, SEMANTICS_CASES, SEMANTICS_ROWS

VALUES = st.one_of(
    st.sampled_from([2020, 2021, 2022, 1, 0.5, -1, 2021.5, 2**60, True, False, None]),
    st.sampled_from(["en", "fr", "de", "2020", ""]), st.lists(st.sampled_from([1, "x"]), max_size=2),
)
ROWS = st.lists(st.dictionaries(st.sampled_from(["year", "lang", "flag", "score"]), VALUES, max_size=3), max_size=12)


def test_every_semantics_case_keeps_the_expected_rows():
    columns = MetadataColumns()
    ids = list(SEMANTICS_ROWS)
    columns.append(range(len(ids)), (SEMANTICS_ROWS[i] for i in ids))
    for spec, expected in SEMANTICS_CASES:
        kept = sorted(ids[label] for label in columns.labels_matching(parse_filter(spec)).tolist())
        assert kept == expected, spec


@settings(max_examples=150, deadline=None)
@given(rows=ROWS, removed=st.sets(st.integers(0, 11)), more=ROWS, spec=FILTERS)
def test_columns_agree_with_the_predicate_after_adds_and_removes(rows, removed, more, spec):
    columns = MetadataColumns()
    columns.append(range(len(rows)), rows)
    gone = sorted(r for r in removed if r < len(rows))
    columns.remove(np.asarray(gone, dtype=np.int64))
    columns.append(range(100, 100 + len(more)), more)
    live = {label: row for label, row in enumerate(rows) if label not in gone}
    live.update({100 + i: row for i, row in enumerate(more)})
    expr, predicate = parse_filter(spec), compile_filter(spec)
    expected = sorted(label for label, row in live.items() if expr is None or predicate(row))
    kept = sorted(columns.labels_matching(expr).tolist()) if expr is not None else sorted(live)
    assert kept == expected


def test_integers_beyond_float_precision_compare_exactly():
    columns = MetadataColumns()
    columns.append([0, 1], [{"n": 2**60}, {"n": 2**60 + 1}])
    assert columns.labels_matching(parse_filter({"n": {"$gt": 2**60}})).tolist() == [1]
    assert columns.labels_matching(parse_filter({"n": 2**60 + 1})).tolist() == [1]
