"""Model files: the sha256 check is remembered by file identity, never trusted past a change."""

import hashlib
import os

import pytest

from rag.embeddings import _model_files
from rag.embeddings._model_files import cache_dir, verified_bytes
from rag.errors import StorageError

PAYLOAD = b"weights " * 1000
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture
def hashes(monkeypatch):
    """Counts the sha256 computations (the real function still runs)."""
    calls = []
    real = _model_files.sha256_of

    def counting(payload):
        calls.append(len(payload))
        return real(payload)

    monkeypatch.setattr(_model_files, "sha256_of", counting)
    return calls


@pytest.fixture
def settled(monkeypatch):
    """Files count as settled at once, as a model installed long ago does (the stamp is
    written on the first check; the 2 s wait is tested on its own below)."""
    monkeypatch.setattr(_model_files, "SETTLE_NS", 0)


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(PAYLOAD)
    return path


def test_a_verified_file_is_not_hashed_again_while_unchanged(model_file, tmp_path, hashes, settled):
    cache = tmp_path / "cache"
    assert verified_bytes(model_file, DIGEST, "model file", cache=cache) == PAYLOAD
    assert verified_bytes(model_file, DIGEST, "model file", cache=cache) == PAYLOAD
    assert len(hashes) == 1


def test_a_file_rewritten_with_the_same_size_and_mtime_is_hashed_again_and_refused(model_file, tmp_path, settled):
    cache = tmp_path / "cache"
    verified_bytes(model_file, DIGEST, "model file", cache=cache)
    stat = model_file.stat()
    model_file.write_bytes(PAYLOAD.replace(b"weights", b"WEIGHTS"))  # same size
    os.utime(model_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # mtime put back
    with pytest.raises(StorageError, match="sha256"):
        verified_bytes(model_file, DIGEST, "model file", cache=cache)


def test_a_file_replaced_by_another_under_the_same_name_is_hashed_again(model_file, tmp_path, hashes, settled):
    cache = tmp_path / "cache"
    verified_bytes(model_file, DIGEST, "model file", cache=cache)
    replacement = tmp_path / "replacement"
    replacement.write_bytes(PAYLOAD)
    os.replace(replacement, model_file)
    assert verified_bytes(model_file, DIGEST, "model file", cache=cache) == PAYLOAD
    assert len(hashes) == 2


def test_a_stamp_for_another_expected_hash_does_not_count(model_file, tmp_path, settled):
    cache = tmp_path / "cache"
    verified_bytes(model_file, DIGEST, "model file", cache=cache)
    with pytest.raises(StorageError, match="expected " + "0" * 64):
        verified_bytes(model_file, "0" * 64, "model file", cache=cache)


def test_an_unwritable_cache_still_verifies(model_file, tmp_path, hashes, settled):
    blocked = tmp_path / "blocked"
    blocked.write_bytes(b"a file where the cache folder would be")
    assert verified_bytes(model_file, DIGEST, "model file", cache=blocked) == PAYLOAD
    assert verified_bytes(model_file, DIGEST, "model file", cache=blocked) == PAYLOAD
    assert len(hashes) == 2


def test_a_file_changed_in_the_last_two_seconds_is_hashed_again_on_the_next_read(model_file, tmp_path, hashes):
    # Its timestamps may still be in the clock tick of its last write, where a same-size
    # rewrite would keep every field of the identity: it is not stamped yet.
    cache = tmp_path / "cache"
    assert verified_bytes(model_file, DIGEST, "model file", cache=cache) == PAYLOAD
    assert verified_bytes(model_file, DIGEST, "model file", cache=cache) == PAYLOAD
    assert len(hashes) == 2
    assert not (cache / "verified").exists()


def test_a_missing_file_is_a_storage_error_naming_it(tmp_path):
    with pytest.raises(StorageError, match="model file .*absent.onnx"):
        verified_bytes(tmp_path / "absent.onnx", DIGEST, "model file", cache=tmp_path / "cache")


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("RAG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "rag-toolkit"
