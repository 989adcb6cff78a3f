"""PyPDFLoader: one document per page with LangChain's metadata (needs the pdf extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdf", reason="the pdf extra (pypdf) is not installed")

from loaders import PyPDFLoader  # noqa: E402
from loaders.testing import LoaderConformance  # noqa: E402
from rag.errors import ValidationError  # noqa: E402

INFO = {
    "Title": "Field notes",
    "Producer": "hand-written",
    "CreationDate": "D:20240131120000+01'00'",
}


@pytest.fixture
def two_pages(tmp_path: Path, make_pdf) -> Path:
    return make_pdf(
        tmp_path / "notes.pdf", [["Hello PDF world", "second line"], ["Page two text"]], INFO
    )


class TestPyPDFLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, two_pages: Path) -> PyPDFLoader:
        return PyPDFLoader(str(two_pages))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[PyPDFLoader, str]:
        path = str(tmp_path / "absent.pdf")
        return PyPDFLoader(path), path


def test_each_page_becomes_a_document_with_its_text(two_pages: Path) -> None:
    documents = PyPDFLoader(two_pages).load()
    assert [document.page_content for document in documents] == [
        "Hello PDF world\nsecond line",
        "Page two text",
    ]


def test_page_metadata_is_zero_based_with_label_and_total(two_pages: Path) -> None:
    documents = PyPDFLoader(str(two_pages)).load()
    assert [(d.metadata["page"], d.metadata["page_label"]) for d in documents] == [
        (0, "1"),
        (1, "2"),
    ]
    assert all(d.metadata["total_pages"] == 2 for d in documents)
    assert all(d.metadata["source"] == str(two_pages) for d in documents)


def test_document_info_is_lower_cased_and_dates_are_iso(two_pages: Path) -> None:
    metadata = PyPDFLoader(two_pages).load()[0].metadata
    assert metadata["title"] == "Field notes"
    assert metadata["producer"] == "hand-written"
    assert metadata["creator"] == "PyPDF"  # LangChain's default when the PDF has none
    assert metadata["creationdate"] == "2024-01-31T12:00:00+01:00"


def test_single_mode_joins_pages_with_the_delimiter(two_pages: Path) -> None:
    [document] = PyPDFLoader(two_pages, mode="single").load()
    assert document.page_content == "Hello PDF world\nsecond line\n\fPage two text"
    assert "page" not in document.metadata


def test_custom_pages_delimiter(two_pages: Path) -> None:
    [document] = PyPDFLoader(two_pages, mode="single", pages_delimiter=" | ").load()
    assert document.page_content == "Hello PDF world\nsecond line | Page two text"


def test_pdf_without_info_gets_langchain_defaults(tmp_path: Path, make_pdf) -> None:
    path = make_pdf(tmp_path / "bare.pdf", [["only page"]])
    metadata = PyPDFLoader(path).load()[0].metadata
    assert (metadata["producer"], metadata["creator"], metadata["creationdate"]) == (
        "PyPDF",
        "PyPDF",
        "",
    )


def test_unknown_mode_is_rejected_at_once(two_pages: Path) -> None:
    with pytest.raises(ValidationError, match="'pages'"):
        PyPDFLoader(two_pages, mode="pages")  # type: ignore[arg-type]


def test_not_a_pdf_raises_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_text("this is not a PDF")
    with pytest.raises(ValidationError, match="fake.pdf"):
        PyPDFLoader(path).load()
