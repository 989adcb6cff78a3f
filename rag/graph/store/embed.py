"""What a store embeds: the texts at JSON paths of a value, and the embeddings object.

Paths are LangGraph's: ``"$"`` (or ``""``) the whole value as sorted JSON, ``"text"``,
``"a.b"``, ``"items[0].text"``, ``"items[-1]"``, ``"items[*].text"``, ``"meta.*"``,
``"{title,body}"``. A missing field gives no text (never an error): a document need not
have every field the index names.

>>> get_text_at_path({"a": {"b": "x"}, "tags": ["p", "q"]}, "tags[*]")
['p', 'q']
>>> tokenize_path("items[*].{id,text}")
['items', '[*]', '{id,text}']
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Mapping
from typing import Any, Callable, Optional, Sequence

import numpy as np

from rag.embeddings.base import Embeddings
from rag.errors import ValidationError

__all__ = ["get_text_at_path", "tokenize_path", "ensure_embeddings", "texts_to_embed"]

_SCALARS = (str, int, float, bool)


def _as_text(value: Any) -> list[str]:
    if isinstance(value, _SCALARS):
        return [str(value)]
    if isinstance(value, (list, dict)):
        return [json.dumps(value, sort_keys=True, ensure_ascii=False)]
    return []  # None (and anything that is not JSON) has no text to embed


def tokenize_path(path: str) -> list[str]:
    """``path`` split into field names, ``[index]`` and ``{a,b}`` tokens (brackets kept)."""
    tokens: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(path):
        char = path[i]
        if char in "[{":
            if current:
                tokens.append("".join(current))
                current = []
            close, depth, start = "]" if char == "[" else "}", 0, i
            while i < len(path):
                depth += path[i] == char
                depth -= path[i] == close
                i += 1
                if depth == 0:
                    break
            tokens.append(path[start:i])
            continue
        if char == ".":
            if current:
                tokens.append("".join(current))
                current = []
        else:
            current.append(char)
        i += 1
    if current:
        tokens.append("".join(current))
    return tokens


def get_text_at_path(obj: Any, path: "str | list[str]") -> list[str]:
    """The texts at ``path`` in ``obj`` (scalars as ``str``, lists and objects as sorted
    JSON); ``[]`` when nothing is there."""
    if isinstance(obj, Mapping) and not isinstance(obj, dict):
        obj = dict(obj)
    if not path or path == "$":
        return [json.dumps(obj, sort_keys=True, ensure_ascii=False)]
    return _extract(obj, tokenize_path(path) if isinstance(path, str) else list(path), 0)


def _extract(obj: Any, tokens: list[str], pos: int) -> list[str]:
    if pos == len(tokens):
        return _as_text(obj)
    token, found = tokens[pos], []
    if token.startswith("[") and token.endswith("]"):
        if isinstance(obj, list):
            inner = token[1:-1]
            if inner == "*":
                for element in obj:
                    found += _extract(element, tokens, pos + 1)
            elif inner.lstrip("-").isdigit():
                index = int(inner)
                if -len(obj) <= index < len(obj):
                    found += _extract(obj[index], tokens, pos + 1)
    elif token.startswith("{") and token.endswith("}"):
        if isinstance(obj, dict):
            for field in (f.strip() for f in token[1:-1].split(",")):
                found += _extract(obj, tokenize_path(field), 0) if field else []
    elif token == "*":
        for element in (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()):
            found += _extract(element, tokens, pos + 1)
    elif isinstance(obj, dict) and token in obj:
        found += _extract(obj[token], tokens, pos + 1)
    return found


def texts_to_embed(value: Mapping[str, Any], fields: Sequence[str]) -> list[tuple[str, str]]:
    """``(field label, text)`` pairs for ``value``: one per text found at each path (a path
    giving several texts labels them ``path.0``, ``path.1``...)."""
    pairs: list[tuple[str, str]] = []
    for path in fields:
        texts = get_text_at_path(value, path)
        if len(texts) == 1:
            pairs.append((path, texts[0]))
        else:
            pairs.extend((f"{path}.{i}", text) for i, text in enumerate(texts))
    return pairs


class _FunctionEmbeddings(Embeddings):
    """A function from a list of texts to a list of vectors (sync or async) as Embeddings."""

    def __init__(self, function: Callable[[Sequence[str]], Any]) -> None:
        self.function = function
        self.is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            getattr(function, "__call__", None))

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        if self.is_async:
            raise ValidationError("this store's index has an async embed function: use the async methods "
                                  "(aput, asearch), or give a sync function or an Embeddings object")
        return np.asarray(self.function(list(texts)), dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        if self.is_async:
            return np.asarray(await self.function(list(texts)), dtype=np.float32)
        return await asyncio.to_thread(self.embed_documents_array, texts)

    async def aembed_query_array(self, text: str) -> np.ndarray:
        return (await self.aembed_documents_array([text]))[0]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _FunctionEmbeddings) and other.function == self.function

    __hash__ = None  # type: ignore[assignment]


def ensure_embeddings(embed: Any) -> Optional[Embeddings]:
    """``embed`` as an object with ``embed_documents`` / ``embed_query`` (and async twins):
    an embeddings object as given, a function wrapped, None as None."""
    if embed is None:
        return None
    if hasattr(embed, "embed_documents") and hasattr(embed, "embed_query"):
        return embed
    if isinstance(embed, str):
        raise ValidationError(f"index embed={embed!r}: a provider string needs LangChain's init_embeddings, which is "
                              "not used here; pass an Embeddings object (e.g. rag.embeddings.LocalEmbeddings()) or a "
                              "function from a list of texts to a list of vectors")
    if callable(embed):
        return _FunctionEmbeddings(embed)
    raise ValidationError(f"index embed must be an Embeddings object or a function from texts to vectors, got "
                          f"{type(embed).__name__} {embed!r:.60}")
