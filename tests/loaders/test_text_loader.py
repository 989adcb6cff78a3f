"""TextLoader: one document per file, strict decoding, optional detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from loaders import TextLoader
from loaders.testing import LoaderConformance
from rag.errors import ValidationError


class TestTextLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> TextLoader:
        path = tmp_path / "notes.txt"
        path.write_text("first line\nsecond line\n", encoding="utf-8")
        return TextLoader(str(path))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[TextLoader, str]:
        path = str(tmp_path / "absent.txt")
        return TextLoader(path), path


def test_whole_file_becomes_one_document(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("alpha\nbeta\n", encoding="utf-8")
    [document] = TextLoader(path).load()
    assert document.page_content == "alpha\nbeta\n"


def test_source_is_the_path_as_given(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("x")
    assert TextLoader(path).load()[0].metadata == {"source": str(path)}


def test_default_encoding_is_utf8_and_drops_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffcafé ☕".encode("utf-8"))
    assert TextLoader(path).load()[0].page_content == "café ☕"


def test_windows_newlines_become_newlines(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"one\r\ntwo\rthree")
    assert TextLoader(path).load()[0].page_content == "one\ntwo\nthree"


def test_explicit_encoding_is_used(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("déjà vu".encode("latin-1"))
    assert TextLoader(path, encoding="latin-1").load()[0].page_content == "déjà vu"


def test_latin1_file_without_detection_raises_naming_file_and_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("déjà vu".encode("latin-1"))
    with pytest.raises(ValidationError) as caught:
        TextLoader(path).load()
    message = str(caught.value)
    assert str(path) in message and "utf-8" in message
    assert "autodetect_encoding=True" in message


def test_decode_error_is_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9")
    with pytest.raises(ValueError):
        TextLoader(path).load()


def test_autodetect_reads_a_latin1_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("Ærøskøbing café".encode("latin-1"))
    assert TextLoader(path, autodetect_encoding=True).load()[0].page_content == "Ærøskøbing café"


def test_autodetect_reads_utf16_by_its_bom(tmp_path: Path) -> None:
    path = tmp_path / "wide.txt"
    path.write_bytes("hello wide".encode("utf-16"))
    assert TextLoader(path, autodetect_encoding=True).load()[0].page_content == "hello wide"


def test_undecodable_file_raises_listing_every_encoding_tried(tmp_path: Path) -> None:
    path = tmp_path / "garbage.txt"
    # Invalid UTF-8, and 0x81/0x8D/0x8F/0x90/0x9D are undefined in Windows-1252.
    path.write_bytes(b"\x81\x8d\x8f\x90\x9d")
    with pytest.raises(ValidationError) as caught:
        TextLoader(path, autodetect_encoding=True).load()
    message = str(caught.value)
    assert str(path) in message
    assert "utf-8" in message and "windows-1252" in message


def test_unknown_encoding_name_raises_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x")
    with pytest.raises(ValidationError, match="no-such-codec"):
        TextLoader(path, encoding="no-such-codec").load()


def test_directory_instead_of_file_raises_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        TextLoader(tmp_path).load()
