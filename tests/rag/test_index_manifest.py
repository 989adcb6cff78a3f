"""The manifest cannot lie: an index folder's manifest carries its own checksum, every field
is checked, damage is one CorruptIndexError naming the file, and no commit deletes a
segment a manifest it could not verify may have lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rag.cli import app
from rag.errors import CorruptIndexError
from rag.index import Index
from rag.index.manifest import manifest_checksum, with_checksum


@pytest.fixture
def index_folder(tmp_path: Path, corpus: Path) -> Path:
    index = Index.create(tmp_path / "ix", embeddings="hashing")
    index.update([str(corpus)])
    return tmp_path / "ix"


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _write(folder: Path, data: dict, *, checksum: bool) -> None:
    """``data`` as the manifest, with a correct checksum (a crafted manifest) or none (an old one)."""
    data = with_checksum(data) if checksum else {k: v for k, v in data.items() if k != "checksum"}
    (folder / "manifest.json").write_text(json.dumps(data))


def _ranking(folder: Path) -> list[tuple[str, float]]:
    return [(d.id, round(s, 9)) for d, s in Index.open(folder).search("cats purr", k=3)]


def _cli_error(capsys, *argv: str) -> str:
    assert app.main(list(argv)) == 1
    err = capsys.readouterr().err
    assert err.startswith("rag: error: ") and "internal error" not in err and err.count("\n") == 1
    return err


def test_a_commit_writes_a_checksum_of_the_manifests_own_content(index_folder):
    data = _manifest(index_folder)
    assert data["checksum"].startswith("sha256:") and data["checksum"] == manifest_checksum(data)


def test_a_manifest_altered_in_a_valid_way_fails_its_checksum_naming_the_file(index_folder):
    data = _manifest(index_folder)
    data["config"]["hybrid"]["c"] = 61  # valid JSON, valid settings, different rankings: a lie
    (index_folder / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(CorruptIndexError, match=r"manifest\.json does not match its checksum"):
        Index.open(index_folder)


def test_a_manifest_without_a_checksum_opens_as_an_old_one_and_the_next_commit_adds_it(index_folder, corpus):
    expected = _ranking(index_folder)
    _write(index_folder, _manifest(index_folder), checksum=False)
    assert _ranking(index_folder) == expected
    (corpus / "new.md").write_text("Parrots talk.")
    Index.open(index_folder).update([str(corpus)])
    assert "checksum" in _manifest(index_folder)


def test_a_misspelt_segments_key_is_an_error_not_an_empty_index(index_folder):
    data = _manifest(index_folder)
    data["segmentr"] = data.pop("segments")  # one bit off, in an old manifest with no checksum to catch it
    _write(index_folder, data, checksum=False)
    with pytest.raises(CorruptIndexError, match="manifest.json"):
        Index.open(index_folder)


@pytest.mark.parametrize("field, value", [
    ("segments", {}), ("embedding", []), ("format_version", "2"), ("store_class", 7), ("config", None),
])
def test_a_top_level_field_of_the_wrong_type_is_corrupt(index_folder, field, value):
    data = _manifest(index_folder)
    data[field] = value
    _write(index_folder, data, checksum=True)
    with pytest.raises(CorruptIndexError, match="manifest.json"):
        Index.open(index_folder)


@pytest.mark.parametrize("change", [
    lambda entry: entry.update(files=[]), lambda entry: entry.update(rows=-1), lambda entry: entry.update(rows="3"),
    lambda entry: entry.update(name="../../etc"), lambda entry: entry["files"].pop("chunks.json"),
    lambda entry: entry["files"]["vectors.npy"].update(sha256=None),
])
def test_a_segment_entry_of_the_wrong_shape_is_a_one_line_error(index_folder, capsys, change):
    data = _manifest(index_folder)
    change(data["segments"][0])
    _write(index_folder, data, checksum=True)
    assert "manifest.json: segments[0]" in _cli_error(capsys, "info", "--index", str(index_folder))


def test_a_manifest_nested_100000_deep_is_a_one_line_error(index_folder, capsys):
    (index_folder / "manifest.json").write_text('{"format": "rag-index", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nested" in _cli_error(capsys, "info", "--index", str(index_folder))


def test_a_5000_digit_number_is_a_one_line_error(index_folder, capsys):
    text = (index_folder / "manifest.json").read_text()
    (index_folder / "manifest.json").write_text(text.replace('"format_version": 2', '"format_version": ' + "9" * 5000))
    assert "manifest.json" in _cli_error(capsys, "info", "--index", str(index_folder))


def test_a_duplicated_key_is_corrupt(index_folder):
    text = (index_folder / "manifest.json").read_text()
    (index_folder / "manifest.json").write_text(text.replace('"bm25": null', '"bm25": null, "bm25": null'))
    with pytest.raises(CorruptIndexError, match="appears twice"):
        Index.open(index_folder)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("which", ["manifest", "segment file"])
def test_a_fifo_in_the_index_folder_is_refused_not_read(index_folder, which):
    if which == "manifest":
        target = index_folder / "manifest.json"
    else:
        target = index_folder / "segments" / _manifest(index_folder)["segments"][0]["name"] / "chunks.json"
    target.unlink()
    os.mkfifo(target)
    # A subprocess: were the FIFO read, it would block forever with no writer.
    done = subprocess.run([sys.executable, "-m", "rag", "info", "--index", str(index_folder)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "is a FIFO, not a regular file" in done.stderr and str(target) in done.stderr


def _segment_folders(folder: Path) -> set[str]:
    return {p.name for p in (folder / "segments").iterdir()}


def test_a_manifest_that_fails_its_checksum_deletes_nothing_when_indexing_again(index_folder, corpus, capsys):
    before = _segment_folders(index_folder)
    data = _manifest(index_folder)
    data["segments"] = []  # every segment dropped, the checksum now stale
    (index_folder / "manifest.json").write_text(json.dumps(data))
    assert "checksum" in _cli_error(capsys, "index", str(corpus), "--index", str(index_folder))
    assert _segment_folders(index_folder) == before


def test_a_commit_on_an_old_manifest_that_lost_segments_keeps_them_aside(index_folder, corpus, caplog):
    lost = _segment_folders(index_folder)
    data = _manifest(index_folder)
    data["segments"] = []  # an old manifest (no checksum), damaged: nothing can tell
    _write(index_folder, data, checksum=False)
    Index.open(index_folder).update([str(corpus)])  # re-adds the files, as the manifest said the index was empty
    assert f"moved to {index_folder / 'orphans'}" in caplog.text
    assert {p.name for p in (index_folder / "orphans").iterdir()} == {f"segments-{name}" for name in lost}
    (corpus / "more.md").write_text("Hamsters run.")
    Index.open(index_folder).update([str(corpus)])  # the next commit, on a verified manifest, keeps them too
    assert {p.name for p in (index_folder / "orphans").iterdir()} == {f"segments-{name}" for name in lost}


def test_a_commit_on_a_verified_manifest_deletes_a_crashed_saves_leftover(index_folder, corpus):
    leftover = index_folder / "segments" / "0123456789abcdef"
    leftover.mkdir()
    (leftover / "vectors.npy").write_bytes(b"half")
    (corpus / "more.md").write_text("Hamsters run.")
    Index.open(index_folder).update([str(corpus)])
    assert not leftover.exists() and not (index_folder / "orphans").exists()


def test_info_takes_sizes_from_the_manifest_not_a_walk_of_the_folder(index_folder):
    data = _manifest(index_folder)
    expected = (index_folder / "manifest.json").stat().st_size + sum(
        info["bytes"] for entry in data["segments"] for info in entry["files"].values())
    (index_folder / "segments" / ".saving-1-x").mkdir()
    (index_folder / "segments" / ".saving-1-x" / "big.npy").write_bytes(b"0" * 100_000)
    assert Index.open(index_folder).info().size_on_disk_bytes == expected


def test_info_does_not_fail_while_a_writer_renames_staging_folders(index_folder):
    index = Index.open(index_folder)
    stop = threading.Event()

    def rename_forever() -> None:
        staging, final = index_folder / "segments" / ".saving-2-y", index_folder / "segments" / "renamed"
        while not stop.is_set():
            staging.mkdir()
            (staging / "f").write_bytes(b"x")
            os.rename(staging, final)
            (final / "f").unlink()
            final.rmdir()

    writer = threading.Thread(target=rename_forever)
    writer.start()
    try:
        sizes = {index.info().size_on_disk_bytes for _ in range(200)}
    finally:
        stop.set()
        writer.join()
    assert len(sizes) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_a_section_of_an_older_format_folder_is_refused(tmp_path):
    from rag.persistence import Manifest, write_index_folder

    write_index_folder(tmp_path / "old", Manifest(store_class="Notes", model_id=None, dimension=None),
                       {"docs": ["a", "b"]})
    section = next(p for p in (tmp_path / "old").iterdir() if p.name != "manifest.json")
    section.unlink()
    os.mkfifo(section)
    script = ("from rag.persistence import read_index_folder\n"
              f"folder = read_index_folder({str(tmp_path / 'old')!r})\n"
              "folder.json('docs')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "not a regular file" in done.stderr and section.name in done.stderr


def test_a_crafted_segment_file_nested_100000_deep_is_a_one_line_error(index_folder, capsys):
    import hashlib

    data = _manifest(index_folder)
    entry = data["segments"][0]
    payload = ("[" * 100_000 + "]" * 100_000).encode()
    (index_folder / "segments" / entry["name"] / "changes.json").write_bytes(payload)
    entry["files"]["changes.json"] = {"sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload)}
    _write(index_folder, data, checksum=True)  # every checksum right: only the content is hostile
    assert "changes.json is nested too deeply" in _cli_error(capsys, "info", "--index", str(index_folder))


def test_a_first_commit_beside_segments_of_a_lost_manifest_says_the_manifest_was_missing(index_folder, corpus,
                                                                                         caplog):
    lost = _segment_folders(index_folder)
    (index_folder / "manifest.json").unlink()
    Index.create(index_folder, embeddings="hashing").update([str(corpus)])
    assert {p.name for p in (index_folder / "orphans").iterdir()} == {f"segments-{name}" for name in lost}
    assert "there was no manifest" in caplog.text and "written before checksums" not in caplog.text
