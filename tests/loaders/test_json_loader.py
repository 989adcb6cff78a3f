"""JSONLoader: values picked by a jq path become documents, without the jq package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loaders import JSONLoader
from loaders.testing import LoaderConformance
from rag.errors import ValidationError

CHAT = {
    "title": "Team chat",
    "messages": [
        {"sender": "ada", "text": "Hello", "meta": {"lang": "en"}},
        {"sender": "alan", "text": "Bonjour", "meta": {"lang": "fr"}},
    ],
}


def write_json(tmp_path: Path, data, name: str = "chat.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_lines(tmp_path: Path, lines: list[str], name: str = "events.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class TestJSONLoaderConformance(LoaderConformance):
    @pytest.fixture
    def loader(self, tmp_path: Path) -> JSONLoader:
        return JSONLoader(str(write_json(tmp_path, CHAT)), ".messages[]", content_key="text")

    @pytest.fixture
    def missing_loader(self, tmp_path: Path) -> tuple[JSONLoader, str]:
        path = str(tmp_path / "absent.json")
        return JSONLoader(path, "."), path


def test_iterated_objects_become_documents_with_their_content_key(tmp_path: Path) -> None:
    documents = JSONLoader(write_json(tmp_path, CHAT), ".messages[]", content_key="text").load()
    assert [document.page_content for document in documents] == ["Hello", "Bonjour"]


def test_metadata_has_source_as_given_and_seq_num_from_one(tmp_path: Path) -> None:
    path = write_json(tmp_path, CHAT)
    documents = JSONLoader(str(path), ".messages[]", content_key="text").load()
    assert [document.metadata for document in documents] == [
        {"source": str(path), "seq_num": 1},
        {"source": str(path), "seq_num": 2},
    ]


def test_nested_key_path_selects_one_string(tmp_path: Path) -> None:
    [document] = JSONLoader(write_json(tmp_path, CHAT), ".title").load()
    assert document.page_content == "Team chat"


def test_path_after_iteration_selects_a_field_of_each_element(tmp_path: Path) -> None:
    documents = JSONLoader(write_json(tmp_path, CHAT), ".messages[].meta.lang").load()
    assert [document.page_content for document in documents] == ["en", "fr"]


def test_identity_schema_with_text_content_false_dumps_the_whole_file(tmp_path: Path) -> None:
    [document] = JSONLoader(write_json(tmp_path, CHAT), ".", text_content=False).load()
    assert json.loads(document.page_content) == CHAT


def test_non_ascii_stays_readable_in_dumped_json(tmp_path: Path) -> None:
    [document] = JSONLoader(
        write_json(tmp_path, {"city": "Zürich"}), ".", text_content=False
    ).load()
    assert document.page_content == '{"city": "Zürich"}'


def test_non_string_content_with_text_content_raises_naming_the_type(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        JSONLoader(write_json(tmp_path, CHAT), ".messages[]").load()
    assert "dict" in str(caught.value) and "text_content=False" in str(caught.value)


def test_scalars_become_text_when_text_content_is_false(tmp_path: Path) -> None:
    path = write_json(tmp_path, [1, 2.5, None, [], {}, "x"], name="mixed.json")
    documents = JSONLoader(path, ".[]", text_content=False).load()
    assert [document.page_content for document in documents] == ["1", "2.5", "", "", "", "x"]


def test_null_content_becomes_empty_text(tmp_path: Path) -> None:
    path = write_json(tmp_path, [{"text": None}], name="null.json")
    assert JSONLoader(path, ".[]", content_key="text").load()[0].page_content == ""


def test_missing_content_key_raises_naming_key_and_document(tmp_path: Path) -> None:
    path = write_json(tmp_path, [{"text": "a"}, {"body": "b"}], name="partial.json")
    with pytest.raises(ValidationError) as caught:
        JSONLoader(path, ".[]", content_key="text").load()
    message = str(caught.value)
    assert "'text'" in message and "document 2" in message and "partial.json" in message


def test_content_key_on_non_objects_raises(tmp_path: Path) -> None:
    path = write_json(tmp_path, ["a", "b"], name="strings.json")
    with pytest.raises(ValidationError, match="content_key 'text'"):
        JSONLoader(path, ".[]", content_key="text").load()


def test_jq_parsable_content_key_takes_the_first_result(tmp_path: Path) -> None:
    documents = JSONLoader(
        write_json(tmp_path, CHAT),
        ".messages[]",
        content_key=".meta.lang",
        is_content_key_jq_parsable=True,
    ).load()
    assert [document.page_content for document in documents] == ["en", "fr"]


def test_metadata_func_receives_the_record_and_default_metadata(tmp_path: Path) -> None:
    path = write_json(tmp_path, CHAT)

    def add_sender(record: dict, metadata: dict) -> dict:
        metadata["sender"] = record["sender"]
        return metadata

    documents = JSONLoader(path, ".messages[]", content_key="text", metadata_func=add_sender).load()
    assert documents[1].metadata == {"source": str(path), "seq_num": 2, "sender": "alan"}


def test_metadata_func_result_keeps_source_and_seq_num(tmp_path: Path) -> None:
    path = write_json(tmp_path, CHAT)
    documents = JSONLoader(
        path,
        ".messages[]",
        content_key="text",
        metadata_func=lambda record, _: {"who": record["sender"]},
    ).load()
    assert documents[0].metadata == {"source": str(path), "seq_num": 1, "who": "ada"}


def test_metadata_func_returning_non_dict_raises(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="must return a dict"):
        JSONLoader(
            write_json(tmp_path, CHAT),
            ".messages[]",
            content_key="text",
            metadata_func=lambda r, m: None,
        ).load()


def test_json_lines_give_one_document_per_line_with_continuing_seq_num(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ['{"text": "a"}', "", '{"text": "b"}', '{"text": "c"}'])
    documents = JSONLoader(path, ".", content_key="text", json_lines=True).load()
    assert [(d.page_content, d.metadata["seq_num"]) for d in documents] == [
        ("a", 1),
        ("b", 2),
        ("c", 3),
    ]


def test_json_lines_with_iteration_count_across_lines(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ['{"tags": ["x", "y"]}', '{"tags": ["z"]}'])
    documents = JSONLoader(path, ".tags[]", json_lines=True).load()
    assert [(d.page_content, d.metadata["seq_num"]) for d in documents] == [
        ("x", 1),
        ("y", 2),
        ("z", 3),
    ]


def test_json_lines_keep_unicode_line_separators_inside_strings(tmp_path: Path) -> None:
    path = tmp_path / "sep.jsonl"
    path.write_text('{"text": "one\u2028two"}\n', encoding="utf-8")
    [document] = JSONLoader(path, ".text", json_lines=True).load()
    assert document.page_content == "one\u2028two"


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"t": "ok"}).encode())
    assert JSONLoader(path, ".t").load()[0].page_content == "ok"


def test_invalid_json_raises_naming_file_and_position(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"a": 1,,}')
    with pytest.raises(ValidationError) as caught:
        JSONLoader(path, ".").load()
    assert "broken.json" in str(caught.value) and "column" in str(caught.value)


def test_invalid_json_line_raises_naming_the_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path, ['{"text": "a"}', "{oops"])
    with pytest.raises(ValidationError, match="line 2"):
        JSONLoader(path, ".text", json_lines=True).load()


@pytest.mark.parametrize(
    "schema", [".messages[] | .text", "map(.text)", ".messages[]?", ".[1:3]", "messages"]
)
def test_unsupported_jq_schema_raises_value_error_naming_it(tmp_path: Path, schema: str) -> None:
    with pytest.raises(ValueError) as caught:
        JSONLoader(write_json(tmp_path, CHAT), schema)
    assert repr(schema) in str(caught.value)


def test_iterating_a_missing_key_raises_naming_schema_and_file(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        JSONLoader(write_json(tmp_path, CHAT), ".items[]").load()
    message = str(caught.value)
    assert "'.items[]'" in message and "null" in message and "chat.json" in message
