"""Conformance: every filter operator means the same on every backend (NULLs, missing
fields, mixed types included), checked against the reference predicate of
:mod:`stores.filters`."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from rag.documents import Document
from rag.embeddings import DeterministicFakeEmbedding
from stores.filters import compile_filter
from stores.testing._support import DIM, shared_fixture, unit_rows

__all__ = ["FilterSemanticsTests", "SEMANTICS_ROWS", "SEMANTICS_CASES"]

#: Metadata of the documents "a".."g": numbers (int and float), strings, a bool, null,
#: a list, a dict and missing fields.
SEMANTICS_ROWS: dict[str, dict[str, Any]] = {
    "a": {"year": 2020, "lang": "en", "flag": True, "tags": ["x", "y"]},
    "b": {"year": 2021, "lang": "fr", "score": 0.5},
    "c": {"year": 2022.0, "lang": None, "score": -1},
    "d": {"year": "2020", "lang": "en", "where": {"city": "Oslo"}},
    "e": {},
    "f": {"year": 1, "flag": 1, "lang": "English"},
    "g": {"year": 2021.5, "lang": "de", "flag": False},
}

#: (filter, ids it keeps) for each operator and the corner cases of its meaning.
SEMANTICS_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"lang": "en"}, ["a", "d"]),
    ({"lang": None}, ["c"]),
    ({"year": 2022}, ["c"]),
    ({"year": {"$eq": 2020}}, ["a"]),
    ({"year": {"$eq": "2020"}}, ["d"]),
    ({"flag": True}, ["a"]),
    ({"flag": 1}, ["f"]),
    ({"tags": {"$eq": ["x", "y"]}}, ["a"]),
    ({"where": {"$eq": {"city": "Oslo"}}}, ["d"]),
    ({"year": {"$ne": 2021}}, ["a", "c", "d", "e", "f", "g"]),
    ({"lang": {"$neq": None}}, ["a", "b", "d", "e", "f", "g"]),
    ({"year": {"$gt": 2020}}, ["b", "c", "g"]),
    ({"year": {"$gte": 2021}}, ["b", "c", "g"]),
    ({"year": {"$lt": 2021}}, ["a", "f"]),
    ({"year": {"$lte": 2021.5}}, ["a", "b", "f", "g"]),
    ({"lang": {"$gt": "en"}}, ["b"]),  # code-point order: "English" < "en"
    ({"lang": {"$lt": "en"}}, ["f", "g"]),
    ({"year": {"$gt": "1999"}}, ["d"]),
    ({"flag": {"$gte": 0}}, ["f"]),
    ({"score": {"$gte": -1, "$lt": 0.5}}, ["c"]),
    ({"year": {"$in": [2020, 2022, "x"]}}, ["a", "c"]),
    ({"lang": ["de", None]}, ["c", "g"]),
    ({"year": {"$nin": [2020, 2022]}}, ["b", "d", "e", "f", "g"]),
    ({"flag": {"$in": [True]}}, ["a"]),
    ({"lang": {"$exists": True}}, ["a", "b", "c", "d", "f", "g"]),
    ({"lang": {"$exists": False}}, ["e"]),
    ({"lang": "en", "year": 2020}, ["a"]),
    ({"$and": [{"lang": "en"}, {"year": {"$exists": True}}]}, ["a", "d"]),
    ({"$and": []}, ["a", "b", "c", "d", "e", "f", "g"]),
    ({"$or": [{"lang": "fr"}, {"year": 2022}]}, ["b", "c"]),
    ({"$or": []}, []),
    ({"$not": {"lang": "en"}}, ["b", "c", "e", "f", "g"]),
    ({"$not": {"year": {"$gt": 2020}}}, ["a", "d", "e", "f"]),
    ({"$not": {"$or": []}}, ["a", "b", "c", "d", "e", "f", "g"]),
]

_FIELDS = ["year", "lang", "flag", "score", "nope"]
_VALUES = st.one_of(
    st.sampled_from([2020, 2021, 2022, 1, 0.5, -1, 2021.5]), st.sampled_from(["en", "fr", "de", "2020", ""]),
    st.booleans(), st.none(),
)


def _comparisons() -> st.SearchStrategy[dict[str, Any]]:
    simple = st.builds(lambda f, v: {f: v}, st.sampled_from(_FIELDS), _VALUES)
    operator = st.builds(
        lambda f, op, v: {f: {op: v}}, st.sampled_from(_FIELDS),
        st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]), _VALUES)
    membership = st.builds(
        lambda f, op, vs: {f: {op: vs}}, st.sampled_from(_FIELDS), st.sampled_from(["$in", "$nin"]),
        st.lists(_VALUES, max_size=3))
    exists = st.builds(lambda f, b: {f: {"$exists": b}}, st.sampled_from(_FIELDS), st.booleans())
    return st.one_of(simple, operator, membership, exists)


FILTERS = st.recursive(
    _comparisons(),
    lambda inner: st.one_of(
        st.builds(lambda cs: {"$and": cs}, st.lists(inner, max_size=3)),
        st.builds(lambda cs: {"$or": cs}, st.lists(inner, max_size=3)),
        st.builds(lambda c: {"$not": c}, inner),
    ),
    max_leaves=5,
)


class FilterSemanticsTests:
    """Each operator keeps exactly the documents the reference predicate keeps."""

    @pytest.fixture
    def semantics_store(self, make_store):
        store = make_store(DeterministicFakeEmbedding(size=DIM))
        ids = list(SEMANTICS_ROWS)
        store.add_vectors(unit_rows(17, len(ids)), [Document(f"doc {i}", SEMANTICS_ROWS[i]) for i in ids], ids=ids)
        return store

    def _kept(self, store, spec) -> list[str]:
        found = store.similarity_search_by_vector(unit_rows(18, 1)[0], k=len(SEMANTICS_ROWS), filter=spec)
        return sorted(d.id for d in found)

    @pytest.mark.parametrize("spec, expected", SEMANTICS_CASES, ids=[repr(s) for s, _ in SEMANTICS_CASES])
    def test_each_operator_keeps_what_its_meaning_says(self, semantics_store, spec, expected):
        predicate = compile_filter(spec)
        assert sorted(i for i, row in SEMANTICS_ROWS.items() if predicate(row)) == expected  # the reference
        assert self._kept(semantics_store, spec) == expected

    @settings(shared_fixture, max_examples=60, deadline=None)
    @given(spec=FILTERS)
    def test_any_filter_keeps_what_the_reference_predicate_keeps(self, semantics_store, spec):
        predicate = compile_filter(spec)
        expected = sorted(i for i, row in SEMANTICS_ROWS.items() if predicate is None or predicate(row))
        assert self._kept(semantics_store, spec) == expected
