"""BSHTMLLoader: visible text and title, standard-library parser by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from loaders import BSHTMLLoader
from loaders.testing import LoaderConformance
from rag.errors import ValidationError

PAGE = """<!doctype html>
<html><head><title> Moon landing </title><style>p { color: red }</style></head>
<body><h1>Apollo 11</h1><p>Landed in <b>1969</b>.</p><script>var hidden = 1;</script></body>
</html>"""


def write(tmp_path: Path, markup: str | bytes, name: str = "page.html") -> Path:
    path = tmp_path / name
    if isinstance(markup, str):
        path.write_text(markup, encoding="utf-8")
    else:
        path.write_bytes(markup)
    return path


class TestBSHTMLLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> BSHTMLLoader:
        return BSHTMLLoader(str(write(tmp_path, PAGE)))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[BSHTMLLoader, str]:
        path = str(tmp_path / "absent.html")
        return BSHTMLLoader(path), path


def test_metadata_holds_source_and_stripped_title(tmp_path: Path) -> None:
    path = write(tmp_path, PAGE)
    assert BSHTMLLoader(str(path)).load()[0].metadata == {
        "source": str(path),
        "title": "Moon landing",
    }


def test_content_is_visible_text_without_script_or_style(tmp_path: Path) -> None:
    text = BSHTMLLoader(write(tmp_path, PAGE)).load()[0].page_content
    assert "Apollo 11" in text and "Landed in 1969." in text
    assert "hidden" not in text and "color" not in text


def test_separator_goes_between_text_fragments(tmp_path: Path) -> None:
    markup = "<html><body><p>one</p><p>two</p></body></html>"
    text = BSHTMLLoader(write(tmp_path, markup), get_text_separator="|").load()[0].page_content
    assert text == "one|two"


def test_page_without_title_has_empty_title(tmp_path: Path) -> None:
    document = BSHTMLLoader(write(tmp_path, "<p>no title</p>")).load()[0]
    assert document.metadata["title"] == ""


def test_empty_title_element_gives_empty_title_not_none(tmp_path: Path) -> None:
    document = BSHTMLLoader(write(tmp_path, "<title></title><p>x</p>")).load()[0]
    assert document.metadata["title"] == ""


def test_meta_charset_is_honoured_without_open_encoding(tmp_path: Path) -> None:
    markup = '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head></html>'
    path = write(tmp_path, markup.encode("latin-1"))
    assert BSHTMLLoader(path).load()[0].metadata["title"] == "Café"


def test_open_encoding_decodes_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "<title>Grüße</title>".encode("cp1252"))
    assert BSHTMLLoader(path, open_encoding="cp1252").load()[0].metadata["title"] == "Grüße"


def test_wrong_open_encoding_raises_naming_file(tmp_path: Path) -> None:
    path = write(tmp_path, "<title>Grüße</title>".encode("cp1252"))
    with pytest.raises(ValidationError, match="page.html"):
        BSHTMLLoader(path, open_encoding="utf-8").load()


def test_bs_kwargs_choose_the_parser(tmp_path: Path) -> None:
    loader = BSHTMLLoader(write(tmp_path, PAGE), bs_kwargs={"features": "html.parser"})
    assert loader.bs_kwargs == {"features": "html.parser"}
    assert "Apollo 11" in loader.load()[0].page_content


def test_default_parser_is_the_standard_library_one(tmp_path: Path) -> None:
    assert BSHTMLLoader(write(tmp_path, PAGE)).bs_kwargs == {"features": "html.parser"}
