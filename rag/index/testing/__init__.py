"""The conformance suite every index backend runs (needs the ``test`` extra).

An :class:`~rag.index.Index` keeps its chunks in a folder, in PostgreSQL + pgvector or in
Milvus; whichever it is, it must behave the same. Subclass :class:`IndexConformance` in a
test module and supply one fixture, ``make_index``, returning an :class:`IndexMaker` for a
location no other test uses; add :class:`LocalCopyTests` if the backend can copy an index
to a folder (``save_local``), else :class:`NoLocalCopyTests`::

    class TestFolderIndex(IndexConformance, LocalCopyTests):
        @pytest.fixture
        def make_index(self, tmp_path):
            return IndexMaker(tmp_path / "index")

    class TestPostgresIndex(IndexConformance, NoLocalCopyTests):
        @pytest.fixture
        def make_index(self, postgres_uri):
            maker = IndexMaker(postgres_uri, location={"collection": "ix_1234"}, names=("PostgreSQL", "pgvector"))
            yield maker
            maker.close()  # and drop the collection

The suite is one class per capability, in its own module (as Haystack's document-store
test mixins): :class:`UpdateTests`, :class:`DryRunTests`, :class:`SearchTests`,
:class:`FilterTests`, :class:`RetrieverTests`, :class:`AnswerTests`, :class:`ChatTests`,
:class:`InfoTests`, :class:`ReadingTests`, :class:`OpeningTests`, :class:`BadInputTests`,
:class:`ConcurrencyTests`, :class:`KilledUpdateTests`, :class:`LocalCopyTests` and
:class:`NoLocalCopyTests`. Every test reaches the index through its public API only, and
builds it with ``embeddings="hashing"`` (fast, offline).
"""

from rag.index.testing._support import ANIMALS, IndexFixtures, IndexMaker
from rag.index.testing.answering import AnswerTests, ChatTests
from rag.index.testing.concurrency import ConcurrencyTests
from rag.index.testing.info import InfoTests, ReadingTests
from rag.index.testing.interruption import KilledUpdateTests
from rag.index.testing.opening import OpeningTests
from rag.index.testing.retrieving import RetrieverTests
from rag.index.testing.saving import LocalCopyTests, NoLocalCopyTests
from rag.index.testing.searching import FilterTests, SearchTests
from rag.index.testing.updating import DryRunTests, UpdateTests
from rag.index.testing.validation import BadInputTests

__all__ = [
    "IndexConformance",
    "IndexFixtures",
    "IndexMaker",
    "UpdateTests",
    "DryRunTests",
    "SearchTests",
    "FilterTests",
    "RetrieverTests",
    "AnswerTests",
    "ChatTests",
    "InfoTests",
    "ReadingTests",
    "OpeningTests",
    "BadInputTests",
    "ConcurrencyTests",
    "KilledUpdateTests",
    "LocalCopyTests",
    "NoLocalCopyTests",
    "ANIMALS",
]


class IndexConformance(
    IndexFixtures,
    UpdateTests,
    DryRunTests,
    SearchTests,
    FilterTests,
    RetrieverTests,
    AnswerTests,
    ChatTests,
    InfoTests,
    ReadingTests,
    OpeningTests,
    BadInputTests,
    ConcurrencyTests,
    KilledUpdateTests,
):
    """Behaviour every index backend must show; one behaviour per test."""
