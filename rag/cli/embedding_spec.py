"""Embedding specs on the command line (``local``, ``hashing``, ``openai:MODEL``) and back."""

from __future__ import annotations

import importlib.util
from typing import Any, Optional

from rag.errors import ValidationError

__all__ = ["default_spec", "make_embeddings", "check_spec"]

_SPECS = "local, hashing or openai:MODEL (for example openai:text-embedding-3-small)"


def check_spec(spec: str) -> str:
    """``spec`` if it names an embeddings choice, else a ValidationError listing them."""
    if spec in ("local", "hashing") or (spec.startswith("openai:") and len(spec) > len("openai:")):
        return spec
    raise ValidationError(f"--embeddings {spec!r} is not one of {_SPECS}")


def local_available() -> bool:
    """True when the ``local`` extra (onnxruntime, tokenizers, the model package) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers"))


def default_spec() -> str:
    """The local model when its extra is installed, else hashing: never the network."""
    return "local" if local_available() else "hashing"


def make_embeddings(spec: str, *, base_url: Optional[str] = None) -> Any:
    """The embeddings object a spec names (the OpenAI client only when asked for by name)."""
    spec = check_spec(spec)
    if spec == "hashing":
        from rag.embeddings import HashingEmbeddings

        return HashingEmbeddings()
    if spec == "local":
        from rag.embeddings import LocalEmbeddings

        return LocalEmbeddings()
    from rag.embeddings import OpenAIEmbeddings

    return OpenAIEmbeddings(model=spec.split(":", 1)[1], base_url=base_url)
