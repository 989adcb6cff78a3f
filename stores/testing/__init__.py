"""The conformance suite every vector store backend runs (needs the ``test`` extra).

Subclass :class:`VectorStoreConformance` in a test module and supply one fixture,
``make_store``, returning a function ``(embedding) -> empty store``. Backends that persist
override :meth:`~stores.testing.persistence.PersistenceTests.save` and
:meth:`~stores.testing.persistence.PersistenceTests.load`; approximate backends set
``exact = False`` to skip the brute-force agreement checks::

    class TestMyStore(VectorStoreConformance):
        @pytest.fixture
        def make_store(self):
            return lambda embedding: MyStore(embedding)

The suite is one class per capability, in its own module (as Haystack's document-store
test mixins): :class:`AddingTests`, :class:`InputValidationTests`, :class:`SearchingTests`,
:class:`FilteringTests`, :class:`FilterSemanticsTests`, :class:`MMRTests`, :class:`SearchTypeTests`, :class:`AsyncTests`,
:class:`ConcurrencyTests` and :class:`PersistenceTests`. A backend that offers only some
capabilities combines :class:`StoreFixtures` with those it has.
"""

from stores.testing._support import DIM, StoreFixtures, brute_force_cosine, unit_rows
from stores.testing.adding import AddingTests, InputValidationTests
from stores.testing.concurrency import AsyncTests, ConcurrencyTests
from stores.testing.filter_semantics import FilterSemanticsTests
from stores.testing.filtering import FilteringTests
from stores.testing.mmr import MMRTests
from stores.testing.persistence import PersistenceTests
from stores.testing.retrieving import SearchTypeTests
from stores.testing.searching import SearchingTests

__all__ = [
    "VectorStoreConformance",
    "StoreFixtures",
    "AddingTests",
    "InputValidationTests",
    "SearchingTests",
    "FilteringTests",
    "FilterSemanticsTests",
    "MMRTests",
    "SearchTypeTests",
    "AsyncTests",
    "ConcurrencyTests",
    "PersistenceTests",
    "unit_rows",
    "brute_force_cosine",
    "DIM",
]


class VectorStoreConformance(
    StoreFixtures,
    AddingTests,
    InputValidationTests,
    SearchingTests,
    FilteringTests,
    FilterSemanticsTests,
    MMRTests,
    SearchTypeTests,
    AsyncTests,
    ConcurrencyTests,
    PersistenceTests,
):
    """Behaviour every VectorStore must show; one behaviour per test."""
