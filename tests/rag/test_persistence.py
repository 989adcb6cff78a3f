"""The on-disk index format: sections, manifest checks and atomic replacement."""

import hashlib
import json

import numpy as np
import pytest

import rag.persistence.atomic as persistence
from rag.errors import CorruptIndexError, EmbeddingMismatchError, StorageError, ValidationError
from rag.persistence import FileSection, JsonLinesSection, Manifest, read_index_folder, write_index_folder


def manifest(**overrides):
    fields = dict(store_class="TestStore", model_id="M-4", dimension=4, distance_strategy="COSINE", config={"a": 1})
    fields.update(overrides)
    return Manifest(**fields)


def test_arrays_json_and_bytes_round_trip(tmp_path):
    vectors = np.arange(8, dtype=np.float32).reshape(2, 4)
    write_index_folder(tmp_path / "ix", manifest(), {"vectors": vectors, "docs": {"x": ["é", 1]}, "raw": b"\x00\x01"})
    folder = read_index_folder(tmp_path / "ix")
    np.testing.assert_array_equal(folder.array("vectors"), vectors)
    assert folder.json("docs") == {"x": ["é", 1]} and folder.bytes("raw") == b"\x00\x01"
    assert folder.manifest.config == {"a": 1} and folder.manifest.distance_strategy == "COSINE"


def test_the_manifest_records_size_and_sha256_of_every_file(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1, 2, 3]})
    data = json.loads((tmp_path / "ix" / "manifest.json").read_text())
    assert data["format"] == "rag-index" and data["format_version"] == 3
    assert data["embedding"] == {"model_id": "M-4", "dimension": 4}
    assert data["sections"]["docs"]["file"] == "docs.json" and len(data["sections"]["docs"]["sha256"]) == 64


def test_object_arrays_are_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValidationError, match="object array"):
        write_index_folder(tmp_path / "ix", manifest(), {"bad": np.array([{"a": 1}], dtype=object)})
    assert not (tmp_path / "ix").exists()


def test_metadata_that_is_not_json_is_refused_with_a_hint(tmp_path):
    with pytest.raises(ValidationError, match="JSON types"):
        write_index_folder(tmp_path / "ix", manifest(), {"docs": {"when": object()}})


def test_a_pickled_npy_file_is_never_loaded(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {"vectors": np.zeros(2)})
    pickled = tmp_path / "evil.npy"
    np.save(pickled, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    target = tmp_path / "ix" / "vectors.npy"
    target.write_bytes(pickled.read_bytes())
    data = json.loads((tmp_path / "ix" / "manifest.json").read_text())
    import hashlib

    payload = target.read_bytes()
    data["sections"]["vectors"].update(sha256=hashlib.sha256(payload).hexdigest(), bytes=len(payload))
    (tmp_path / "ix" / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(CorruptIndexError, match="not a plain numeric"):
        read_index_folder(tmp_path / "ix").array("vectors")


def test_a_section_file_outside_the_folder_is_refused(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1]})
    data = json.loads((tmp_path / "ix" / "manifest.json").read_text())
    data["sections"]["docs"]["file"] = "../secret.json"
    (tmp_path / "ix" / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(CorruptIndexError, match="outside the folder"):
        read_index_folder(tmp_path / "ix").json("docs")


def test_a_folder_of_another_store_class_is_refused(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {})
    with pytest.raises(CorruptIndexError, match="holds a TestStore index"):
        read_index_folder(tmp_path / "ix", store_class="FAISS")


def test_a_folder_without_manifest_is_reported_as_corrupt(tmp_path):
    (tmp_path / "ix").mkdir()
    with pytest.raises(CorruptIndexError, match="no manifest.json"):
        read_index_folder(tmp_path / "ix")


def test_a_manifest_that_is_not_json_is_reported(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {})
    (tmp_path / "ix" / "manifest.json").write_text("{not json")
    with pytest.raises(CorruptIndexError, match="not valid JSON"):
        read_index_folder(tmp_path / "ix")


def test_embedding_identity_is_checked(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {})
    folder = read_index_folder(tmp_path / "ix")
    folder.check_embedding("M-4", 4)
    with pytest.raises(EmbeddingMismatchError, match="'M-4', not 'Other'"):
        folder.check_embedding("Other", 4)
    with pytest.raises(EmbeddingMismatchError, match="4-dimensional"):
        folder.check_embedding("M-4", 8)


def test_without_atomic_exchange_the_two_rename_fallback_replaces_the_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(persistence, "_exchange", lambda a, b: False)
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1]})
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [2]})
    assert read_index_folder(tmp_path / "ix").json("docs") == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]


def test_a_crash_between_the_fallback_renames_leaves_the_previous_index_readable(tmp_path, monkeypatch):
    monkeypatch.setattr(persistence, "_exchange", lambda a, b: False)
    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["old"]})
    real_rename = persistence.os.rename
    calls = []

    def rename_then_crash(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        real_rename(src, dst)

    monkeypatch.setattr(persistence.os, "rename", rename_then_crash)
    with pytest.raises(OSError):
        write_index_folder(tmp_path / "ix", manifest(), {"docs": ["new"]})
    monkeypatch.undo()
    assert not (tmp_path / "ix").exists()
    assert read_index_folder(tmp_path / "ix").json("docs") == ["old"]


def test_saving_over_a_folder_of_other_files_is_refused_and_keeps_them(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "precious.txt").write_text("keep me")
    with pytest.raises(StorageError, match="not an index folder"):
        write_index_folder(tmp_path / "notes", manifest(), {"docs": [1]})
    assert (tmp_path / "notes" / "precious.txt").read_text() == "keep me"


def test_saving_into_an_empty_folder_is_allowed(tmp_path):
    (tmp_path / "ix").mkdir()
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1]})
    assert read_index_folder(tmp_path / "ix").json("docs") == [1]


