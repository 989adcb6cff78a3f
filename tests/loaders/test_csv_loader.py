"""CSVLoader: one document per row, `key: value` lines, LangChain's metadata."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders import CSVLoader
from loaders.testing import LoaderConformance
from rag.errors import ValidationError

PEOPLE = "id,name,city\n1,Ada, London \n2,Alan,Wilmslow\n"


def write(tmp_path: Path, text: str, name: str = "people.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


class TestCSVLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> CSVLoader:
        return CSVLoader(str(write(tmp_path, PEOPLE)))

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[CSVLoader, str]:
        path = str(tmp_path / "absent.csv")
        return CSVLoader(path), path


def test_each_row_becomes_key_value_lines_with_stripped_values(tmp_path: Path) -> None:
    documents = CSVLoader(write(tmp_path, PEOPLE)).load()
    assert [document.page_content for document in documents] == [
        "id: 1\nname: Ada\ncity: London",
        "id: 2\nname: Alan\ncity: Wilmslow",
    ]


def test_metadata_has_source_and_zero_based_row(tmp_path: Path) -> None:
    path = write(tmp_path, PEOPLE)
    documents = CSVLoader(str(path)).load()
    assert [document.metadata for document in documents] == [
        {"source": str(path), "row": 0},
        {"source": str(path), "row": 1},
    ]


def test_source_column_replaces_the_path_as_source(tmp_path: Path) -> None:
    documents = CSVLoader(write(tmp_path, PEOPLE), source_column="name").load()
    assert [document.metadata["source"] for document in documents] == ["Ada", "Alan"]


def test_metadata_columns_move_out_of_content_with_raw_values(tmp_path: Path) -> None:
    document = CSVLoader(write(tmp_path, PEOPLE), metadata_columns=["city"]).load()[0]
    assert document.page_content == "id: 1\nname: Ada"
    assert document.metadata["city"] == " London "


def test_content_columns_select_the_content_in_file_order(tmp_path: Path) -> None:
    document = CSVLoader(write(tmp_path, PEOPLE), content_columns=["city", "id"]).load()[0]
    assert document.page_content == "id: 1\ncity: London"


def test_csv_args_set_the_delimiter(tmp_path: Path) -> None:
    path = write(tmp_path, "a;b\n1;2\n", name="semi.csv")
    document = CSVLoader(path, csv_args={"delimiter": ";"}).load()[0]
    assert document.page_content == "a: 1\nb: 2"


def test_csv_args_fieldnames_treat_the_first_line_as_data(tmp_path: Path) -> None:
    path = write(tmp_path, "1,2\n3,4\n", name="bare.csv")
    documents = CSVLoader(path, csv_args={"fieldnames": ["x", "y"]}).load()
    assert [document.page_content for document in documents] == ["x: 1\ny: 2", "x: 3\ny: 4"]


def test_quoted_newlines_and_commas_stay_inside_one_cell(tmp_path: Path) -> None:
    path = write(tmp_path, 'note,n\n"line one\nline two, still",1\n', name="quoted.csv")
    documents = CSVLoader(path, metadata_columns=["note"]).load()
    assert len(documents) == 1
    assert documents[0].metadata["note"] == "line one\nline two, still"


def test_excel_bom_does_not_leak_into_the_first_column_name(tmp_path: Path) -> None:
    path = write(tmp_path, "\ufeffid,name\n1,Ada\n", name="excel.csv")
    assert CSVLoader(path).load()[0].page_content == "id: 1\nname: Ada"


def test_latin1_file_loads_with_explicit_encoding(tmp_path: Path) -> None:
    path = write(tmp_path, "ville\nMontréal\n", name="latin.csv", encoding="latin-1")
    assert CSVLoader(path, encoding="latin-1").load()[0].page_content == "ville: Montréal"


def test_latin1_file_loads_with_autodetection(tmp_path: Path) -> None:
    path = write(tmp_path, "ville\nMontréal\n", name="latin.csv", encoding="latin-1")
    assert CSVLoader(path, autodetect_encoding=True).load()[0].page_content == "ville: Montréal"


def test_row_with_extra_cells_lists_them_under_none_as_langchain(tmp_path: Path) -> None:
    path = write(tmp_path, "a,b\n1,2,3,4\n", name="ragged.csv")
    assert CSVLoader(path).load()[0].page_content == "a: 1\nb: 2\nNone: 3,4"


def test_empty_file_gives_no_documents(tmp_path: Path) -> None:
    assert CSVLoader(write(tmp_path, "", name="empty.csv")).load() == []


def test_unknown_source_column_raises_naming_it_and_the_header(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        CSVLoader(write(tmp_path, PEOPLE), source_column="url").load()
    assert "'url'" in str(caught.value) and "['id', 'name', 'city']" in str(caught.value)


def test_unknown_metadata_column_raises_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'age'"):
        CSVLoader(write(tmp_path, PEOPLE), metadata_columns=["age"]).load()


def test_unknown_content_column_raises_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'age'"):
        CSVLoader(write(tmp_path, PEOPLE), content_columns=["age"]).load()


def test_a_string_for_metadata_columns_is_rejected_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="'city'"):
        CSVLoader(write(tmp_path, PEOPLE), metadata_columns="city")


cell = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
    max_size=20,
)
column = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)


@settings(deadline=None, max_examples=50)
@given(
    columns=st.lists(column, min_size=1, max_size=4, unique=True),
    data=st.data(),
)
def test_round_trip_preserves_every_cell(tmp_path_factory, columns, data) -> None:
    rows = data.draw(
        st.lists(st.lists(cell, min_size=len(columns), max_size=len(columns)), max_size=5)
    )
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(columns)
    writer.writerows(rows)
    path = tmp_path_factory.mktemp("csv") / "round.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))

    documents = CSVLoader(path, metadata_columns=columns).load()

    assert [[document.metadata[name] for name in columns] for document in documents] == rows
    assert [document.metadata["row"] for document in documents] == list(range(len(rows)))


@settings(deadline=None, max_examples=50)
@given(
    columns=st.lists(column, min_size=1, max_size=4, unique=True),
    data=st.data(),
)
def test_content_is_one_stripped_key_value_line_per_column(tmp_path_factory, columns, data) -> None:
    single_line = st.text(
        alphabet=st.characters(whitelist_categories=("L", "N", "Zs")), max_size=12
    )
    row = data.draw(st.lists(single_line, min_size=len(columns), max_size=len(columns)))
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows([columns, row])
    path = tmp_path_factory.mktemp("csv") / "lines.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))

    [document] = CSVLoader(path).load()

    expected = "\n".join(
        f"{name}: {value.strip()}" for name, value in zip(columns, row, strict=True)
    )
    assert document.page_content == expected