def test_a_save_swapped_in_while_reading_is_read_again_not_reported_as_corrupt(tmp_path, monkeypatch):
    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["old"], "more": ["old"]})
    real_read = persistence._read_files
    calls = []

    def read_then_concurrent_save(folder, found):
        calls.append(folder)
        payloads = real_read(folder, found)
        if len(calls) == 1:  # another process saves between our manifest and file reads
            write_index_folder(tmp_path / "ix", manifest(), {"docs": ["new"], "more": ["new"]})
        return payloads

    monkeypatch.setattr(persistence, "_read_files", read_then_concurrent_save)
    folder = read_index_folder(tmp_path / "ix")
    assert len(calls) == 2 and folder.json("docs") == ["new"] and folder.json("more") == ["new"]


def test_a_running_saves_staging_folder_is_left_alone(tmp_path):
    import os

    other = tmp_path / f".ix.saving-{os.getppid()}-0123456789ab"  # a live process: our parent
    other.mkdir()
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1]})
    assert other.exists()


def test_a_crashed_saves_staging_folder_is_removed(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / f".ix.saving-{dead.stdout.strip()}-0123456789ab"
    leftover.mkdir()
    write_index_folder(tmp_path / "ix", manifest(), {"docs": [1]})
    assert not leftover.exists()


def test_writing_leaves_the_callers_manifest_unchanged(tmp_path):
    given = manifest()
    write_index_folder(tmp_path / "ix", given, {"docs": [1]})
    assert given.sections == {} and given == manifest()
    assert read_index_folder(tmp_path / "ix").manifest.sections["docs"]["file"] == "docs.json"


def test_a_section_that_would_overwrite_the_manifest_is_refused(tmp_path):
    with pytest.raises(ValidationError, match="overwrite manifest.json"):
        write_index_folder(tmp_path / "ix", manifest(), {"manifest": {"a": 1}})
    assert not (tmp_path / "ix").exists()


def test_streamed_sections_are_written_to_their_files_and_read_back_verified(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {
        "rows": JsonLinesSection(iter([{"a": 1}, ["é", "line\nbreak"]])),
        "blob": FileSection(".faiss", lambda path: path.write_bytes(b"\x00" * 100)),
    })
    listing = json.loads((tmp_path / "ix" / "manifest.json").read_text())["sections"]
    assert listing["blob"] == {"file": "blob.faiss", "bytes": 100, "sha256": hashlib.sha256(b"\x00" * 100).hexdigest()}
    with read_index_folder(tmp_path / "ix") as folder:
        assert list(folder.json_lines("rows")) == [{"a": 1}, ["é", "line\nbreak"]]
        assert folder.verified_file("blob").read() == b"\x00" * 100


def test_a_failing_file_section_writer_leaves_the_previous_folder_and_no_staging(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["old"]})

    def disk_full(path):
        raise OSError(28, "No space left on device")

    with pytest.raises(StorageError, match="No space left"):
        write_index_folder(tmp_path / "ix", manifest(), {"docs": ["new"], "blob": FileSection(".faiss", disk_full)})
    assert read_index_folder(tmp_path / "ix").json("docs") == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]


def test_a_streamed_value_that_is_not_json_is_refused_and_the_previous_folder_kept(tmp_path):
    write_index_folder(tmp_path / "ix", manifest(), {"docs": ["old"]})
    with pytest.raises(ValidationError, match="JSON types"):
        write_index_folder(tmp_path / "ix", manifest(), {"docs": JsonLinesSection(iter([{"ok": 1}, {"when": object()}]))})
    assert read_index_folder(tmp_path / "ix").json("docs") == ["old"]


def test_a_file_section_with_an_unknown_suffix_is_refused_before_writing(tmp_path):
    with pytest.raises(ValidationError, match="suffix"):
        write_index_folder(tmp_path / "ix", manifest(), {"blob": FileSection(".bin", lambda path: None)})
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize("without", ["preadv", "both"])
def test_a_file_section_is_verified_without_positioned_reads_too(tmp_path, monkeypatch, without):
    # macOS before 11 has pread but not preadv; Windows has neither (hashed in the caller's thread).
    import os

    from rag.persistence import format as folder_format
    from rag.persistence import streams

    monkeypatch.delattr(os, "preadv", raising=False)
    if without == "both":
        monkeypatch.setattr(folder_format, "BACKGROUND_HASHING", False)
    write_index_folder(tmp_path / "ix", manifest(), {"blob": FileSection(".faiss", lambda path: path.write_bytes(b"ab" * 10**6))})
    (tmp_path / "ix" / "blob.faiss").write_bytes(b"ab" * (10**6 - 1) + b"ba")  # same size, altered
    with read_index_folder(tmp_path / "ix") as folder:
        assert bool(folder._hashes) == (without == "preadv") and streams.BACKGROUND_HASHING
        with pytest.raises(CorruptIndexError, match="sha256"):
            folder.verified_file("blob")
